// Helpers for the tests of block/options.h, block/option_values.h and
// block/option_schema.h: checking an error's message, parsing a spec that
// must parse.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include <blkstack/block/options.h>
#include <blkstack/util/result.h>

namespace blk::testing {

// Checks that `e` failed and that its message contains every one of `parts`.
template <class T>
::testing::AssertionResult FailsWith(const Expected<T>& e, std::initializer_list<std::string> parts) {
  if (e.ok()) return ::testing::AssertionFailure() << "expected an error, got success";
  for (const auto& p : parts) {
    if (e.error().message.find(p) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << e.error().message << "\" lacks \"" << p << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

// Options::Parse(spec), which must succeed (a test failure otherwise, and
// empty Options).
inline Options MustParse(std::string_view spec) {
  auto o = Options::Parse(spec);
  EXPECT_TRUE(o.ok()) << spec << ": " << (o.ok() ? "" : o.error().message);
  return o.ok() ? o.value() : Options();
}

}  // namespace blk::testing
