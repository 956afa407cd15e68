#include "tools/block_bench/trace/iolog_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <blkstack/block/options.h>

namespace blk::bench::trace {
namespace {

constexpr size_t kFlushBytes = 1 << 20;

const char* OpWord(Op op) {
  switch (op) {
    case Op::kRead: return "read";
    case Op::kWrite: return "write";
    case Op::kTrim: return "trim";
    case Op::kFlush: return "sync";
  }
  return "read";
}

void AppendU64(std::string& s, uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = char('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) s.push_back(tmp[--n]);
}

}  // namespace

Expected<IologWriter> IologWriter::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int e = errno;
    return MakeError(-e, "write_iolog: cannot create '" + path + "': " + std::strerror(e));
  }
  IologWriter w(fd, path);
  w.buf_ = "fio version 3 iolog\n";
  return w;
}

IologWriter::IologWriter(IologWriter&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      path_(std::move(o.path_)),
      buf_(std::move(o.buf_)),
      files_(std::move(o.files_)),
      error_(o.error_) {}

IologWriter::~IologWriter() {
  if (fd_ >= 0) ::close(fd_);
}

uint16_t IologWriter::add_file(int64_t t_us, std::string_view name) {
  std::string clean(name);
  // A JSON graph spec holds blanks the format cannot: its key=value form is
  // one token naming the same graph.
  const size_t first = name.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (name[first] == '{' || name.substr(first, 5) == "json:")) {
    if (auto o = Options::Parse(name); o.ok()) clean = o->ToString();
  }
  for (char& c : clean)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') c = '_';
  if (clean.empty()) clean = "_";
  files_.push_back(clean);
  for (const char* action : {"add", "open"}) {
    AppendU64(buf_, uint64_t(t_us < 0 ? 0 : t_us));
    buf_ += ' ';
    buf_ += clean;
    buf_ += ' ';
    buf_ += action;
    buf_ += '\n';
  }
  return uint16_t(files_.size() - 1);
}

void IologWriter::io(int64_t t_us, uint16_t file, Op op, uint64_t offset, uint64_t len) {
  AppendU64(buf_, uint64_t(t_us < 0 ? 0 : t_us));
  buf_ += ' ';
  buf_ += file < files_.size() ? files_[file] : "_";
  buf_ += ' ';
  buf_ += OpWord(op);
  // fio writes (and its reader requires) OFFSET LENGTH on sync lines too.
  buf_ += ' ';
  AppendU64(buf_, offset);
  buf_ += ' ';
  AppendU64(buf_, len);
  buf_ += '\n';
  flush_if(kFlushBytes);
}

void IologWriter::flush_if(size_t threshold) {
  if (buf_.size() < threshold) return;
  size_t done = 0;
  while (done < buf_.size() && !error_) {
    ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
    } else {
      done += size_t(n);
    }
  }
  buf_.clear();
}

Expected<void> IologWriter::close(int64_t t_us) {
  for (const std::string& f : files_) {
    AppendU64(buf_, uint64_t(t_us < 0 ? 0 : t_us));
    buf_ += ' ';
    buf_ += f;
    buf_ += " close\n";
  }
  flush_if(0);
  if (fd_ >= 0 && ::close(std::exchange(fd_, -1)) != 0 && !error_) error_ = errno;
  if (error_)
    return MakeError(-error_, "write_iolog: cannot write '" + path_ + "': " + std::strerror(error_));
  return {};
}

}  // namespace blk::bench::trace
