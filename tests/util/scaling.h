// Growth of running time with input size, for tests that guard against
// quadratic (or worse) work on hostile input without an absolute time limit,
// which a sanitizer build or a loaded machine would break.  Timing is used
// only as a ratio of two sizes measured in the same process.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>

namespace blk::test {

// The best of three timings of work(input), in seconds.
template <class Work, class Input>
double BestOf3Seconds(Work& work, const Input& input) {
  double best = 1e30;
  for (int i = 0; i < 3; i++) {
    const auto start = std::chrono::steady_clock::now();
    work(input);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

// time(work(make(n * factor))) / time(work(make(n))), the inputs made
// outside the timing: about `factor` when the work is linear in n, factor^2
// when quadratic.  Pick n so that work(make(n)) takes a millisecond or more,
// or clock noise dominates the ratio.
template <class Make, class Work>
double GrowthRatio(Make make, Work work, size_t n, size_t factor = 10) {
  const auto small_input = make(n);
  const auto big_input = make(n * factor);
  const double small = BestOf3Seconds(work, small_input);
  const double big = BestOf3Seconds(work, big_input);
  return big / std::max(small, 1e-6);
}

}  // namespace blk::test
