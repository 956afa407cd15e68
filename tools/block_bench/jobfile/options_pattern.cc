// Options shaping the I/O pattern: rw and its mix, block sizes, offsets and
// sizes, the random distribution and seeding.
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstdio>

#include "tools/block_bench/jobfile/option_helpers.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

using internal::ApplyPerDir;
using internal::ChoiceOption;
using internal::FioChoice;
using internal::FioValueError;
using internal::RenderPerDir;

constexpr size_t kMaxBsSplit = 64;
constexpr size_t kMaxZones = 256;

// ---- rw ---------------------------------------------------------------------

struct RwName {
  std::string_view name;
  RwMode mode;
};
constexpr std::array<RwName, 11> kRwNames = {{{"read", RwMode::kRead},
                                              {"write", RwMode::kWrite},
                                              {"trim", RwMode::kTrim},
                                              {"randread", RwMode::kRandRead},
                                              {"randwrite", RwMode::kRandWrite},
                                              {"randtrim", RwMode::kRandTrim},
                                              {"rw", RwMode::kReadWrite},
                                              {"readwrite", RwMode::kReadWrite},
                                              {"randrw", RwMode::kRandReadWrite},
                                              {"trimwrite", RwMode::kTrimWrite},
                                              {"randtrimwrite", RwMode::kRandTrimWrite}}};

Expected<void> ApplyRw(JobOptions& job, std::optional<std::string_view> v) {
  const size_t colon = v->find(':');
  const std::string_view mode = Trim(v->substr(0, colon));
  const RwName* found = nullptr;
  for (const RwName& r : kRwNames) {
    if (r.name == mode) found = &r;
  }
  if (found == nullptr) {
    return FioValueError("unsupported rw mode " + QuoteInput(mode) +
                         " (block-bench supports read, write, trim, randread, randwrite, "
                         "randtrim, rw, readwrite, randrw)");
  }
  // Like fio, every rw= resets the offset modifier.
  job.rw = found->mode;
  job.rw_sequential_ios = 1;
  job.rw_offset_skip = 0;
  if (colon == std::string_view::npos) return {};
  const std::string_view postfix = Trim(v->substr(colon + 1));
  if (IsRandom(job.rw)) {
    Expected<uint64_t> n = ParseInteger(postfix, job.kb_base, 1, UINT32_MAX);
    if (!n.ok()) {
      return FioValueError("after '" + std::string(mode) + ":' " + n.error().message);
    }
    job.rw_sequential_ios = n.value();
  } else {
    // A negative skip goes backwards (fio: rw=read:-8k with bs=4k reads the
    // region from its end down).
    const bool back = !postfix.empty() && postfix.front() == '-';
    Expected<uint64_t> n = FioParseSize(back ? postfix.substr(1) : postfix, job.kb_base);
    if (!n.ok()) return FioValueError("after '" + std::string(mode) + ":' " + n.error().message);
    if (n.value() > uint64_t(INT64_MAX))
      return FioValueError("after '" + std::string(mode) + ":' the skip is too large");
    job.rw_offset_skip = back ? -int64_t(n.value()) : int64_t(n.value());
  }
  return {};
}

void RenderRw(const JobOptions& job, std::string_view n, RenderedOptions& out) {
  const JobOptions& d = DefaultJob();
  if (job.rw == d.rw && job.rw_sequential_ios == d.rw_sequential_ios &&
      job.rw_offset_skip == d.rw_offset_skip) {
    return;
  }
  std::string value(Name(job.rw));
  if (IsRandom(job.rw) && job.rw_sequential_ios != 1) {
    value += ":" + std::to_string(job.rw_sequential_ios);
  } else if (!IsRandom(job.rw) && job.rw_offset_skip != 0) {
    const int64_t k = job.rw_offset_skip;
    value += std::string(":") + (k < 0 ? "-" : "") +
             FormatSize(k < 0 ? uint64_t(0) - uint64_t(k) : uint64_t(k), job.kb_base);
  }
  out.push_back({std::string(n), value});
}

// ---- block sizes ------------------------------------------------------------

bool AllFixed(const PerDir<BlockSizeRange>& bs) {
  for (const BlockSizeRange& r : bs) {
    if (r.min != r.max) return false;
  }
  return true;
}

Expected<void> ApplyBs(JobOptions& job, std::optional<std::string_view> v) {
  const uint32_t kb = job.kb_base;
  return ApplyPerDir(*v, job.bs, [kb](std::string_view part) -> Expected<BlockSizeRange> {
    Expected<uint64_t> n = FioParseSize(part, kb, 1);
    if (!n.ok()) return n.error();
    return BlockSizeRange{n.value(), n.value()};
  });
}

