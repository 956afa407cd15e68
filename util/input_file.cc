#include <blkstack/util/input_file.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace blk {
namespace {

constexpr size_t kChunk = size_t(1) << 20;  // per read of a regular file
constexpr int kPollMs = 100;                // the longest wait between checks

const char* KindOf(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

// "PATH: <before> the limit of N for <what><after>; raise it with ...".
Error OverLimit(const std::string& name, const InputLimit& limit, const std::string& before,
                const std::string& after = "") {
  std::string m = name + ": " + before + " the limit of " + FormatLimit(limit.max_bytes) +
                  " for " + std::string(limit.what) + after;
  m += limit.how_to_raise.empty() ? std::string(" (a fixed limit)")
                                  : "; raise it with " + std::string(limit.how_to_raise);
  return MakeError(-EFBIG, m);
}

Error Interrupted(const std::string& name) {
  return MakeError(-EINTR, name + ": reading interrupted by a signal");
}

Error Refused(const std::string& name, mode_t mode, const InputLimit& limit, bool stdin_rules) {
  const int err = S_ISDIR(mode) ? -EISDIR : -EINVAL;
  return MakeError(err, name + ": " + KindOf(mode) + ", not " + std::string(limit.what) +
                            " (read from a regular file or a pipe" +
                            (stdin_rules ? ", or a terminal" : "") + ")");
}

bool Stop(const InputLimit& limit) { return limit.interrupted && limit.interrupted(); }

Expected<std::string> ReadRegular(int fd, const std::string& name, const InputLimit& limit,
                                  const struct stat& st) {
  const uint64_t size = uint64_t(std::max<off_t>(st.st_size, 0));
  const uint64_t max = std::min<uint64_t>(limit.max_bytes, UINT64_MAX - 1);
  if (size > max) return OverLimit(name, limit, FormatLimit(size) + ", over");
  std::string out;
  out.reserve(size);  // exactly: reads append to it without growing it
  std::string chunk(size_t(std::min<uint64_t>(kChunk, max + 1)), '\0');
  while (true) {
    if (Stop(limit)) return Interrupted(name);
    // One byte past the bound tells a file that grew while read.
    const uint64_t room = max + 1 - out.size();
    const ssize_t n = read(fd, chunk.data(), size_t(std::min<uint64_t>(chunk.size(), room)));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      return MakeError(-err, name + ": " + std::strerror(err));
    }
    if (n == 0) return out;
    if (out.size() + size_t(n) > max) return OverLimit(name, limit, "grew past", " while read");
    out.append(chunk.data(), size_t(n));
  }
}

Expected<std::string> ReadStream(int fd, const std::string& name, const InputLimit& limit) {
  std::string out;
  char buf[1 << 16];
  while (true) {
    if (Stop(limit)) return Interrupted(name);
    struct pollfd p = {fd, POLLIN, 0};
    const int r = poll(&p, 1, kPollMs);
    if (r == 0) continue;
    if (r < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      return MakeError(-err, name + ": poll: " + std::strerror(err));
    }
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n == 0) return out;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      const int err = errno;
      return MakeError(-err, name + ": " + std::strerror(err));
    }
    if (out.size() + size_t(n) > limit.max_bytes)
      return OverLimit(name, limit, "more than", " came from the pipe");
    // Grown by doubling, but never past the bound.
    if (out.size() + size_t(n) > out.capacity())
      out.reserve(size_t(std::min<uint64_t>(std::max<uint64_t>(2 * out.capacity(), 1 << 16),
                                            limit.max_bytes)));
    out.append(buf, size_t(n));
  }
}

Expected<std::string> ReadOpened(int fd, const std::string& name, const InputLimit& limit,
                                 bool stdin_rules) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    return MakeError(-err, name + ": " + std::strerror(err));
  }
  if (S_ISREG(st.st_mode)) return ReadRegular(fd, name, limit, st);
  const bool allowed = S_ISFIFO(st.st_mode) ||
                       (stdin_rules && (S_ISSOCK(st.st_mode) || isatty(fd)));
  if (!allowed) return Refused(name, st.st_mode, limit, stdin_rules);
  return ReadStream(fd, name, limit);
}

}  // namespace

std::string FormatLimit(uint64_t bytes) {
  constexpr struct {
    int shift;
    const char* unit;
  } kUnits[] = {{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}};
  for (const auto& u : kUnits) {
    const uint64_t one = uint64_t(1) << u.shift;
    if (bytes >= one && bytes % one == 0) return std::to_string(bytes / one) + " " + u.unit;
  }
  for (const auto& u : kUnits) {
    const uint64_t one = uint64_t(1) << u.shift;
    if (bytes >= one) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.1f %s", double(bytes) / double(one), u.unit);
      return buf;
    }
  }
  return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

Expected<std::string> ReadInputFile(const std::string& path, const InputLimit& limit) {
  // Refused by what the path names, before opening: opening a device may
  // have effects of its own (a tape rewinds).
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    const int err = errno;
    return MakeError(-err, path + ": " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) return Refused(path, st.st_mode, limit, false);
  // O_NONBLOCK: a FIFO's open does not wait for a writer; cleared below so
  // that reads wait (the waits are polled).
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    return MakeError(-err, path + ": " + std::strerror(err));
  }
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  auto r = ReadOpened(fd, path, limit, false);
  close(fd);
  return r;
}

Expected<std::string> ReadInputFd(int fd, const std::string& name, const InputLimit& limit) {
  return ReadOpened(fd, name, limit, true);
}

}  // namespace blk
