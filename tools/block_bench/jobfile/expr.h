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
// Nesting is bounded: parentheses, unary signs and the operands of a '^'
// chain each open a level, and an expression nested more than
// kMaxExpressionDepth levels is an error (fio users never need more; the
// bound keeps the recursive evaluator's stack small whatever the input).
//
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include <blkstack/util/result.h>

namespace blk::bench {

inline constexpr int kMaxExpressionDepth = 64;

// Returns the multiplier for a unit suffix written right after a number
// (the suffix is a run of letters; never empty), or nullopt if it is not a
// unit.
using SuffixResolver = std::function<std::optional<double>(std::string_view suffix)>;

// Evaluates `text`, which must be one complete expression (normally starting
// with '(').  Errors (bad syntax, unknown unit, division by zero, non-finite
// result, nesting deeper than kMaxExpressionDepth) carry a message naming
// the problem, without location: "invalid expression '(1/0)': division by
// zero" (the text quoted with QuoteInput, util/quote.h).
Expected<double> EvaluateArithmetic(std::string_view text, const SuffixResolver& suffix);

// As EvaluateArithmetic, but an Error's message is only the reason
// ("division by zero"), for callers that show the text themselves.
Expected<double> EvaluateArithmeticReason(std::string_view text, const SuffixResolver& suffix);

}  // namespace blk::bench
