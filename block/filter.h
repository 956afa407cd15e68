// FilterDriver: the common part of drivers with one child node (`file`).
//
// A filter passes requests to its child BlockNode (whose generic layer pads
// and splits for the child's driver), so it accepts any request itself: no
// alignment, no size limit, FUA / discard / write-zeroes / block status
// forwarded.  It
// forwards loop attachment and plug/unplug to the child, and reports the
// child's counters under "file.".  Subclasses override the I/O methods they
// change and call the child through child().
//
// Threading: as every driver (block/driver.h).
#pragma once

#include <memory>
#include <vector>

#include <blkstack/block/driver.h>
#include <blkstack/block/driver_info.h>
#include <blkstack/block/node.h>

namespace blk {

// Takes the filter's child node `file` out of the open arguments, or fails
// with a message naming the driver.
inline Expected<std::unique_ptr<BlockNode>> TakeFileChild(DriverOpenArgs& args,
                                                          std::string_view driver) {
  auto it = args.children.find("file");
  if (it == args.children.end()) {
    return MakeError(-EINVAL, "driver '" + std::string(driver) +
                                  "': missing child 'file' (e.g. file.driver=null)");
  }
  return std::move(it->second);
}

class FilterDriver : public BlockDriver {
 public:
  explicit FilterDriver(std::unique_ptr<BlockNode> child) : child_(std::move(child)) {}

  uint64_t length() const override { return child_->length(); }
  BlockLimits limits() const override { return {}; }
  Capabilities caps() const override {
    Capabilities c;
    c.fua = true;
    c.write_zeroes = true;
    c.discard = true;
    return c;
  }
  void attach_aio_context(AioContext& ctx) override {
    ctx_ = &ctx;
    child_->attach_aio_context(ctx);
  }
  void detach_aio_context() override {
    child_->detach_aio_context();
    ctx_ = nullptr;
  }
  void plug() override { child_->plug(); }
  void unplug() override { child_->unplug(); }
  int register_buf(void* host, size_t size) override { return child_->register_buf(host, size); }
  void unregister_buf(void* host, size_t size) override { child_->unregister_buf(host, size); }
  void cancel_waits() override { child_->cancel_waits(); }
  // The filter's own counters (own_counters), then the child's as "file.*".
  void counters(std::vector<DriverCounter>* out) const override {
    own_counters(out);
    std::vector<DriverCounter> sub;
    child_->driver().counters(&sub);
    for (auto& c : sub) out->push_back({"file." + c.name, c.value});
  }

  // Pass-through I/O; subclasses override what they change.
  Task<Status> co_preadv(uint64_t offset, uint64_t, const IoVec& qiov, uint32_t flags) override {
    return child_->co_preadv(offset, qiov, flags);
  }
  Task<Status> co_pwritev(uint64_t offset, uint64_t, const IoVec& qiov, uint32_t flags) override {
    return child_->co_pwritev(offset, qiov, flags);
  }
  Task<Status> co_flush() override { return child_->co_flush(); }
  Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes) override {
    return child_->co_pdiscard(offset, bytes);
  }
  Task<Status> co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags) override {
    return child_->co_pwrite_zeroes(offset, bytes, flags);
  }
  Task<Result<BlockStatus>> co_block_status(uint64_t offset, uint64_t bytes) override {
    return child_->co_block_status(offset, bytes);
  }

 protected:
  virtual void own_counters(std::vector<DriverCounter>* out) const { (void)out; }
  BlockNode& child() { return *child_; }
  // The attached loop, or nullptr while detached.
  AioContext* ctx() const { return ctx_; }

 private:
  std::unique_ptr<BlockNode> child_;
  AioContext* ctx_ = nullptr;
};

}  // namespace blk