void RenderBs(const JobOptions& job, std::string_view n, RenderedOptions& out) {
  if (job.bs == DefaultJob().bs || !AllFixed(job.bs)) return;
  const uint32_t kb = job.kb_base;
  out.push_back({std::string(n), RenderPerDir(job.bs, [kb](const BlockSizeRange& r) {
                   return FormatSize(r.min, kb);
                 })});
}

Expected<void> ApplyBsRange(JobOptions& job, std::optional<std::string_view> v) {
  const uint32_t kb = job.kb_base;
  return ApplyPerDir(*v, job.bs, [kb](std::string_view part) -> Expected<BlockSizeRange> {
    const auto range = SplitRange(part);
    if (!range) return FioValueError("expected a range such as 4k-64k, got " + QuoteInput(part));
    Expected<uint64_t> lo = FioParseSize(range->first, kb, 1);
    if (!lo.ok()) return lo.error();
    Expected<uint64_t> hi = FioParseSize(range->second, kb, 1);
    if (!hi.ok()) return hi.error();
    // fio swaps a reversed range.
    return BlockSizeRange{std::min(lo.value(), hi.value()), std::max(lo.value(), hi.value())};
  });
}

void RenderBsRange(const JobOptions& job, std::string_view n, RenderedOptions& out) {
  if (AllFixed(job.bs)) return;
  const uint32_t kb = job.kb_base;
  out.push_back({std::string(n), RenderPerDir(job.bs, [kb](const BlockSizeRange& r) {
                   return FormatSize(r.min, kb) + "-" + FormatSize(r.max, kb);
                 })});
}

// One direction of bssplit: "4k/60:64k/40".  A missing or zero percentage is
// filled in as fio does: the remainder split evenly among such entries.
Expected<std::vector<BsSplitEntry>> ParseBsSplit(std::string_view text, uint32_t kb) {
  std::vector<std::string_view> items = SplitTopLevel(text, ':');
  if (items.size() > 1 && Trim(items.back()).empty()) items.pop_back();  // "4k/50:8k/50:"
  if (items.size() > kMaxBsSplit) {
    return FioValueError("at most " + std::to_string(kMaxBsSplit) + " block sizes per direction, got " +
                         std::to_string(items.size()));
  }
  std::vector<BsSplitEntry> out;
  std::vector<bool> missing;
  uint64_t total = 0;
  for (std::string_view item : items) {
    item = Trim(item);
    if (item.empty()) return FioValueError("empty entry in " + QuoteInput(text));
    const size_t slash = item.find('/');
    Expected<uint64_t> bs = FioParseSize(Trim(item.substr(0, slash)), kb, 1);
    if (!bs.ok()) return bs.error();
    uint64_t percent = 0;
    if (slash != std::string_view::npos && !Trim(item.substr(slash + 1)).empty()) {
      Expected<uint64_t> p = ParseInteger(Trim(item.substr(slash + 1)), 1024, 0, 100);
      if (!p.ok()) return FioValueError("percentage of " + QuoteInput(item) + ": " + p.error().message);
      percent = p.value();
    }
    total += percent;
    missing.push_back(percent == 0);
    out.push_back(BsSplitEntry{bs.value(), static_cast<uint32_t>(percent)});
  }
  if (total > 100) {
    return FioValueError("percentages add up to " + std::to_string(total) + ", more than 100, in " +
                         QuoteInput(text));
  }
  const auto nmissing = static_cast<uint64_t>(std::count(missing.begin(), missing.end(), true));
  for (size_t i = 0; i < out.size(); ++i) {
    if (missing[i]) out[i].percent = static_cast<uint32_t>((100 - total) / nmissing);
  }
  return out;
}

std::string FormatBsSplit(const std::vector<BsSplitEntry>& list, uint32_t kb) {
  std::string out;
  for (const BsSplitEntry& e : list) {
    if (!out.empty()) out += ':';
    out += FormatSize(e.block_size, kb) + "/" + std::to_string(e.percent);
  }
  return out;
}

Expected<void> ApplyBsSplit(JobOptions& job, std::optional<std::string_view> v) {
  const uint32_t kb = job.kb_base;
  return ApplyPerDir(*v, job.bssplit,
                     [kb](std::string_view part) { return ParseBsSplit(part, kb); });
}

void RenderBsSplit(const JobOptions& job, std::string_view n, RenderedOptions& out) {
  if (job.bssplit == DefaultJob().bssplit) return;
  const uint32_t kb = job.kb_base;
  out.push_back({std::string(n), RenderPerDir(job.bssplit, [kb](const auto& list) {
                   return FormatBsSplit(list, kb);
                 })});
}

