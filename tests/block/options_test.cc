// Tests for block/options.h: spec parsing (key=value and JSON) and Options
// manipulation.
#include <blkstack/block/options.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include <blkstack/block/option_values.h>
#include "tests/block/option_test_util.h"
#include "tests/util/scaling.h"

namespace blk {
namespace {

using testing::FailsWith;
using testing::MustParse;
using Strings = std::vector<std::string>;

std::string ValueOf(const Options& o, std::string_view key) {
  const std::string* v = o.Get(key);
  return v ? *v : "<absent>";
}

// ---- key=value syntax -------------------------------------------------------

TEST(OptionsParse, KeyValueKeepsOrderAndValues) {
  Options o = MustParse("driver=throttle,file.driver=null,file.size=1G");
  EXPECT_EQ(o.Keys(), (Strings{"driver", "file.driver", "file.size"}));
  EXPECT_EQ(ValueOf(o, "driver"), "throttle");
  EXPECT_EQ(ValueOf(o, "file.driver"), "null");
  EXPECT_EQ(ValueOf(o, "file.size"), "1G");
  EXPECT_EQ(o.size(), 3u);
  EXPECT_FALSE(o.empty());
}

TEST(OptionsParse, EmptySpecGivesNoOptions) {
  Options o = MustParse("");
  EXPECT_TRUE(o.empty());
  EXPECT_EQ(o.size(), 0u);
}

TEST(OptionsParse, DoubledCommaIsLiteralComma) {
  Options o = MustParse("a=x,,y,b=2");
  EXPECT_EQ(ValueOf(o, "a"), "x,y");
  EXPECT_EQ(ValueOf(o, "b"), "2");

  o = MustParse("a=x,,,b=1");
  EXPECT_EQ(ValueOf(o, "a"), "x,");
  EXPECT_EQ(ValueOf(o, "b"), "1");

  o = MustParse("a=,,,,");
  EXPECT_EQ(ValueOf(o, "a"), ",,");
  EXPECT_EQ(o.size(), 1u);
}

TEST(OptionsParse, EmptyValuesAndEqualsInValues) {
  Options o = MustParse("a=,b=,c=x=y");
  EXPECT_EQ(o.Keys(), (Strings{"a", "b", "c"}));
  EXPECT_EQ(ValueOf(o, "a"), "");
  EXPECT_EQ(ValueOf(o, "b"), "");
  EXPECT_EQ(ValueOf(o, "c"), "x=y");
}

TEST(OptionsParse, MissingEqualsNamesPositionAndText) {
  auto o = Options::Parse("driver=null,foo");
  EXPECT_TRUE(FailsWith(o, {"spec: expected 'key=value' at position 12 near 'foo'"}));
  EXPECT_EQ(o.error().code, -EINVAL);

  EXPECT_TRUE(FailsWith(Options::Parse("foo"), {"position 0", "'foo'"}));
  EXPECT_TRUE(FailsWith(Options::Parse("a=1,bar,c=2"), {"position 4", "'bar'"}));
  EXPECT_TRUE(FailsWith(Options::Parse(",a=1"), {"expected 'key=value' at position 0"}));
  EXPECT_TRUE(FailsWith(Options::Parse("a=1,"), {"position 4", "trailing comma"}));
}

TEST(OptionsParse, InvalidKeysRejected) {
  for (const char* spec : {"a..b=1", ".a=1", "a.=1", "a b=1", "a:b=1", "=x"}) {
    auto o = Options::Parse(spec);
    EXPECT_TRUE(FailsWith(o, {"spec: invalid option name", "position 0"})) << spec;
  }
  EXPECT_TRUE(FailsWith(Options::Parse("ok=1,b@d=2"), {"'b@d'", "position 5"}));
}

TEST(OptionsParse, IsValidKey) {
  EXPECT_TRUE(Options::IsValidKey("driver"));
  EXPECT_TRUE(Options::IsValidKey("file.read-zeroes"));
  EXPECT_TRUE(Options::IsValidKey("x_y.0.Z"));
  EXPECT_FALSE(Options::IsValidKey(""));
  EXPECT_FALSE(Options::IsValidKey("a..b"));
  EXPECT_FALSE(Options::IsValidKey("a."));
  EXPECT_FALSE(Options::IsValidKey(".a"));
  EXPECT_FALSE(Options::IsValidKey("a,b"));
  EXPECT_FALSE(Options::IsValidKey("a=b"));
}

TEST(OptionsParse, DuplicateKeyIsError) {
  auto o = Options::Parse("size=1,driver=null,size=2");
  EXPECT_TRUE(FailsWith(o, {"spec: duplicate option 'size'", "position 19"}));
  EXPECT_TRUE(FailsWith(Options::Parse("file.size=1,file.size=1"), {"'file.size'"}));
}

TEST(OptionsParse, ValueAndGroupConflict) {
  EXPECT_TRUE(FailsWith(Options::Parse("file=x,file.driver=null"),
                        {"'file.driver'", "conflicts with 'file'"}));
  EXPECT_TRUE(FailsWith(Options::Parse("file.driver=null,file=x"),
                        {"option 'file'", "conflicts with 'file.driver'"}));
  EXPECT_TRUE(FailsWith(Options::Parse("a.b=1,a.b.c=2"), {"'a.b.c'", "'a.b'"}));
  // A shared prefix without a dot is not a conflict.
  Options o = MustParse("file=x,filex.driver=null");
  EXPECT_EQ(o.size(), 2u);
}

// ---- JSON syntax ------------------------------------------------------------

TEST(OptionsParseJson, NestedObjectsBecomeDottedKeysInOrder) {
  Options o = MustParse(
      R"({"driver": "throttle", "file": {"driver": "null", "size": "1G",
          "file": {"x": "y"}}, "z": "last"})");
  EXPECT_EQ(o.Keys(), (Strings{"driver", "file.driver", "file.size", "file.file.x", "z"}));
  EXPECT_EQ(ValueOf(o, "file.file.x"), "y");
  EXPECT_EQ(ValueOf(o, "file.size"), "1G");
}

