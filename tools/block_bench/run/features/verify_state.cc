#include "tools/block_bench/run/features/verify_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tools/block_bench/run/verify.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

constexpr size_t kHeaderBytes = 24;
constexpr size_t kListBytes = 152;  // sizeof(struct thread_io_list), no entries
constexpr size_t kNameBytes = 64;
constexpr size_t kNameAt = 88;
constexpr size_t kEntryBytes = 16;

void Put64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; i++) b[at + i] = uint8_t(v >> (8 * i));
}
void Put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) b[at + i] = uint8_t(v >> (8 * i));
}
uint64_t Get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
uint32_t Get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

Error StateError(int code, std::string msg) { return Error{code, std::move(msg)}; }

}  // namespace

std::string VerifyStatePath(const std::string& dir, const std::string& name, uint64_t index) {
  std::string base = "local-" + name + "-" + std::to_string(index) + "-verify.state";
  if (dir.empty()) return base;
  return dir + (dir.back() == '/' ? "" : "/") + base;
}

std::vector<uint8_t> EncodeVerifyState(const VerifyState& s) {
  const size_t list = kListBytes + s.comps.size() * kEntryBytes;
  std::vector<uint8_t> b(kHeaderBytes + list, 0);
  const size_t l = kHeaderBytes;
  Put64(b, l + 0, s.comps.size());
  Put32(b, l + 8, s.depth);
  Put32(b, l + 12, s.nofiles);
  Put64(b, l + 16, s.numberio);
  Put64(b, l + 24, s.index);
  // use64 and the random state stay 0 (see the header).
  std::memcpy(&b[l + kNameAt], s.name.data(), std::min(s.name.size(), kNameBytes - 1));
  for (size_t i = 0; i < s.comps.size(); i++) {
    Put64(b, l + kListBytes + i * kEntryBytes, s.comps[i].file);
    Put64(b, l + kListBytes + i * kEntryBytes + 8, s.comps[i].offset);
  }
  Put64(b, 0, kVerifyStateVersion);
  Put64(b, 8, list);
  Put64(b, 16, Crc32c(&b[l], list, ~0u));
  return b;
}

Expected<VerifyState> DecodeVerifyState(const std::vector<uint8_t>& b) {
  if (b.size() < kHeaderBytes + kListBytes)
    return StateError(-EINVAL, "too short for fio's verify state (" + std::to_string(b.size()) +
                                   " bytes, at least " +
                                   std::to_string(kHeaderBytes + kListBytes) + ")");
  const uint64_t version = Get64(&b[0]), size = Get64(&b[8]), crc = Get64(&b[16]);
  if (version != kVerifyStateVersion)
    return StateError(-EINVAL, "version " + std::to_string(version) + ", fio 3.33 writes " +
                                   std::to_string(kVerifyStateVersion));
  if (size != b.size() - kHeaderBytes)
    return StateError(-EINVAL, "the header says " + std::to_string(size) +
                                   " bytes follow, the file has " +
                                   std::to_string(b.size() - kHeaderBytes));
  const uint8_t* l = &b[kHeaderBytes];
  if (Crc32c(l, size, ~0u) != crc) return StateError(-EILSEQ, "the state is corrupt (crc32c)");
  VerifyState s;
  const uint64_t n = Get64(l);
  if (n > (size - kListBytes) / kEntryBytes || kListBytes + n * kEntryBytes != size)
    return StateError(-EINVAL, std::to_string(n) + " entries do not fit its " +
                                   std::to_string(size) + " bytes");
  s.depth = Get32(l + 8);
  s.nofiles = Get32(l + 12);
  s.numberio = Get64(l + 16);
  s.index = Get64(l + 24);
  const char* name = reinterpret_cast<const char*>(l + kNameAt);
  s.name.assign(name, strnlen(name, kNameBytes));
  for (uint64_t i = 0; i < n; i++)
    s.comps.push_back({Get64(l + kListBytes + i * kEntryBytes),
                       Get64(l + kListBytes + i * kEntryBytes + 8)});
  return s;
}

Expected<void> SaveVerifyState(const std::string& path, const VerifyState& s) {
  const std::vector<uint8_t> b = EncodeVerifyState(s);
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    return StateError(-errno, "verify_state_save: cannot create " + QuoteName(path) + ": " +
                                  std::strerror(errno));
  size_t done = 0;
  while (done < b.size()) {
    const ssize_t n = ::write(fd, b.data() + done, b.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : EIO;
      ::close(fd);
      return StateError(-e, "verify_state_save: cannot write " + QuoteName(path) + ": " +
                                std::strerror(e));
    }
    done += size_t(n);
  }
  if (::close(fd) != 0)
    return StateError(-errno, "verify_state_save: cannot write " + QuoteName(path) + ": " +
                                  std::strerror(errno));
  return {};
}

Expected<VerifyState> LoadVerifyState(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return StateError(-errno, "verify_state_load: cannot open " + QuoteName(path) + ": " +
                                  std::strerror(errno) +
                                  " (a write job with verify= and verify_state_save=1 saves it)");
  std::vector<uint8_t> b;
  uint8_t chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return StateError(-e, "verify_state_load: cannot read " + QuoteName(path) + ": " +
                                std::strerror(e));
    }
    if (n == 0) break;
    // fio's lists hold iodepth x nofiles entries: far below this.
    if (b.size() + size_t(n) > (64u << 20)) {
      ::close(fd);
      return StateError(-EFBIG, "verify_state_load: " + QuoteName(path) +
                                    " is larger than 64 MiB: not a verify state");
    }
    b.insert(b.end(), chunk, chunk + n);
  }
  ::close(fd);
  auto s = DecodeVerifyState(b);
  if (!s.ok())
    return StateError(s.error().code,
                      "verify_state_load: " + QuoteName(path) + ": " + s.error().message);
  return s;
}

bool VerifyStateShouldStop(const VerifyState& s, uint64_t reads, uint64_t file, uint64_t offset) {
  if ((reads < s.depth || s.numberio - reads > s.depth) && s.numberio > s.depth) return false;
  return std::none_of(s.comps.begin(), s.comps.end(), [&](const VerifyStateEntry& e) {
    return e.file == file && e.offset == offset;
  });
}

VerifyStateLog::VerifyStateLog(uint32_t depth, uint32_t nofiles)
    : depth_(std::max<uint32_t>(depth, 1)),
      ring_(std::max<uint32_t>(nofiles, 1), std::vector<uint64_t>(depth_, 0)),
      next_(ring_.size(), 0) {}

void VerifyStateLog::completed(uint32_t file, uint64_t offset) {
  completed_++;
  if (file >= ring_.size()) return;
  ring_[file][next_[file]] = offset;
  next_[file] = (next_[file] + 1) % depth_;
}

VerifyState VerifyStateLog::snapshot(const std::string& name, uint64_t index) const {
  VerifyState s;
  s.depth = depth_;
  s.nofiles = uint32_t(ring_.size());
  s.numberio = numberio_;
  s.index = index;
  s.name = name.substr(0, kNameBytes - 1);
  const uint64_t per_file = std::min<uint64_t>(completed_, depth_);
  for (uint32_t f = 0; f < ring_.size(); f++) {
    // As fio: every file gives min(all completions, depth) entries,
    // zeros where its ring was never filled.
    uint32_t j = next_[f];
    for (uint64_t i = 0; i < per_file; i++) {
      j = j == 0 ? depth_ - 1 : j - 1;
      s.comps.push_back({f, ring_[f][j]});
    }
  }
  return s;
}

}  // namespace blk::bench
