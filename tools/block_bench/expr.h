// fio's arithmetic in option values: "Anywhere a numeric value is required,
// an arithmetic expression may be used, provided it is surrounded by
// parentheses", e.g. bs=(4k*2) or runtime=(1m+30s).
//
// Operators, loosest first: + -, then * / %, then ^ (right-associative),
// then unary + -.  Operands are decimal numbers (with an optional fraction)
// or 0x hex integers, optionally followed by a unit suffix that the caller
// resolves (a size or time unit, see units.h), and parenthesised
// sub-expressions.
//
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "util/result.h"

namespace blk::bench {

// Returns the multiplier for a unit suffix written right after a number
// (the suffix is a run of letters; never empty), or nullopt if it is not a
// unit.
using SuffixResolver = std::function<std::optional<double>(std::string_view suffix)>;

// Evaluates `text`, which must be one complete expression (normally starting
// with '(').  Errors (bad syntax, unknown unit, division by zero, non-finite
// result) carry a message naming the problem, without location.
Expected<double> EvaluateArithmetic(std::string_view text, const SuffixResolver& suffix);

}  // namespace blk::bench