TEST(OptionsParseJson, PrefixAndLeadingBlanks) {
  Options a = MustParse(R"(json:{"driver":"null","size":"1M"})");
  Options b = MustParse(" \n{\"driver\":\"null\",\"size\":\"1M\"}");
  EXPECT_EQ(a.Keys(), (Strings{"driver", "size"}));
  EXPECT_EQ(a, b);
  EXPECT_EQ(ValueOf(a, "size"), "1M");
  EXPECT_TRUE(MustParse("json:{}").empty());
}

TEST(OptionsParseJson, ScalarsConverted) {
  Options o = MustParse(
      R"({"i": 5, "n": -3, "f": 1.5, "e": 1e3, "z": 2.50, "one": 1.0, "small": 1.5e-1,
          "big": 18446744073709551615, "huge": 123456789012345678901234567890,
          "negz": -0.0, "t": true, "off": false, "s": "a,b"})");
  EXPECT_EQ(ValueOf(o, "i"), "5");
  EXPECT_EQ(ValueOf(o, "n"), "-3");
  EXPECT_EQ(ValueOf(o, "f"), "1.5");
  EXPECT_EQ(ValueOf(o, "e"), "1000");
  EXPECT_EQ(ValueOf(o, "z"), "2.5");
  EXPECT_EQ(ValueOf(o, "one"), "1");
  EXPECT_EQ(ValueOf(o, "small"), "0.15");
  EXPECT_EQ(ValueOf(o, "big"), "18446744073709551615");
  EXPECT_EQ(ValueOf(o, "huge"), "123456789012345678901234567890");
  EXPECT_EQ(ValueOf(o, "negz"), "0");
  EXPECT_EQ(ValueOf(o, "t"), "on");
  EXPECT_EQ(ValueOf(o, "off"), "off");
  EXPECT_EQ(ValueOf(o, "s"), "a,b");
}

TEST(OptionsParseJson, NumbersFeedTypedParsers) {
  Options o = MustParse(R"({"size": 1e9, "half": 0.5e1})");
  auto size = ParseSize(ValueOf(o, "size"));
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 1000000000u);
  auto half = ParseInt(ValueOf(o, "half"));
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(*half, 5);
}

