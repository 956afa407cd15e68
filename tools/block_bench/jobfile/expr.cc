#include "tools/block_bench/jobfile/expr.h"

#include <cctype>
#include <cmath>
#include <string>

#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

// Recursive-descent evaluator over `text`; the first error wins.
class Evaluator {
 public:
  Evaluator(std::string_view text, const SuffixResolver& suffix) : text_(text), suffix_(suffix) {}

  // The value, or the reason it has none.
  Expected<double> Run() {
    double v = Sum();
    SkipSpace();
    if (error_.empty() && pos_ != text_.size()) Fail("unexpected " + QuoteInput(text_.substr(pos_, 1)));
    if (error_.empty() && !std::isfinite(v)) Fail("result is not a finite number");
    if (!error_.empty()) return MakeError(-EINVAL, error_);
    return v;
  }

 private:
  // Counts one level of nesting for its lifetime; past the limit it fails
  // the evaluation, and the callers unwind without descending further.
  class Level {
   public:
    explicit Level(Evaluator& e) : e_(e) {
      if (++e_.depth_ > kMaxExpressionDepth) {
        e_.Fail("nested more than " + std::to_string(kMaxExpressionDepth) + " levels deep");
      }
    }
    ~Level() { --e_.depth_; }
    bool ok() const { return e_.error_.empty(); }

   private:
    Evaluator& e_;
  };

  void Fail(std::string msg) {
    if (error_.empty()) error_ = std::move(msg);
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  double Sum() {
    double v = Product();
    while (error_.empty()) {
      if (Eat('+')) {
        v += Product();
      } else if (Eat('-')) {
        v -= Product();
      } else {
        break;
      }
    }
    return v;
  }

  double Product() {
    double v = Power();
    while (error_.empty()) {
      if (Eat('*')) {
        v *= Power();
      } else if (Eat('/')) {
        const double d = Power();
        if (d == 0) Fail("division by zero");
        v = error_.empty() ? v / d : 0;
      } else if (Eat('%')) {
        const double d = Power();
        if (d == 0) Fail("modulus by zero");
        v = error_.empty() ? std::fmod(v, d) : 0;
      } else {
        break;
      }
    }
    return v;
  }

  double Power() {
    const double base = Unary();
    if (error_.empty() && Eat('^')) {
      Level level(*this);
      return level.ok() ? std::pow(base, Power()) : 0;
    }
    return base;
  }

  double Unary() {
    if (Eat('-')) {
      Level level(*this);
      return level.ok() ? -Unary() : 0;
    }
    if (Eat('+')) {
      Level level(*this);
      return level.ok() ? Unary() : 0;
    }
    return Primary();
  }

  double Primary() {
    if (Eat('(')) {
      Level level(*this);
      if (!level.ok()) return 0;
      const double v = Sum();
      if (!Eat(')')) Fail("missing ')'");
      return v;
    }
    SkipSpace();
    const size_t start = pos_;
    double v = 0;
    if (text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X") {
      pos_ += 2;
      const size_t digits = pos_;
      while (pos_ < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_]))) {
        v = v * 16 + std::stoi(std::string(1, text_[pos_]), nullptr, 16);
        ++pos_;
      }
      if (pos_ == digits) Fail("bad hex number");
      return v;
    }
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      ++pos_;
    }
    if (pos_ == start) {
      Fail(pos_ < text_.size() ? "unexpected " + QuoteInput(text_.substr(pos_, 1))
                               : "unexpected end");
      return 0;
    }
    const std::string number(text_.substr(start, pos_ - start));
    size_t used = 0;
    try {
      v = std::stod(number, &used);
    } catch (...) {
      used = 0;
    }
    if (used != number.size()) {
      Fail("bad number " + QuoteInput(number));
      return 0;
    }
    const size_t unit_start = pos_;
    while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ > unit_start) {
      const std::string_view unit = text_.substr(unit_start, pos_ - unit_start);
      const std::optional<double> mult = suffix_(unit);
      if (!mult) {
        Fail("unknown unit " + QuoteInput(unit));
        return 0;
      }
      v *= *mult;
    }
    return v;
  }

  std::string_view text_;
  const SuffixResolver& suffix_;
  size_t pos_ = 0;
  int depth_ = 0;  // open nesting levels
  std::string error_;
};

}  // namespace

Expected<double> EvaluateArithmeticReason(std::string_view text, const SuffixResolver& suffix) {
  return Evaluator(text, suffix).Run();
}

Expected<double> EvaluateArithmetic(std::string_view text, const SuffixResolver& suffix) {
  Expected<double> v = EvaluateArithmeticReason(text, suffix);
  if (!v.ok()) {
    return MakeError(-EINVAL, "invalid expression " + QuoteInput(text) + ": " + v.error().message);
  }
  return v;
}

}  // namespace blk::bench