Expected<void> ApplyBlockAlign(JobOptions& job, std::optional<std::string_view> v) {
  const uint32_t kb = job.kb_base;
  return ApplyPerDir(*v, job.blockalign,
                     [kb](std::string_view part) -> Expected<std::optional<uint64_t>> {
                       Expected<uint64_t> n = FioParseSize(part, kb, 1);
                       if (!n.ok()) return n.error();
                       return std::optional<uint64_t>(n.value());
                     });
}

void RenderBlockAlign(const JobOptions& job, std::string_view n, RenderedOptions& out) {
  if (job.blockalign == DefaultJob().blockalign) return;
  const uint32_t kb = job.kb_base;
  out.push_back({std::string(n), RenderPerDir(job.blockalign, [kb](const std::optional<uint64_t>& a) {
                   return a ? FormatSize(*a, kb) : std::string();
                 })});
}

// ---- offset and sizes ------------------------------------------------------

std::string FormatSizeSpec(const SizeSpec& s, uint32_t kb) {
  return s.percent ? std::to_string(s.value) + "%" : FormatSize(s.value, kb);
}

// size= and io_size=: 0 means "not set" in fio.
template <std::optional<SizeSpec> JobOptions::*F, uint64_t PercentMax>
FioOptionSpec OptionalSize(std::string_view name, std::vector<std::string_view> aliases,
                           std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.aliases = std::move(aliases);
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<SizeSpec> size = ParseSizeOrPercent(*v, job.kb_base, 1, PercentMax);
    if (!size.ok()) return size.error();
    job.*F = size.value().value == 0 ? std::nullopt : std::optional<SizeSpec>(size.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F) out.push_back({std::string(n), FormatSizeSpec(*(job.*F), job.kb_base)});
  };
  s.help = help;
  return s;
}

FioOptionSpec Offset() {
  FioOptionSpec s;
  s.name = "offset";
  s.aliases = {"fileoffset"};
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<SizeSpec> off = ParseSizeOrPercent(*v, job.kb_base, 0, 100);
    if (!off.ok()) return off.error();
    job.offset = off.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.offset != DefaultJob().offset) out.push_back({std::string(n), FormatSizeSpec(job.offset, job.kb_base)});
  };
  s.help = "start offset: bytes or a percentage of the target";
  return s;
}

FioOptionSpec OffsetIncrement() {
  FioOptionSpec s;
  s.name = "offset_increment";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (v->find('%') != std::string_view::npos)
      return FioValueError("a percentage is not supported (give bytes), got " + QuoteInput(*v));
    Expected<uint64_t> n = FioParseSize(*v, job.kb_base);
    if (!n.ok()) return n.error();
    job.offset_increment = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.offset_increment) out.push_back({std::string(n), std::to_string(job.offset_increment)});
  };
  s.help = "clone N (numjobs) starts at offset + N * this many bytes";
  return s;
}

// offset_align=: where a percentage offset= is rounded up to.
FioOptionSpec OffsetAlign() {
  FioOptionSpec s;
  s.name = "offset_align";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = FioParseSize(*v, job.kb_base);
    if (!n.ok()) return n.error();
    job.offset_align = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.offset_align) out.push_back({std::string(n), std::to_string(job.offset_align)});
  };
  s.help = "a percentage offset= is rounded up to a multiple of this (0, the default: of the "
           "smallest block size)";
  return s;
}

FioOptionSpec NumberIos() {
  FioOptionSpec s;
  s.name = "number_ios";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base);
    if (!n.ok()) return n.error();
    job.number_ios = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.number_ios != 0) out.push_back({std::string(n), std::to_string(job.number_ios)});
  };
  s.help = "stop after this many I/Os (0: no limit)";
  return s;
}

// ---- random distribution -------------------------------------------------------

