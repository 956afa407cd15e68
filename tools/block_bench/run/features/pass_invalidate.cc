#include "tools/block_bench/run/features/pass_invalidate.h"

#include <fcntl.h>
#include <unistd.h>

#include "tools/block_bench/run/submit_loop.h"
#include "tools/block_bench/run/target.h"

namespace blk::bench {

void PassInvalidate::on_issue(const IssuedIo& io) {
  pass_ = std::max(pass_, io.u.pass);
  if (io.u.file < wrap_.size()) wrap_[io.u.file] = std::max(wrap_[io.u.file], io.u.wrap);
}

bool PassInvalidate::before_issue(SubmitLoop& loop) {
  const IoUnit& u = loop.pending_io();
  return u.pass > pass_ || (u.file < wrap_.size() && u.wrap > wrap_[u.file]);
}

Task<bool> PassInvalidate::turn(SubmitLoop& loop) {
  const IoUnit u = loop.pending_io();
  if (u.pass > pass_) {
    pass_ = u.pass;
    loop.end_batch();
    co_await loop.wait_all();
    passes_++;
    drop_all();
  }
  if (u.file < wrap_.size() && u.wrap > wrap_[u.file]) {
    wrap_[u.file] = u.wrap;
    wraps_++;
    drop(u.file);
  }
  co_return true;
}

void PassInvalidate::drop_all() {
  for (uint32_t f = 0; f < files_.size(); f++) drop(f);
}

void PassInvalidate::drop(uint32_t file) {
  const File& f = files_[file];
  if (f.path.empty()) return;
  const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;
  drops_ += DropCache(fd, f.offset, f.len);
  ::close(fd);
}

}  // namespace blk::bench