TEST(OptionsParseJson, ArraysAndNullAreErrors) {
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"file": {"list": [1, 2]}})"),
                        {"'file.list'", "arrays are not supported"}));
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"driver": "null", "size": null})"),
                        {"'size'", "null is not supported"}));
  EXPECT_TRUE(FailsWith(Options::Parse("json:[1]"), {"must be an object"}));
  EXPECT_TRUE(FailsWith(Options::Parse("json:\"x\""), {"must be an object"}));
  EXPECT_TRUE(FailsWith(Options::Parse("json:null"), {"must be an object"}));
  EXPECT_TRUE(FailsWith(Options::Parse("json:7"), {"must be an object"}));
}

TEST(OptionsParseJson, SyntaxErrorsCarryNlohmannMessage) {
  auto o = Options::Parse(R"({"driver": "null",})");
  EXPECT_TRUE(FailsWith(o, {"spec: invalid JSON: ", "parse error"}));
  EXPECT_EQ(o.error().code, -EINVAL);
  EXPECT_TRUE(FailsWith(Options::Parse("json:"), {"spec: invalid JSON: "}));
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"a": "b"} trailing)"), {"spec: invalid JSON: "}));
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"a": 1e400})"), {"spec: invalid JSON: "}));
}

TEST(OptionsParseJson, DuplicatesAndConflictsDetected) {
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"size": 1, "size": 2})"),
                        {"spec: duplicate option 'size'"}));
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"file": {"driver": "a"}, "file.driver": "b"})"),
                        {"duplicate option 'file.driver'"}));
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"file": "ref", "file": {"driver": "b"}})"),
                        {"'file.driver'", "conflicts with 'file'"}));
}

TEST(OptionsParseJson, DottedJsonKeysAllowed) {
  Options o = MustParse(R"({"file.driver": "null", "file": {"size": "1G"}})");
  EXPECT_EQ(o.Keys(), (Strings{"file.driver", "file.size"}));
}

TEST(OptionsParseJson, BadKeysAndEmptyObjects) {
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"file": {"bad key": 1}})"),
                        {"invalid option name 'bad key'", "in 'file'"}));
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"": 1})"), {"invalid option name ''"}));
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"a..b": 1})"), {"'a..b'"}));
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"driver": "x", "file": {}})"),
                        {"'file'", "empty JSON object"}));
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"a": {"b": {}}})"), {"'a.b'", "empty JSON object"}));
}

TEST(OptionsParseJson, NumberWithAbsurdExponentIsError) {
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"n": 1e200})"), {"'n'", "'1e200'", "out of range"}));
  Options o = MustParse(R"({"n": 0e999})");
  EXPECT_EQ(ValueOf(o, "n"), "0");
}

// Exponents at the edge of a 64-bit integer (found by spec_json_fuzz: the
// decimal point's position overflowed). Zero stays zero; the rest underflow to
// a value nlohmann reads as 0.0 and the exact text is out of range.
TEST(OptionsParseJson, ExponentNearInt64LimitsDoesNotOverflow) {
  EXPECT_EQ(ValueOf(MustParse(R"({"n": 0E0009223372036854775807})"), "n"), "0");
  EXPECT_EQ(ValueOf(MustParse(R"({"n": -0.0e-9223372036854775808})"), "n"), "0");
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"n": 0.0001e-9223372036854775807})"),
                        {"'n'", "out of range"}));
  EXPECT_TRUE(FailsWith(Options::Parse(R"({"n": 1e-99999999999999999999999})"),
                        {"'n'", "out of range"}));
}

// ---- Options manipulation ---------------------------------------------------

// ---- limits on the shape of a spec ------------------------------------------

// "file.file.<...>.file" with `n` components.
std::string DottedKey(size_t n) {
  std::string key = "file";
  for (size_t i = 1; i < n; ++i) key += ".file";
  return key;
}

// A chain of `levels` nested throttle nodes over a null node, in JSON.
std::string NestedJson(size_t levels) {
  std::string s;
  for (size_t i = 0; i < levels; ++i) s += "{\"driver\":\"throttle\",\"file\":";
  s += "{\"driver\":\"null\"}";
  s.append(levels, '}');
  return s;
}