Expected<std::vector<ZoneSplit>> ParseZones(std::string_view text, bool absolute, uint32_t kb) {
  std::vector<std::string_view> items = SplitTopLevel(text, ':');
  if (items.size() > kMaxZones) {
    return FioValueError("at most " + std::to_string(kMaxZones) + " zones per direction");
  }
  std::vector<ZoneSplit> zones;
  uint64_t access = 0;
  uint64_t sizes = 0;
  // As fio: a blank access or (zoned) size percentage gets an equal share of
  // what the others leave (zoned:50/5:30/15:20/ gives the last zone 80%).
  std::vector<size_t> blank_access, blank_size;
  for (std::string_view item : items) {
    item = Trim(item);
    const size_t slash = item.find('/');
    if (item.empty() || slash == std::string_view::npos) {
      return FioValueError(std::string("expected zones as access%/") +
                           (absolute ? "size" : "size%") + " separated by ':', got " +
                           QuoteInput(text));
    }
    const std::string_view a_text = Trim(item.substr(0, slash));
    const std::string_view s_text = Trim(item.substr(slash + 1));
    uint64_t a_value = 0, s_value = 0;
    if (a_text.empty()) {
      blank_access.push_back(zones.size());
    } else {
      Expected<uint64_t> a = ParseInteger(a_text, 1024, 0, 100);
      if (!a.ok()) return FioValueError("access percentage of zone " + QuoteInput(item) + ": " + a.error().message);
      a_value = a.value();
    }
    if (s_text.empty() && !absolute) {
      blank_size.push_back(zones.size());
    } else {
      Expected<uint64_t> size = absolute ? FioParseSize(s_text, kb, 1) : ParseInteger(s_text, 1024, 0, 100);
      if (!size.ok()) return FioValueError("size of zone " + QuoteInput(item) + ": " + size.error().message);
      s_value = size.value();
    }
    access += a_value;
    sizes += s_value;
    zones.push_back(ZoneSplit{static_cast<uint32_t>(a_value), s_value});
  }
  if (!blank_access.empty() && access <= 100) {
    const uint64_t share = (100 - access) / blank_access.size();
    for (size_t i : blank_access) zones[i].access_percent = uint32_t(share);
    access += share * blank_access.size();
    // Rounding leftovers go to the last blank zone.
    zones[blank_access.back()].access_percent += uint32_t(100 - access);
    access = 100;
  }
  if (!blank_size.empty() && sizes <= 100) {
    const uint64_t share = (100 - sizes) / blank_size.size();
    for (size_t i : blank_size) zones[i].size = share;
    sizes += share * blank_size.size();
    zones[blank_size.back()].size += 100 - sizes;
    sizes = 100;
  }
  if (access != 100) {
    return FioValueError("zone access percentages must add up to 100, got " +
                         std::to_string(access) + " in " + QuoteInput(text));
  }
  if (!absolute && sizes > 100) {
    return FioValueError("zone sizes add up to " + std::to_string(sizes) +
                         "%, more than 100%, in " + QuoteInput(text));
  }
  return zones;
}

std::string FormatZones(const std::vector<ZoneSplit>& zones, bool absolute, uint32_t kb) {
  std::string out;
  for (const ZoneSplit& z : zones) {
    if (!out.empty()) out += ':';
    out += std::to_string(z.access_percent) + "/" +
           (absolute ? FormatSize(z.size, kb) : std::to_string(z.size));
  }
  return out;
}

struct DistName {
  std::string_view name;
  Distribution kind;
  double default_parameter;
};
constexpr std::array<DistName, 6> kDistributions = {{{"random", Distribution::kRandom, 0.0},
                                                      {"zipf", Distribution::kZipf, 1.1},
                                                      {"pareto", Distribution::kPareto, 0.2},
                                                      {"normal", Distribution::kNormal, 0.0},
                                                      {"zoned", Distribution::kZoned, 0.0},
                                                      {"zoned_abs", Distribution::kZonedAbs, 0.0}}};

