#include "tools/block_bench/run/io_recorder.h"

namespace blk::bench {

Expected<void> IoRecorder::open(const std::string& write_iolog, uint32_t clone,
                                const std::string& file_tag, CloneFiles& files) {
  std::string path = write_iolog;
  if (clone > 0) path += "." + std::to_string(clone);
  path += file_tag;
  auto w = trace::IologWriter::Open(path);
  if (!w.ok()) return w.error();
  writer_.emplace(std::move(*w));
  for (const CloneFiles::File& f : files.files())
    writer_->add_file(0, f.target.filename.empty() ? f.target.display : f.target.filename);
  return {};
}

Expected<void> IoRecorder::close(int64_t now) {
  if (!writer_) return {};
  auto closed = writer_->close((now - time_.start_ns) / 1000);
  writer_.reset();
  if (!closed.ok()) return closed.error();
  return {};
}

}  // namespace blk::bench
