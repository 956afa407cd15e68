// A RAM-disk driver for unit tests of the generic layer (a test seam, not a
// product driver): configurable limits and capabilities, completion after a
// number of loop iterations, and a log of what reached it so tests can check
// the contracts the generic layer promises drivers.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <blkstack/block/driver.h>

namespace blk::testing {

struct MemDriverLog {
  struct Op {
    char kind;  // 'r', 'w', 'f', 'd', 'z'
    uint64_t offset;
    uint64_t bytes;
    uint32_t flags;
  };
  std::vector<Op> ops;
  int contract_violations = 0;
};

class MemDriver : public BlockDriver {
 public:
  MemDriver(uint64_t size, BlockLimits limits, Capabilities caps, MemDriverLog* log,
            int yields = 1)
      : data_(size), limits_(limits), caps_(caps), log_(log), yields_(yields) {}

  std::string_view name() const override { return "mem"; }
  uint64_t length() const override { return data_.size(); }
  BlockLimits limits() const override { return limits_; }
  Capabilities caps() const override { return caps_; }
  void attach_aio_context(AioContext& ctx) override { ctx_ = &ctx; }
  void detach_aio_context() override { ctx_ = nullptr; }

  std::vector<uint8_t>& data() { return data_; }

  Task<Status> co_preadv(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                         uint32_t flags) override {
    check(offset, bytes, &qiov);
    log_->ops.push_back({'r', offset, bytes, flags});
    // Read at submission, complete later: a real device reads "now".
    std::vector<uint8_t> snap(bytes, 0);
    for (uint64_t i = 0; i < bytes; i++) {
      if (offset + i < data_.size()) snap[i] = data_[offset + i];
    }
    co_await delay();
    qiov.copy_from(0, snap.data(), bytes);
    co_return Status();
  }

  Task<Status> co_pwritev(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                          uint32_t flags) override {
    check(offset, bytes, &qiov);
    if ((flags & kReqFua) && !caps_.fua) log_->contract_violations++;
    log_->ops.push_back({'w', offset, bytes, flags});
    std::vector<uint8_t> tmp(bytes);
    qiov.copy_to(0, tmp.data(), bytes);
    co_await delay();
    for (uint64_t i = 0; i < bytes && offset + i < data_.size(); i++) data_[offset + i] = tmp[i];
    co_return Status();
  }

  Task<Status> co_flush() override {
    log_->ops.push_back({'f', 0, 0, 0});
    co_await delay();
    co_return Status();
  }

  Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes) override {
    if (!caps_.discard) log_->contract_violations++;
    check(offset, bytes, nullptr);
    log_->ops.push_back({'d', offset, bytes, 0});
    co_await delay();
    std::memset(data_.data() + offset, 0, bytes);
    co_return Status();
  }

  Task<Status> co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags) override {
    if (!caps_.write_zeroes) log_->contract_violations++;
    check(offset, bytes, nullptr);
    log_->ops.push_back({'z', offset, bytes, flags});
    co_await delay();
    std::memset(data_.data() + offset, 0, bytes);
    co_return Status();
  }

 private:
  // Records every broken promise of the generic layer.
  void check(uint64_t offset, uint64_t bytes, const IoVec* qiov) {
    uint64_t a = limits_.request_alignment;
    if (offset % a || bytes % a) log_->contract_violations++;
    if (qiov) {
      if (limits_.max_transfer && bytes > limits_.max_transfer) log_->contract_violations++;
      if (qiov->size() != bytes) log_->contract_violations++;
      if (limits_.memory_alignment > 1 &&
          !qiov->is_aligned(limits_.memory_alignment, limits_.memory_alignment)) {
        log_->contract_violations++;
      }
      if (qiov->count() > limits_.max_iov) log_->contract_violations++;
    }
    uint64_t end_limit = (data_.size() + a - 1) / a * a;
    if (offset + bytes > end_limit) log_->contract_violations++;
    if (!ctx_) log_->contract_violations++;
  }

  Task<void> delay() {
    for (int i = 0; i < yields_; i++) co_await ctx_->yield();
  }

  std::vector<uint8_t> data_;
  BlockLimits limits_;
  Capabilities caps_;
  MemDriverLog* log_;
  int yields_;
  AioContext* ctx_ = nullptr;
};

}  // namespace blk::testing