Expected<void> ApplyDistribution(JobOptions& job, std::optional<std::string_view> v) {
  const size_t colon = v->find(':');
  const std::string_view kind = Trim(v->substr(0, colon));
  const DistName* found = nullptr;
  for (const DistName& d : kDistributions) {
    if (d.name == kind) found = &d;
  }
  if (found == nullptr) {
    return FioValueError("unknown distribution " + QuoteInput(kind) +
                         " (expected random, zipf, pareto, normal, zoned or zoned_abs)");
  }
  RandomDistribution dist;
  dist.kind = found->kind;
  dist.parameter = found->default_parameter;
  const std::optional<std::string_view> params =
      colon == std::string_view::npos ? std::nullopt
                                      : std::optional<std::string_view>(Trim(v->substr(colon + 1)));
  switch (dist.kind) {
    case Distribution::kRandom:
      if (params) return FioValueError("'random' takes no parameters, got " + QuoteInput(*v));
      break;
    case Distribution::kZoned:
    case Distribution::kZonedAbs: {
      if (!params || params->empty()) {
        return FioValueError("'" + std::string(kind) + "' needs zones, e.g. " + std::string(kind) +
                             ":60/10:40/90");
      }
      const bool absolute = dist.kind == Distribution::kZonedAbs;
      const uint32_t kb = job.kb_base;
      Expected<void> r = ApplyPerDir(*params, dist.zones, [absolute, kb](std::string_view part) {
        return ParseZones(part, absolute, kb);
      });
      if (!r.ok()) return r;
      break;
    }
    default: {
      if (!params) break;
      const std::vector<std::string_view> nums = SplitTopLevel(*params, ':');
      if (nums.size() > 2) return FioValueError("expected " + std::string(kind) + ":value[:center], got " + QuoteInput(*v));
      Expected<double> value = dist.kind == Distribution::kPareto ? ParseDouble(Trim(nums[0]), 0, 1, true)
                               : dist.kind == Distribution::kNormal ? ParseDouble(Trim(nums[0]), 0, 100)
                                                                    : ParseDouble(Trim(nums[0]), 0, 1e9);
      if (!value.ok()) return value.error();
      if (dist.kind == Distribution::kPareto && value.value() >= 1) {
        return FioValueError("expected a pareto power in (0, 1), got " + QuoteInput(nums[0]));
      }
      if (dist.kind == Distribution::kNormal && value.value() >= 100) {
        return FioValueError("expected a normal deviation in [0, 100), got " + QuoteInput(nums[0]));
      }
      if (dist.kind == Distribution::kZipf && value.value() == 1.0) {
        return FioValueError("zipf theta must not be 1.0");
      }
      dist.parameter = value.value();
      if (nums.size() == 2) {
        Expected<double> center = ParseDouble(Trim(nums[1]), 0, 1);
        if (!center.ok()) return FioValueError("center: " + center.error().message);
        dist.center = center.value();
      }
      break;
    }
  }
  job.random_distribution = std::move(dist);
  return {};
}

void RenderDistribution(const JobOptions& job, std::string_view n, RenderedOptions& out) {
  const RandomDistribution& d = job.random_distribution;
  if (d == DefaultJob().random_distribution) return;
  std::string value(Name(d.kind));
  if (d.kind == Distribution::kZoned || d.kind == Distribution::kZonedAbs) {
    const bool absolute = d.kind == Distribution::kZonedAbs;
    const uint32_t kb = job.kb_base;
    value += ":" + RenderPerDir(d.zones, [absolute, kb](const std::vector<ZoneSplit>& z) {
               return FormatZones(z, absolute, kb);
             });
  } else if (d.kind != Distribution::kRandom) {
    value += ":" + FormatDouble(d.parameter);
    if (d.center) value += ":" + FormatDouble(*d.center);
  }
  out.push_back({std::string(n), value});
}

FioOptionSpec RandSeed() {
  FioOptionSpec s;
  s.name = "randseed";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base);
    if (!n.ok()) return n.error();
    job.randseed = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.randseed) out.push_back({std::string(n), std::to_string(*job.randseed)});
  };
  s.help = "seed of the random generators";
  return s;
}

// ---- rw_sequencer and strided zones -------------------------------------------

constexpr FioChoice<JobOptions::RwSequencer> kRwSequencerChoices[] = {
    {"sequential", JobOptions::RwSequencer::kSequential},
    {"identical", JobOptions::RwSequencer::kIdentical}};

FioOptionSpec RwSequencer() {
  return ChoiceOption<&JobOptions::rw_sequencer, kRwSequencerChoices>(
      "rw_sequencer", "with rw=randread:N, the I/Os between random offsets: sequential (default) or identical (the same offset again)");
}

FioOptionSpec ZoneMode() {
  FioOptionSpec s;
  s.name = "zonemode";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (*v == "none") job.zonemode_strided = false;
    else if (*v == "strided") job.zonemode_strided = true;
    else if (*v == "zbd")
      return FioValueError("zonemode=zbd is not supported: block-bench has no zoned block device "
                           "support (zonemode=none and strided are)");
    else return FioValueError("expected none, strided or zbd, got " + QuoteInput(*v));
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.zonemode_strided) out.push_back({std::string(n), "strided"});
  };
  s.help = "none (default) or strided: I/O in zones of zonerange bytes, zonesize bytes each, zoneskip apart";
  return s;
}

template <uint64_t JobOptions::*F>
FioOptionSpec ZoneBytes(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = FioParseSize(*v, job.kb_base);
    if (!n.ok()) return n.error();
    job.*F = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F != DefaultJob().*F) out.push_back({std::string(n), FormatSize(job.*F, job.kb_base)});
  };
  s.help = help;
  return s;
}

