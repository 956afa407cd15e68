// fio's parenthesised arithmetic.
#include "tools/block_bench/jobfile/expr.h"

#include <gtest/gtest.h>

namespace blk::bench {
namespace {

std::optional<double> Units(std::string_view s) {
  if (s == "k") return 1024.0;
  if (s == "ms") return 1000.0;
  return std::nullopt;
}

double Eval(std::string_view text) {
  auto v = EvaluateArithmetic(text, Units);
  EXPECT_TRUE(v.ok()) << text << ": " << (v.ok() ? "" : v.error().message);
  return v.ok() ? v.value() : -12345;
}

std::string EvalError(std::string_view text) {
  auto v = EvaluateArithmetic(text, Units);
  return v.ok() ? "<no error>" : v.error().message;
}

TEST(Arithmetic, OperatorsAndPrecedence) {
  EXPECT_EQ(Eval("(1+2*3)"), 7);
  EXPECT_EQ(Eval("((1+2)*3)"), 9);
  EXPECT_EQ(Eval("(10-4-3)"), 3);
  EXPECT_EQ(Eval("(12/4/3)"), 1);
  EXPECT_EQ(Eval("(10%4)"), 2);
  EXPECT_EQ(Eval("(2^10)"), 1024);
  EXPECT_EQ(Eval("(2^3^2)"), 512) << "^ is right-associative";
  EXPECT_EQ(Eval("(-3+5)"), 2);
  EXPECT_EQ(Eval("( 1 + 2 )"), 3);
  EXPECT_EQ(Eval("(0x10+1)"), 17);
  EXPECT_EQ(Eval("(1.5*2)"), 3);
}

TEST(Arithmetic, UnitsAreResolvedByTheCaller) {
  EXPECT_EQ(Eval("(4k*2)"), 8192);
  EXPECT_EQ(Eval("(2ms+5)"), 2005);
}

TEST(Arithmetic, ErrorsNameTheProblem) {
  EXPECT_NE(EvalError("(1+)").find("invalid expression '(1+)'"), std::string::npos);
  EXPECT_NE(EvalError("(1/0)").find("division by zero"), std::string::npos);
  EXPECT_NE(EvalError("(1%0)").find("modulus by zero"), std::string::npos);
  EXPECT_NE(EvalError("(4q)").find("unknown unit 'q'"), std::string::npos);
  EXPECT_NE(EvalError("(1+2").find("missing ')'"), std::string::npos);
  EXPECT_NE(EvalError("(1)2").find("unexpected '2'"), std::string::npos);
  EXPECT_NE(EvalError("(10^400)").find("finite"), std::string::npos);
}

std::string Nested(int levels, std::string_view open, std::string_view inner,
                   std::string_view close) {
  std::string s;
  for (int i = 0; i < levels; ++i) s += open;
  s += inner;
  for (int i = 0; i < levels; ++i) s += close;
  return s;
}

TEST(Arithmetic, NestingUpToTheLimitEvaluates) {
  EXPECT_EQ(Eval(Nested(kMaxExpressionDepth, "(", "7", ")")), 7);
  EXPECT_EQ(Eval("(" + Nested(kMaxExpressionDepth - 1, "-", "7", "") + ")"), -7);
  EXPECT_EQ(Eval("(" + Nested(kMaxExpressionDepth - 1, "1^", "1", "") + ")"), 1);
}

TEST(Arithmetic, NestingBeyondTheLimitIsAnErrorNamingIt) {
  const std::string limit = "nested more than " + std::to_string(kMaxExpressionDepth) + " levels";
  EXPECT_NE(EvalError(Nested(kMaxExpressionDepth + 1, "(", "7", ")")).find(limit),
            std::string::npos);
  // Deep enough to overflow the stack of a recursive parser without a limit.
  for (const std::string& deep :
       {Nested(30000, "(", "1", ")"), "(" + Nested(30000, "-", "1", "") + ")",
        "(" + Nested(30000, "2^", "1", "") + ")", "(" + Nested(30000, "-(", "1", ")") + ")",
        Nested(1 << 20, "(", "", "")}) {
    const std::string err = EvalError(deep);
    EXPECT_NE(err.find(limit), std::string::npos) << err.substr(0, 200);
    EXPECT_LT(err.size(), 300u) << "the message quotes the whole input";
  }
}

}  // namespace
}  // namespace blk::bench
