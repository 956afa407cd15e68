#include "tools/block_bench/run/fio_skew.h"

#include <algorithm>
#include <cmath>

namespace blk::bench {
namespace {

constexpr uint32_t kJhashInit = 0x61C88647u;  // fio's JHASH_INITVAL (GOLDEN_RATIO_32)
constexpr uint64_t kGoldenRatio64 = 0x61C8864680B583EBull;
constexpr uint64_t kZipfMaxGen = 10000000;  // fio's ZIPF_MAX_GEN
constexpr double kFrand32Max = 4294967295.0;
constexpr int kGaussIters = 12;

uint32_t Rol(uint32_t w, unsigned s) { return (w << s) | (w >> (32 - s)); }

void Mix(uint32_t& a, uint32_t& b, uint32_t& c) {
  a -= c; a ^= Rol(c, 4);  c += b;
  b -= a; b ^= Rol(a, 6);  a += c;
  c -= b; c ^= Rol(b, 8);  b += a;
  a -= c; a ^= Rol(c, 16); c += b;
  b -= a; b ^= Rol(a, 19); a += c;
  c -= b; c ^= Rol(b, 4);  b += a;
}

void Final(uint32_t& a, uint32_t& b, uint32_t& c) {
  c ^= b; c -= Rol(b, 14);
  a ^= c; a -= Rol(c, 11);
  b ^= a; b -= Rol(a, 25);
  c ^= b; c -= Rol(b, 16);
  a ^= c; a -= Rol(c, 4);
  b ^= a; b -= Rol(a, 14);
  c ^= b; c -= Rol(b, 24);
}

uint64_t HashU64(uint64_t v) { return v * kGoldenRatio64; }

}  // namespace

uint32_t FioJhash(std::string_view key) {
  const auto* k = reinterpret_cast<const unsigned char*>(key.data());
  uint32_t length = uint32_t(key.size());
  uint32_t a = kJhashInit + length, b = a, c = a;
  // fio adds *k, *(k + 4) and *(k + 8) of a uint8_t pointer: one byte each.
  while (length > 12) {
    a += k[0];
    b += k[4];
    c += k[8];
    Mix(a, b, c);
    length -= 12;
    k += 12;
  }
  if (length == 0) return c;
  // The last 1..12 bytes, little-endian into a, b, c.
  for (uint32_t i = length; i-- > 0;) {
    const uint32_t v = uint32_t(k[i]) << (8 * (i % 4));
    if (i >= 8) c += v;
    else if (i >= 4) b += v;
    else a += v;
  }
  Final(a, b, c);
  return c;
}

uint32_t FioSkewSeed(bool randrepeat, bool randseed_given, std::string_view file_name,
                     uint32_t thread_number, uint32_t block_seed) {
  if (!randrepeat || randseed_given) return block_seed;
  return FioJhash(file_name) * thread_number;
}

FioSkew::FioSkew(Distribution kind, uint64_t nranges, double parameter,
                 std::optional<double> center, uint32_t seed)
    : kind_(kind), nranges_(std::max<uint64_t>(1, nranges)), rand_(seed) {
  switch (kind_) {
    case Distribution::kZipf:
    case Distribution::kPareto:
      // fio's shared_rand_init.
      rand_off_ = rand_.next();
      if (center) rand_off_ = uint64_t(double(nranges_) * *center);
      if (kind_ == Distribution::kPareto) {
        pareto_pow_ = std::log(parameter) / std::log(1.0 - parameter);
      } else {
        theta_ = parameter;
        zeta2_ = std::pow(1.0, theta_) + std::pow(0.5, theta_);
        const uint64_t gen = std::min(nranges_, kZipfMaxGen);
        for (uint64_t i = 0; i < gen; i++) zetan_ += std::pow(1.0 / double(i + 1), theta_);
      }
      break;
    case Distribution::kNormal:
      // fio's gauss_init: stddev and rand_off are unsigned ints there; a
      // centre below the middle wraps rand_off modulo 2^32 as x86-64 does.
      if (parameter != 0.0) {
        stddev_ = uint32_t(std::ceil(double(nranges_) * parameter / 100.0));
        if (stddev_ > nranges_ / 2) stddev_ = uint32_t(nranges_ / 2);
      }
      if (center) rand_off_ = uint32_t(int64_t(double(nranges_) * (*center - 0.5)));
      break;
    default:
      break;
  }
}

uint64_t FioSkew::next() {
  switch (kind_) {
    case Distribution::kZipf: return zipf();
    case Distribution::kPareto: return pareto();
    case Distribution::kNormal: return gauss();
    default: return 0;
  }
}

uint64_t FioSkew::zipf() {
  const uint64_t n = nranges_;
  const double alpha = 1.0 / (1.0 - theta_);
  const double eta = (1.0 - std::pow(2.0 / double(n), 1.0 - theta_)) / (1.0 - zeta2_ / zetan_);
  const double rand_uni = double(rand_.next()) / kFrand32Max;
  const double rand_z = rand_uni * zetan_;
  uint64_t val;
  if (rand_z < 1.0) val = 1;
  else if (rand_z < 1.0 + std::pow(0.5, theta_)) val = 2;
  else val = 1 + uint64_t(double(n) * std::pow(eta * rand_uni - eta + 1.0, alpha));
  return (HashU64(val - 1) + rand_off_) % n;
}

uint64_t FioSkew::pareto() {
  const double r = double(rand_.next()) / kFrand32Max;
  const uint64_t v = uint64_t(double(nranges_ - 1) * std::pow(r, pareto_pow_));
  return (HashU64(v) + rand_off_) % nranges_;
}

uint64_t FioSkew::gauss() {
  uint64_t sum = 0;
  for (int i = 0; i < kGaussIters; i++) sum += uint64_t(rand_.next()) % (nranges_ + 1);
  sum = (sum + kGaussIters - 1) / kGaussIters;
  if (stddev_) {
    // fio's gauss_dev: an int in [-stddev/2, stddev/2), added in unsigned
    // 64-bit arithmetic and halved while the sum would reach nranges.
    const uint32_t r = rand_.next();
    const int vr = int(double(stddev_) * (double(r) / (kFrand32Max + 1.0)));
    int dev = int(uint32_t(vr) - stddev_ / 2);
    // (fio spins forever when dev reaches 0 with sum at nranges; 0 ends it.)
    while (dev != 0 && uint64_t(int64_t(dev)) + sum >= nranges_) dev /= 2;
    sum += uint64_t(int64_t(dev));
  }
  return (HashU64(sum) + rand_off_) % nranges_;
}

}  // namespace blk::bench