FioOptionSpec Make(std::string_view name, std::vector<std::string_view> aliases,
                   OptionApplyFn apply, OptionRenderFn render, std::string_view help,
                   bool numeric = false) {
  FioOptionSpec s;
  s.name = name;
  s.aliases = std::move(aliases);
  s.apply = apply;
  s.render = render;
  s.help = help;
  s.numeric = numeric;
  return s;
}

}  // namespace

namespace {

// fio's random_generator: tausworthe (its default), tausworthe64 or lfsr.
// block-bench draws from fio's own generator for each (fio's sequence:
// run/fio_rand.h, run/fio_lfsr.h).
FioOptionSpec RandomGenerator() {
  FioOptionSpec s;
  s.name = "random_generator";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    job.lfsr = *v == "lfsr";
    job.tausworthe64 = *v == "tausworthe64";
    if (*v != "tausworthe" && *v != "tausworthe64" && *v != "lfsr")
      return internal::FioValueError("expected tausworthe, tausworthe64 or lfsr, got " + QuoteInput(*v));
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.lfsr) out.push_back({std::string(n), "lfsr"});
    if (job.tausworthe64) out.push_back({std::string(n), "tausworthe64"});
  };
  s.help =
      "tausworthe (default), tausworthe64 or lfsr: fio's own generators and seeds, so offsets "
      "and lengths are fio's (lfsr: every block once per pass without a map)";
  return s;
}

// ---- written data (run/buffer_fill.h) --------------------------------------

}  // namespace

namespace internal {

Expected<std::vector<PatternPiece>> ParsePatternPieces(std::string_view option, std::string_view v,
                                                       bool formats) {
  std::vector<PatternPiece> out;
  size_t i = 0;
  auto bad = [&](const std::string& why) {
    return FioValueError(std::string(option) + " " + QuoteInput(v) + ": " + why +
                         " at character " + std::to_string(i + 1));
  };
  // fio reads "0x" inside a run of digits as the start of a hex piece:
  // "-100xab" is -10 then 0xab, "0xff0x14" is 0xff then 0x14.
  auto hex_start = [&](size_t j) {
    return j + 1 < v.size() && v[j] == '0' && (v[j + 1] == 'x' || v[j + 1] == 'X');
  };
  while (i < v.size()) {
    const char c = v[i];
    if (c == ' ' || c == '\t') {
      i++;
    } else if (c == '"' || c == '\'') {
      const size_t end = v.find(c, i + 1);
      if (end == std::string_view::npos) return bad(std::string("no closing ") + c);
      if (end == i + 1) return bad("an empty " + std::string(c == '"' ? "string" : "file name"));
      out.push_back(PatternPiece{c == '\'', std::string(v.substr(i + 1, end - i - 1))});
      i = end + 1;
    } else if (c == '%') {
      if (!formats) return bad("formats (%o) are only for verify_pattern");
      if (i + 1 >= v.size() || v[i + 1] != 'o') return bad("unknown format (the only one is %o, the block's offset)");
      out.push_back(PatternPiece{false, std::string(8, '\0'), true});
      i += 2;
    } else if (hex_start(i)) {
      size_t j = i + 2;
      while (j < v.size() && std::isxdigit(static_cast<unsigned char>(v[j]))) j++;
      if (j < v.size() && (v[j] == 'x' || v[j] == 'X') && j - 1 > i + 2 && v[j - 1] == '0') j--;
      std::string hex(v.substr(i + 2, j - i - 2));
      if (hex.empty()) return bad("0x without hex digits");
      if (hex.size() % 2) hex.insert(hex.begin(), '0');
      std::string bytes;
      for (size_t k = 0; k < hex.size(); k += 2)
        bytes.push_back(char(std::stoi(hex.substr(k, 2), nullptr, 16)));
      out.push_back(PatternPiece{false, bytes});
      i = j;
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i + (c == '-' ? 1 : 0);
      const size_t digits = j;
      while (j < v.size() && std::isdigit(static_cast<unsigned char>(v[j])) && !hex_start(j)) j++;
      if (j == digits) return bad("'-' without digits");
      errno = 0;
      const long long n = std::strtoll(std::string(v.substr(i, j - i)).c_str(), nullptr, 10);
      if (errno == ERANGE || n < INT32_MIN || n > INT32_MAX)
        return bad("a decimal number outside [-2147483648, 2147483647] (give larger ones in hex)");
      // fio: the number as a 32-bit value, little-endian, in as few bytes
      // as hold it (0: one byte).
      uint32_t u = uint32_t(int32_t(n));
      std::string bytes;
      do {
        bytes.push_back(char(u & 0xff));
        u >>= 8;
      } while (u);
      out.push_back(PatternPiece{false, bytes});
      i = j;
    } else {
      return bad(std::string("unexpected '") + c + "' (expected 0xHEX, \"string\", 'file'" +
                 (formats ? ", %o" : "") + " or a number)");
    }
  }
  if (out.empty()) return FioValueError(std::string(option) + ": empty pattern");
  return out;
}

}  // namespace internal

