// Building blocks shared by the options_*.cc files: FioOptionSpec factories
// for the common shapes (a 0/1 boolean, a bare flag, a bounded integer, a
// string, a time) bound to a JobOptions field through a member pointer, plus
// helpers for rendering per-direction values.  Internal to the jobfile
// library.
//
// Thread-safety: pure functions.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/jobfile/option_table.h"
#include "tools/block_bench/jobfile/units.h"
#include "tools/block_bench/jobfile/values.h"
#include <blkstack/util/quote.h>
#include <blkstack/util/result.h>

namespace blk::bench::internal {

// An -EINVAL Error whose message is `msg` alone: the detail an OptionApplyFn
// returns (the caller adds location and option name).
inline Error FioValueError(std::string msg) { return MakeError(-EINVAL, std::move(msg)); }

// Boolean written as 0/1 (fio's FIO_OPT_BOOL); a value is required.
template <bool JobOptions::*F>
FioOptionSpec BoolOption(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = FioParseBool(*v);
    if (!b.ok()) return b.error();
    job.*F = b.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F != DefaultJob().*F) out.push_back({std::string(n), job.*F ? "1" : "0"});
  };
  s.help = help;
  return s;
}

// Flag that may be written bare (fio's FIO_OPT_STR_SET), e.g. "time_based".
template <bool JobOptions::*F>
FioOptionSpec FlagOption(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.value_required = false;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = ParseFlag(v);
    if (!b.ok()) return b.error();
    job.*F = b.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F == DefaultJob().*F) return;
    if (job.*F) {
      out.push_back({std::string(n), std::nullopt});
    } else {
      out.push_back({std::string(n), "0"});
    }
  };
  s.help = help;
  return s;
}

// Unsigned 32-bit integer in [Min, Max].
template <uint32_t JobOptions::*F, uint64_t Min, uint64_t Max = UINT32_MAX>
FioOptionSpec UintOption(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, Min, Max);
    if (!n.ok()) return n.error();
    job.*F = static_cast<uint32_t>(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F != DefaultJob().*F) out.push_back({std::string(n), std::to_string(job.*F)});
  };
  s.help = help;
  return s;
}

// Unsigned 32-bit integer in [Min, UINT32_MAX] where 0 means "unset" (fio
// derives the value from another option).
template <std::optional<uint32_t> JobOptions::*F, uint32_t Min = 0>
FioOptionSpec OptionalUintOption(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, Min, UINT32_MAX);
    if (!n.ok()) return n.error();
    job.*F = n.value() == 0 ? std::nullopt : std::optional<uint32_t>(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F) out.push_back({std::string(n), std::to_string(*(job.*F))});
  };
  s.help = help;
  return s;
}

// A ':'-separated list of names ("\:" escapes a colon), e.g. filename=.
template <std::vector<std::string> JobOptions::*F>
FioOptionSpec NameList(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<std::vector<std::string>> list = SplitEscapedList(*v);
    if (!list.ok()) return list.error();
    job.*F = std::move(list.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F != DefaultJob().*F) out.push_back({std::string(n), JoinEscapedList(job.*F)});
  };
  s.help = help;
  return s;
}

// Non-empty free-form string.
template <std::string JobOptions::*F>
FioOptionSpec StringOption(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (v->empty()) return FioValueError("expected a non-empty value");
    job.*F = std::string(*v);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F != DefaultJob().*F) out.push_back({std::string(n), job.*F});
  };
  s.help = help;
  return s;
}

// A duration; a bare number is in `DefaultUnitUs` microseconds.
template <std::chrono::microseconds JobOptions::*F, uint64_t DefaultUnitUs>
FioOptionSpec TimeOption(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<std::chrono::microseconds> t = ParseTime(*v, DefaultUnitUs);
    if (!t.ok()) return t.error();
    job.*F = t.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F != DefaultJob().*F) out.push_back({std::string(n), FormatTime(job.*F)});
  };
  s.help = help;
  return s;
}

// One accepted value of a choice option: its text, the field's value, and an
// optional note the error message prints after it ("0 (auto)").
template <class T>
struct FioChoice {
  std::string_view name;
  T value;
  std::string_view note = {};
};

// "a, b (note) or c": the accepted values, in table order.
template <class T, size_t N>
std::string ChoiceList(const FioChoice<T> (&choices)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? " or " : ", ";
    out += choices[i].name;
    if (!choices[i].note.empty()) out += " (" + std::string(choices[i].note) + ")";
  }
  return out;
}

// An option whose value is one of a fixed set of words (fio's FIO_OPT_STR
// with posval[]), stored in field F.  `Choices` is a FioChoice array with
// static storage; several names may map to one value (aliases such as "0"),
// and a value renders as the first name listed for it.
template <auto F, const auto& Choices>
FioOptionSpec ChoiceOption(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    for (const auto& c : Choices) {
      if (c.name == *v) {
        job.*F = c.value;
        return {};
      }
    }
    return FioValueError("expected " + ChoiceList(Choices) + ", got " + QuoteInput(*v));
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F == DefaultJob().*F) return;
    for (const auto& c : Choices) {
      if (c.value == job.*F) {
        out.push_back({std::string(n), std::string(c.name)});
        return;
      }
    }
  };
  s.help = help;
  return s;
}

// fio's pattern syntax (buffer_pattern=, verify_pattern=): pieces in any
// order, without separators: 0xHEX (the bytes as written), "string",
// 'file' (read when the job starts), decimal integers in [INT_MIN,
// INT_MAX] (their 32-bit value little-endian, in as few bytes as hold it),
// and with `formats` %o (the block's offset, 8 bytes).  Errors start with
// `option`.
Expected<std::vector<PatternPiece>> ParsePatternPieces(std::string_view option, std::string_view v,
                                                       bool formats);

// Renders a per-direction value: one element when all directions agree, two
// when write and trim agree, otherwise three.  `format` returns "" for a
// direction that should be left at its default.
template <class T, class Format>
std::string RenderPerDir(const PerDir<T>& v, Format format) {
  if (v[0] == v[1] && v[1] == v[2]) return format(v[0]);
  if (v[1] == v[2] && !format(v[1]).empty()) return format(v[0]) + "," + format(v[1]);
  return format(v[0]) + "," + format(v[1]) + "," + format(v[2]);
}

// Applies `parse` to each direction SplitPerDirection sets.  `parse` returns
// Expected<T>.
template <class T, class Parse>
Expected<void> ApplyPerDir(std::string_view text, PerDir<T>& field, Parse parse) {
  Expected<PerDir<std::optional<std::string>>> parts = SplitPerDirection(text);
  if (!parts.ok()) return parts.error();
  PerDir<T> result = field;
  for (int d = 0; d < kNumDirs; ++d) {
    if (!parts.value()[d]) continue;
    auto v = parse(*parts.value()[d]);
    if (!v.ok()) return v.error();
    result[d] = std::move(v.value());
  }
  field = std::move(result);
  return {};
}

}  // namespace blk::bench::internal
