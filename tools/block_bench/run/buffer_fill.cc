#include "tools/block_bench/run/buffer_fill.h"

#include <cstring>

#include <blkstack/util/input_file.h>

namespace blk::bench {

Expected<std::string> ResolvePattern(const std::vector<PatternPiece>& pieces,
                                     std::string_view option, std::vector<uint32_t>* offsets) {
  std::string out;
  const std::string name(option);
  for (const PatternPiece& p : pieces) {
    if (p.block_offset && offsets) offsets->push_back(uint32_t(out.size()));
    if (!p.file) {
      out += p.data;
      continue;
    }
    // fio's bound on a pattern (MAX_PATTERN_SIZE), for all its pieces.
    InputLimit limit;
    limit.max_bytes = kMaxPatternBytes;
    limit.what = "a pattern file";
    auto read = ReadInputFile(p.data, limit);
    if (!read.ok()) {
      const int err = read.error().code;
      if (err == -ENOENT || err == -EACCES)
        return MakeError(err, name + ": cannot open '" + p.data + "': " + ErrnoString(err));
      return MakeError(err, name + ": " + read.error().message);
    }
    std::string& bytes = *read;
    if (bytes.empty()) return MakeError(-EINVAL, name + ": '" + p.data + "' is empty");
    if (out.size() + bytes.size() > kMaxPatternBytes)
      return MakeError(-EFBIG, name + ": with '" + p.data + "' the pattern is longer than " +
                                   FormatLimit(kMaxPatternBytes) + " (fio's limit too)");
    out += bytes;
  }
  return out;
}

BufferFiller::BufferFiller(const JobOptions& job, std::string pattern, uint64_t seed,
                           DedupeSeeds::World world)
    : pattern_(std::move(pattern)),
      zero_(job.zero_buffers),
      chunk_(job.buffer_compress_chunk),
      dedupe_(job.dedupe_percentage),
      rng_(Mix64(seed ^ 0xb0ffe7)) {
  if (job.buffer_compress_percentage) {
    compressing_ = true;
    compress_ = *job.buffer_compress_percentage;
  }
  // fio: compression (other than 100 %) and dedupe imply refill_buffers.
  refill_ = job.refill_buffers || (compressing_ && compress_ != 100) || dedupe_ > 0;
  if (dedupe_) dedupe_seeds_.emplace(job, seed, std::move(world));
  scramble_ = job.scramble_buffers && !refill_ && !zero_ && pattern_.empty() && !compressing_;
}

void BufferFiller::fill_fixed(uint8_t* p, size_t len, size_t phase) const {
  if (pattern_.empty()) {
    std::memset(p, 0, len);
    return;
  }
  for (size_t i = 0; i < len; i++) p[i] = uint8_t(pattern_[(phase + i) % pattern_.size()]);
}

namespace {
void FillRandom(Rng& r, uint8_t* p, size_t len) {
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const uint64_t v = r.next();
    std::memcpy(p + i, &v, 8);
  }
  if (i < len) {
    const uint64_t v = r.next();
    std::memcpy(p + i, &v, len - i);
  }
}
}  // namespace

void BufferFiller::fill(uint8_t* buf, size_t len) {
  // Dedupe: the write's seed may repeat an earlier (or coming) one.
  const uint64_t seed = dedupe_seeds_ ? dedupe_seeds_->next() : rng_.next();
  Rng r(seed);
  if (compressing_) {
    const size_t chunk = chunk_ ? chunk_ : len;
    for (size_t at = 0; at < len; at += chunk) {
      const size_t n = std::min(chunk, len - at);
      const size_t random = n * (100 - compress_) / 100;
      FillRandom(r, buf + at, random);
      fill_fixed(buf + at + random, n - random, at + random);
    }
  } else if (dedupe_) {
    FillRandom(r, buf, len);
  } else if (!pattern_.empty() || zero_) {
    fill_fixed(buf, len, 0);
  } else {
    FillRandom(r, buf, len);
  }
}

void BufferFiller::fill_part(uint8_t* buf, size_t from, size_t to) {
  if (from >= to) return;
  Rng r(rng_.next());
  if (compressing_) {
    // The chunks of fill(buf, to) that [from, to) meets, each random for
    // its first part and then fixed.
    const size_t chunk = chunk_ ? chunk_ : to;
    for (size_t at = from - from % chunk; at < to; at += chunk) {
      const size_t n = std::min(chunk, to - at);
      const size_t random_end = at + n * (100 - compress_) / 100;
      const size_t a = std::max(at, from), b = std::min(at + n, to);
      if (a < random_end) FillRandom(r, buf + a, std::min(b, random_end) - a);
      if (b > random_end) {
        const size_t f = std::max(a, random_end);
        fill_fixed(buf + f, b - f, f);
      }
    }
  } else if (!pattern_.empty() || zero_) {
    fill_fixed(buf + from, to - from, from);
  } else {
    FillRandom(r, buf + from, to - from);
  }
}

void BufferFiller::Scramble(uint8_t* buf, size_t len, uint64_t offset, int64_t now_ns) {
  const uint64_t now = uint64_t(now_ns);
  const size_t line = size_t((now ^ offset) & 7) * 64;
  for (size_t at = 0; at + 512 <= len; at += 512) {
    const uint64_t off = offset + at;
    std::memcpy(buf + at + line, &off, 8);
    std::memcpy(buf + at + 56, &now, 8);
  }
}

}  // namespace blk::bench