TEST(OptionsLimits, KeyComponentsAreLimited) {
  const std::string ok = DottedKey(kMaxKeyComponents);
  EXPECT_EQ(ValueOf(MustParse(ok + "=1"), ok), "1");
  const std::string too_deep = DottedKey(kMaxKeyComponents + 1);
  EXPECT_TRUE(FailsWith(Options::Parse("driver=null," + too_deep + "=1"),
                        {"spec: option 'file.file.", "has 33 dot-separated parts, more than 32",
                         "at position 12"}));
  EXPECT_TRUE(FailsWith(Options::Parse("json:{\"" + too_deep + "\":1}"),
                        {"has 33 dot-separated parts, more than 32"}));
  // Dotted JSON keys inside nested objects count in full.
  EXPECT_TRUE(FailsWith(Options::Parse("{\"a\":{\"" + DottedKey(kMaxKeyComponents) + "\":1}}"),
                        {"has 33 dot-separated parts"}));
}

TEST(OptionsLimits, JsonNestingIsLimited) {
  // The root object is level 1; 31 nested nodes below it: keys of 32 parts.
  Options o = MustParse(NestedJson(kMaxJsonDepth - 1));
  EXPECT_EQ(ValueOf(o, DottedKey(kMaxJsonDepth - 1) + ".driver"), "null");
  EXPECT_TRUE(FailsWith(Options::Parse(NestedJson(kMaxJsonDepth)),
                        {"spec: JSON objects nested more than 32 deep at 'file.file."}));
}

TEST(OptionsLimits, DeepHostileSpecsFailFast) {
  // 2,000 levels took 18 s: dotted keys grow with the depth and were copied at
  // every level (cubic).  Now the depth limit ends the parse early, so the
  // cost grows at most linearly with the input.
  auto json = [](size_t levels) { return NestedJson(levels); };
  auto kv = [](size_t parts) { return "driver=throttle," + DottedKey(parts) + "=1"; };
  auto brackets = [](size_t levels) {
    std::string s;
    for (size_t i = 0; i < levels; ++i) s += "{\"a\":";
    return s;
  };
  for (const std::string& spec : {json(2000), kv(100000), brackets(200000)}) {
    auto p = Options::Parse(spec);
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.error().message.find("more than 32"), std::string::npos) << p.error().message;
    EXPECT_LT(p.error().message.size(), 400u) << "the message quotes the whole spec";
  }
  // Linear work is 10-20 (up to 31 on the loaded CI machine, see
  // registry_test); quadratic is 100.
  auto parse = [](const std::string& spec) { (void)Options::Parse(spec); };
  EXPECT_LT(test::GrowthRatio(json, parse, 2000), 50);
  EXPECT_LT(test::GrowthRatio(kv, parse, 10000), 50);
  EXPECT_LT(test::GrowthRatio(brackets, parse, 20000), 50);
}

TEST(OptionsLimits, JsonSyntaxErrorsQuoteBriefly) {
  // nlohmann's message repeats the last token read, here 1 MB of string.
  auto p = Options::Parse("{\"a\":\"" + std::string(1 << 20, 'x'));
  EXPECT_TRUE(FailsWith(p, {"spec: invalid JSON: ", "missing closing quote; last read: '\"xxx",
                            " more bytes)'"}));
  EXPECT_LT(p.error().message.size(), 400u);
}

TEST(OptionsLimits, ManyKeysParseInLinearTime) {
  // Set() looked every key up: 100,000 keys took seconds (quadratic).
  auto kv = [](size_t n) {
    std::string s = "driver=rbd";
    for (size_t i = 0; i < n; ++i) s += ",rados.k" + std::to_string(i) + "=v";
    return s;
  };
  auto json = [](size_t n) {
    std::string s = "{\"driver\":\"rbd\",\"rados\":{";
    for (size_t i = 0; i < n; ++i) s += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":\"v\"";
    return s + "}}";
  };
  EXPECT_EQ(MustParse(kv(100000)).size(), 100001u);
  EXPECT_EQ(MustParse(json(100000)).size(), 100001u);
  // Linear: ten times the keys, about ten times the time (quadratic: 100).
  auto parse = [](const std::string& spec) { (void)Options::Parse(spec); };
  EXPECT_LT(test::GrowthRatio(kv, parse, 10000), 50);
  EXPECT_LT(test::GrowthRatio(json, parse, 10000), 50);
}