namespace {

std::vector<FioOptionSpec> BufferOptions() {
  std::vector<FioOptionSpec> v;
  v.push_back(internal::FlagOption<&JobOptions::refill_buffers>(
      "refill_buffers", "new contents for every write (not only when the buffer is set up)"));
  v.push_back(internal::BoolOption<&JobOptions::scramble_buffers>(
      "scramble_buffers", "stamp offset and time into each 512-byte block of every write (default 1)"));
  v.push_back(Make(
      "buffer_compress_percentage", {},
      [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
        Expected<uint64_t> n = ParseInteger(*v, job.kb_base, 0, 100);
        if (!n.ok()) return n.error();
        job.buffer_compress_percentage = uint32_t(n.value());
        return {};
      },
      [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
        if (job.buffer_compress_percentage)
          out.push_back({std::string(n), std::to_string(*job.buffer_compress_percentage)});
      },
      "written blocks compress to about (100 - N)% (random data, then zeros or buffer_pattern)",
      true));
  v.push_back(Make(
      "buffer_compress_chunk", {},
      [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
        Expected<uint64_t> n = FioParseSize(*v, job.kb_base, 0);
        if (!n.ok()) return n.error();
        if (n.value() > UINT32_MAX) return internal::FioValueError("buffer_compress_chunk: at most 4 GiB");
        job.buffer_compress_chunk = uint32_t(n.value());
        return {};
      },
      [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
        if (job.buffer_compress_chunk != DefaultJob().buffer_compress_chunk)
          out.push_back({std::string(n), FormatSize(job.buffer_compress_chunk, job.kb_base)});
      },
      "size of the random/fixed regions of buffer_compress_percentage (0: the block; default 512)",
      true));
  v.push_back(Make(
      "buffer_pattern", {},
      [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
        auto p = internal::ParsePatternPieces("buffer_pattern", *v, /*formats=*/false);
        if (!p.ok()) return p.error();
        job.buffer_pattern = std::move(*p);
        job.buffer_pattern_text = std::string(*v);
        return {};
      },
      [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
        if (!job.buffer_pattern.empty()) out.push_back({std::string(n), job.buffer_pattern_text});
      },
      "written data: a pattern of 0xHEX, \"string\", 'file' and numbers, repeated"));
  v.push_back(internal::UintOption<&JobOptions::dedupe_percentage, 0, 100>(
      "dedupe_percentage", "percent of writes that repeat the last unique write's contents"));
  v.push_back(Make(
      "dedupe_mode", {},
      [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
        if (*v == "repeat" || *v == "working_set") {
          job.dedupe_working_set = *v == "working_set";
          job.dedupe_mode_repeat = !job.dedupe_working_set;
          return {};
        }
        return internal::FioValueError("expected repeat or working_set, got " + QuoteInput(*v));
      },
      [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
        if (job.dedupe_working_set) out.push_back({std::string(n), "working_set"});
        else if (job.dedupe_mode_repeat) out.push_back({std::string(n), "repeat"});
      },
      "repeat (the default): a dedupe write repeats the last unique one; working_set: one "
      "of the first unique writes (dedupe_working_set_percentage of size), at random"));
  v.push_back(internal::UintOption<&JobOptions::dedupe_working_set_percentage, 0, 100>(
      "dedupe_working_set_percentage",
      "dedupe_mode=working_set: the working set's share of size, percent (default 5)"));
  v.push_back(internal::BoolOption<&JobOptions::dedupe_global>(
      "dedupe_global", "1: the working set of dedupe_mode=working_set is shared by the "
                       "jobs with dedupe_global=1, spread evenly over every job of the run"));
  return v;
}

}  // namespace

