// FioLfsr: fio 3.33's random_generator=lfsr (its lib/lfsr.c), so that a job
// with it issues fio's offsets I/O by I/O.
//
// An XNOR Galois LFSR of n bits, n the smallest of 3..63 with 2^n > nums,
// with fio's taps for n (its table from Xilinx XAPP052).  It visits every
// state but all ones once per period of 2^n - 1 steps, so the values in
// [0, nums) come out once each before next() fails (nums of them per
// reset; the others are stepped over).  The state starts as the seed's low
// n bits; fio's "spin" is 0, but its cycle counter makes the first value
// after init two steps (a reset keeps the counter spent, so one step).
// init fails where fio's does: nums above 2^63, or a seed whose low n bits
// are all ones (XNOR's locked state).
//
// Checked against fio 3.33's iologs (tests/tools/block_bench/run/
// fio_sequence_e2e_test.sh); the rules themselves in fio_lfsr_test.cc.
//
// Thread-safety: a plain value, one per file of a clone.
#pragma once

#include <cstdint>
#include <optional>

namespace blk::bench {

class FioLfsr {
 public:
  // fio's lfsr_init(nums, seed, spin = 0); false where it fails (then
  // next() has no values).
  bool init(uint64_t nums, uint64_t seed) {
    ready_ = false;
    int bits = 3;
    while (bits < 64 && (uint64_t(1) << bits) <= nums) bits++;
    if (bits == 64 || nums == 0) return false;
    max_val_ = nums - 1;
    xormask_ = 0;
    for (int t : kTaps[bits]) {
      if (t == 0) break;
      xormask_ |= uint64_t(1) << (t - 1);
    }
    top_bit_ = uint64_t(1) << (bits - 1);
    first_ = true;
    return reset(seed);
  }

  // fio's lfsr_reset (fio_file_reset: a time based job's full pass, a
  // strided zone, a file opened for a new loop): from the seed again, with
  // single steps; false on the locked state.
  bool reset(uint64_t seed) {
    const uint64_t mask = (top_bit_ << 1) - 1;
    count_ = 0;
    state_ = seed & mask;
    ready_ = state_ != mask;
    return ready_;
  }
  // Whether the last init or reset succeeded.
  bool ready() const { return ready_; }

  // fio's lfsr_next: the next value in [0, nums); nullopt once nums values
  // came out since the last reset.
  std::optional<uint64_t> next() {
    // (The locked state of a failed init or reset steps to itself forever.)
    if (!ready_ || count_++ > max_val_) return std::nullopt;
    do {
      step();
      if (first_) {
        step();  // fio's cycle counter ran out: spin + 1 steps
        first_ = false;
      }
    } while (state_ > max_val_);
    return state_;
  }

 private:
  void step() {
    // A Galois step: shift right, the top bit from fio's cached bit, and
    // the taps flipped when the bit shifted out was 0 (XNOR).
    const uint64_t out = state_ & 1;
    state_ = ((state_ >> 1) | top_bit_) ^ ((out - 1) & xormask_);
  }

  // fio's taps for n = 3..63 (none below 3), highest first.
  static constexpr uint8_t kTaps[64][6] = {
      {}, {}, {}, {3, 2}, {4, 3}, {5, 3}, {6, 5}, {7, 6}, {8, 6, 5, 4}, {9, 5}, {10, 7},
      {11, 9}, {12, 6, 4, 1}, {13, 4, 3, 1}, {14, 5, 3, 1}, {15, 14}, {16, 15, 13, 4},
      {17, 14}, {18, 11}, {19, 6, 2, 1}, {20, 17}, {21, 19}, {22, 21}, {23, 18},
      {24, 23, 22, 17}, {25, 22}, {26, 6, 2, 1}, {27, 5, 2, 1}, {28, 25}, {29, 27},
      {30, 6, 4, 1}, {31, 28}, {32, 31, 29, 1}, {33, 20}, {34, 27, 2, 1}, {35, 33}, {36, 25},
      {37, 5, 4, 3, 2, 1}, {38, 6, 5, 1}, {39, 35}, {40, 38, 21, 19}, {41, 38},
      {42, 41, 20, 19}, {43, 42, 38, 37}, {44, 43, 18, 17}, {45, 44, 42, 41},
      {46, 45, 26, 25}, {47, 42}, {48, 47, 21, 20}, {49, 40}, {50, 49, 24, 23},
      {51, 50, 36, 35}, {52, 49}, {53, 52, 38, 37}, {54, 53, 18, 17}, {55, 31},
      {56, 55, 35, 34}, {57, 50}, {58, 39}, {59, 58, 38, 37}, {60, 59}, {61, 60, 46, 45},
      {62, 61, 6, 5}, {63, 62}};

  uint64_t max_val_ = 0;
  uint64_t xormask_ = 0;
  uint64_t top_bit_ = 4;
  uint64_t state_ = 0;
  uint64_t count_ = 0;
  bool first_ = true;  // fio's cycle_length of 1 after prepare_spin(0)
  bool ready_ = false;
};

}  // namespace blk::bench