TEST(OptionsEdit, GetHasSetErase) {
  Options o = MustParse("a=1,b=2");
  EXPECT_TRUE(o.Has("a"));
  EXPECT_FALSE(o.Has("c"));
  EXPECT_EQ(o.Get("c"), nullptr);

  o.Set("a", "10");  // replaces in place
  o.Set("c", "3");   // appends
  EXPECT_EQ(o.Keys(), (Strings{"a", "b", "c"}));
  EXPECT_EQ(ValueOf(o, "a"), "10");
  EXPECT_EQ(o.size(), 3u);

  EXPECT_TRUE(o.Erase("b"));
  EXPECT_FALSE(o.Erase("b"));
  EXPECT_EQ(o.Keys(), (Strings{"a", "c"}));
  EXPECT_TRUE(o.Erase("a"));
  EXPECT_TRUE(o.Erase("c"));
  EXPECT_TRUE(o.empty());
}

TEST(OptionsEdit, TakeSubtreeSplitsChild) {
  Options o = MustParse(
      "driver=throttle,file.driver=raw,file.file.driver=null,filex.a=1,file.size=1G,limit=5");
  Options child = o.TakeSubtree("file");
  EXPECT_EQ(child.Keys(), (Strings{"driver", "file.driver", "size"}));
  EXPECT_EQ(ValueOf(child, "driver"), "raw");
  EXPECT_EQ(ValueOf(child, "file.driver"), "null");
  EXPECT_EQ(o.Keys(), (Strings{"driver", "filex.a", "limit"}));

  Options grandchild = child.TakeSubtree("file");
  EXPECT_EQ(grandchild.Keys(), (Strings{"driver"}));
  EXPECT_EQ(ValueOf(grandchild, "driver"), "null");
  EXPECT_EQ(child.Keys(), (Strings{"driver", "size"}));

  EXPECT_TRUE(o.TakeSubtree("missing").empty());
  EXPECT_EQ(o.size(), 3u);
}

TEST(OptionsEdit, TakeSubtreeLeavesKeyEqualToPrefix) {
  Options o;
  o.Set("file", "node0");
  o.Set("file.x", "1");
  Options sub = o.TakeSubtree("file");
  EXPECT_EQ(sub.Keys(), (Strings{"x"}));
  EXPECT_EQ(o.Keys(), (Strings{"file"}));
}

// ---- ToString ---------------------------------------------------------------

TEST(OptionsToString, CanonicalFormEscapesCommas) {
  Options o;
  o.Set("driver", "null");
  o.Set("name", "a,b,");
  o.Set("empty", "");
  o.Set("lead", ",x");
  EXPECT_EQ(o.ToString(), "driver=null,name=a,,b,,,empty=,lead=,,x");
  EXPECT_EQ(Options().ToString(), "");
}

TEST(OptionsToString, RoundTrips) {
  for (const char* spec : {"driver=throttle,file.driver=null,file.size=1G", "a=x,,y,b=,c=,,",
                           "a=b=c", "", "x=,,,,,,"}) {
    Options o = MustParse(spec);
    Options again = MustParse(o.ToString());
    EXPECT_EQ(again, o) << spec;
    EXPECT_EQ(again.ToString(), o.ToString()) << spec;
  }
  Options j = MustParse(R"({"driver":"null","file":{"name":"a,b","n":1.50,"ro":true}})");
  EXPECT_EQ(j.ToString(), "driver=null,file.name=a,,b,file.n=1.5,file.ro=on");
  EXPECT_EQ(MustParse(j.ToString()), j);
}

TEST(OptionsToString, EqualityIsOrderSensitive) {
  EXPECT_NE(MustParse("a=1,b=2"), MustParse("b=2,a=1"));
  EXPECT_NE(MustParse("a=1"), MustParse("a=2"));
  EXPECT_EQ(MustParse("a=1,b=2"), MustParse(R"({"a":1,"b":2})"));
}

}  // namespace
}  // namespace blk