std::vector<FioOptionSpec> PatternOptions() {
  using namespace internal;
  std::vector<FioOptionSpec> v;
  v.push_back(Make("rw", {"readwrite"}, ApplyRw, RenderRw,
                   "I/O pattern: read, write, trim, randread, randwrite, randtrim, rw, randrw, trimwrite, randtrimwrite; "
                   "':N' suffix: offset modifier"));
  v.push_back(RwSequencer());
  v.push_back(UintOption<&JobOptions::rwmixread, 0, 100>("rwmixread", "percentage of reads in mixed workloads"));
  v.push_back(Make(
      "rwmixwrite", {},
      [](JobOptions& job, std::optional<std::string_view> value) -> Expected<void> {
        Expected<uint64_t> n = ParseInteger(*value, job.kb_base, 0, 100);
        if (!n.ok()) return n.error();
        job.rwmixread = static_cast<uint32_t>(100 - n.value());
        return {};
      },
      nullptr, "percentage of writes in mixed workloads", true));
  v.push_back(Make("bs", {"blocksize"}, ApplyBs, RenderBs, "block size [read,write,trim]"));
  v.push_back(Make("bsrange", {"blocksize_range"}, ApplyBsRange, RenderBsRange,
                   "block size range lo-hi [read,write,trim]"));
  v.push_back(Make("bssplit", {}, ApplyBsSplit, RenderBsSplit,
                   "weighted block sizes bs/percent:... [read,write,trim]"));
  v.push_back(Make("blockalign", {"ba"}, ApplyBlockAlign, RenderBlockAlign,
                   "alignment of random offsets [read,write,trim]"));
  v.push_back(Offset());
  v.push_back(OffsetIncrement());
  v.push_back(OffsetAlign());
  v.push_back(ZoneMode());
  v.push_back(ZoneBytes<&JobOptions::zonesize>(
      "zonesize", "zonemode=strided: bytes of I/O in a zone before the next one"));
  v.push_back(ZoneBytes<&JobOptions::zonerange>(
      "zonerange", "zonemode=strided: size of a zone (random offsets within it; default zonesize)"));
  v.push_back(ZoneBytes<&JobOptions::zoneskip>(
      "zoneskip", "zonemode=strided: bytes between a zone's end and the next zone's start"));
  v.push_back(OptionalSize<&JobOptions::size, 100>("size", {}, "bytes (or % of the target) to do I/O in"));
  v.push_back(OptionalSize<&JobOptions::io_size, kNoMax>("io_size", {"io_limit"},
                                                          "bytes (or % of size) of I/O to do"));
  v.push_back(NumberIos());
  v.push_back(Make("random_distribution", {}, ApplyDistribution, RenderDistribution,
                   "random, zipf:theta, pareto:h, normal:dev[:center], zoned:..., zoned_abs:..."));
  {
    FioOptionSpec u = FlagOption<&JobOptions::bs_unaligned>(
        "bs_unaligned", "lengths drawn in bsrange= are any byte count, not only multiples of "
                        "the smallest size");
    u.aliases = {"blocksize_unaligned"};
    v.push_back(std::move(u));
  }  v.push_back(BoolOption<&JobOptions::bs_is_seq_rand>(
      "bs_is_seq_rand", "1: the read block size (bs=, bsrange=, bssplit=) is used for sequential "
                        "I/O and the write one for random I/O, whatever the direction"));

  v.push_back(BoolOption<&JobOptions::randrepeat>("randrepeat", "1: repeatable random pattern"));
  v.push_back(BoolOption<&JobOptions::allrandrepeat>(
      "allrandrepeat", "1: every random generator (offsets, sizes, directions, buffer contents) "
                       "seeded predictably, also with randrepeat=0"));
  v.push_back(RandSeed());
  v.push_back(FlagOption<&JobOptions::norandommap>("norandommap", "random offsets without coverage map"));
  v.push_back(BoolOption<&JobOptions::softrandommap>(
      "softrandommap", "go on without the random map if it cannot be allocated: block-bench "
                       "allocates it (one bit per block) with the job, before any I/O, so a job "
                       "that cannot have it fails to start either way"));
  {
    FioOptionSpec s;
    s.name = "percentage_random";
    s.numeric = true;
    s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
      return ApplyPerDir(*v, job.percentage_random, [](std::string_view part) -> Expected<uint32_t> {
        Expected<uint64_t> n = ParseInteger(part, 1024, 0, 100);
        if (!n.ok()) return n.error();
        return uint32_t(n.value());
      });
    };
    s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
      if (job.percentage_random == DefaultJob().percentage_random) return;
      out.push_back({std::string(n), RenderPerDir(job.percentage_random,
                                                  [](uint32_t p) { return std::to_string(p); })});
    };
    s.help = "random modes: percent of I/Os at a random offset, the rest sequential [read,write,trim]";
    v.push_back(std::move(s));
  }
  v.push_back(FlagOption<&JobOptions::zero_buffers>("zero_buffers", "write zeros instead of random bytes"));
  v.push_back(internal::UintOption<&JobOptions::loops, 1>("loops", "run the job's I/O this many times over"));
  v.push_back(RandomGenerator());
  for (FioOptionSpec& o : BufferOptions()) v.push_back(std::move(o));
  return v;
}

}  // namespace blk::bench
