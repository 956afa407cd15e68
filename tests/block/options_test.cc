// Tests for block/options.h: spec parsing (key=value and JSON), Options
// manipulation, value syntaxes and schema validation.
#include "block/options.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/util/scaling.h"

namespace blk {
namespace {

using Strings = std::vector<std::string>;

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

Options MustParse(std::string_view spec) {
  auto o = Options::Parse(spec);
  EXPECT_TRUE(o.ok()) << spec << ": " << (o.ok() ? "" : o.error().message);
  return o.ok() ? o.value() : Options();
}

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
  auto parse = [](const std::string& spec) { (void)Options::Parse(spec); };
  EXPECT_LT(test::GrowthRatio(json, parse, 2000), 30);
  EXPECT_LT(test::GrowthRatio(kv, parse, 10000), 30);
  EXPECT_LT(test::GrowthRatio(brackets, parse, 20000), 30);
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
  EXPECT_LT(test::GrowthRatio(kv, parse, 10000), 30);
  EXPECT_LT(test::GrowthRatio(json, parse, 10000), 30);
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

// ---- ParseSize --------------------------------------------------------------

uint64_t Size(std::string_view s) {
  auto r = ParseSize(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : ~uint64_t{0};
}

TEST(ParseSizeTest, EverySuffix) {
  EXPECT_EQ(Size("0"), 0u);
  EXPECT_EQ(Size("512"), 512u);
  EXPECT_EQ(Size("512b"), 512u);
  EXPECT_EQ(Size("512B"), 512u);
  const char* letters[] = {"K", "M", "G", "T", "P", "E"};
  for (int i = 0; i < 6; ++i) {
    const uint64_t unit = uint64_t{1} << (10 * (i + 1));
    std::string up = letters[i];
    std::string low(1, static_cast<char>(up[0] - 'A' + 'a'));
    EXPECT_EQ(Size("3" + up), 3 * unit) << up;
    EXPECT_EQ(Size("3" + low), 3 * unit) << low;
    EXPECT_EQ(Size("3" + up + "iB"), 3 * unit) << up << "iB";
  }
  EXPECT_EQ(Size("1KiB"), 1024u);
  EXPECT_EQ(Size("1MiB"), 1048576u);
  EXPECT_EQ(Size("1GiB"), 1073741824u);
  EXPECT_EQ(Size("1TiB"), uint64_t{1} << 40);
  EXPECT_EQ(Size("007K"), 7168u);
}

TEST(ParseSizeTest, Fractions) {
  EXPECT_EQ(Size("1.5G"), 3u << 29);
  EXPECT_EQ(Size("0.5K"), 512u);
  EXPECT_EQ(Size("1.25M"), 1310720u);
  EXPECT_EQ(Size("2.0"), 2u);
  EXPECT_EQ(Size("0.0009765625K"), 1u);  // 2^-10 KiB
  EXPECT_EQ(Size("1.500000000000000000000000000000K"), 1536u);  // zeros are free

  for (const char* s : {"1.5", "0.1K", "1.0000001K", "0.3B"}) {
    auto r = ParseSize(s);
    EXPECT_TRUE(FailsWith(r, {std::string("'") + s + "'", "whole number of bytes"})) << s;
    EXPECT_EQ(r.error().code, -EINVAL);
  }
  EXPECT_TRUE(FailsWith(ParseSize("1.0000000000000000001K"), {"too many fractional digits"}));
}

TEST(ParseSizeTest, Maximum) {
  EXPECT_EQ(Size("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(Size("15E"), uint64_t{15} << 60);
  EXPECT_EQ(Size("16383P"), uint64_t{16383} << 50);
  EXPECT_EQ(Size("0xffffffffffffffff"), UINT64_MAX);
  EXPECT_EQ(Size("18014398509481983.9990234375K"), UINT64_MAX);  // (2^54 - 2^-10) KiB
}

TEST(ParseSizeTest, OverflowIsError) {
  for (const char* s : {"16E", "16384P", "18446744073709551616", "99999999999999999999999K",
                        "16.5E", "18014398509481984.5K", "0x10000000000000000"}) {
    auto r = ParseSize(s);
    EXPECT_TRUE(FailsWith(r, {std::string("'") + s + "'", "too large"})) << s;
    EXPECT_EQ(r.error().code, -ERANGE) << s;
  }
}

TEST(ParseSizeTest, NegativeIsError) {
  for (const char* s : {"-1", "-1G", "-0"}) {
    auto r = ParseSize(s);
    EXPECT_TRUE(FailsWith(r, {std::string("invalid size '") + s + "'", "negative"})) << s;
    EXPECT_EQ(r.error().code, -EINVAL);
  }
}

TEST(ParseSizeTest, GarbageIsError) {
  for (const char* s : {"", "abc", "G", "1X", "1KB", "1Kib", "1 G", " 1", "1 ", "1.", "1.G",
                        ".5G", "+1", "1e3", "0x", "0x1G", "1GG"}) {
    auto r = ParseSize(s);
    EXPECT_TRUE(FailsWith(r, {std::string("invalid size '") + s + "'"})) << s;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, -EINVAL) << s;
    }
  }
  EXPECT_TRUE(FailsWith(ParseSize("1X"), {"unknown suffix 'X'"}));
}

TEST(ParseSizeTest, HexWithoutSuffix) {
  EXPECT_EQ(Size("0x1000"), 4096u);
  EXPECT_EQ(Size("0X1f"), 31u);
}

// ---- ParseInt ---------------------------------------------------------------

int64_t Int(std::string_view s) {
  auto r = ParseInt(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : -12345;
}

TEST(ParseIntTest, Accepts) {
  EXPECT_EQ(Int("0"), 0);
  EXPECT_EQ(Int("42"), 42);
  EXPECT_EQ(Int("-42"), -42);
  EXPECT_EQ(Int("+7"), 7);
  EXPECT_EQ(Int("010"), 10);
  EXPECT_EQ(Int("0x10"), 16);
  EXPECT_EQ(Int("0X1f"), 31);
  EXPECT_EQ(Int("-0x10"), -16);
  EXPECT_EQ(Int("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(Int("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(Int("0x7fffffffffffffff"), INT64_MAX);
  EXPECT_EQ(Int("-0x8000000000000000"), INT64_MIN);
}

TEST(ParseIntTest, OverflowIsError) {
  for (const char* s : {"9223372036854775808", "-9223372036854775809", "0x8000000000000000",
                        "99999999999999999999999", "-0x10000000000000000"}) {
    auto r = ParseInt(s);
    EXPECT_TRUE(FailsWith(r, {std::string("invalid integer '") + s + "'", "out of range"})) << s;
    EXPECT_EQ(r.error().code, -ERANGE) << s;
  }
}

TEST(ParseIntTest, StrictSyntax) {
  for (const char* s : {"", "-", "+", "12abc", " 1", "1 ", "0x", "1.5", "0x-1", "--1", "+-1",
                        "1G", "0xg", "abc"}) {
    auto r = ParseInt(s);
    EXPECT_TRUE(FailsWith(r, {std::string("invalid integer '") + s + "'"})) << s;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, -EINVAL) << s;
    }
  }
}

// ---- ParseBool --------------------------------------------------------------

TEST(ParseBoolTest, AcceptsAllSpellings) {
  for (const char* s : {"on", "true", "yes", "1", "ON", "True", "YES"}) {
    auto r = ParseBool(s);
    ASSERT_TRUE(r.ok()) << s;
    EXPECT_TRUE(r.value()) << s;
  }
  for (const char* s : {"off", "false", "no", "0", "OFF", "False", "No"}) {
    auto r = ParseBool(s);
    ASSERT_TRUE(r.ok()) << s;
    EXPECT_FALSE(r.value()) << s;
  }
}

TEST(ParseBoolTest, RejectsOthers) {
  for (const char* s : {"", "2", "onn", "y", "n", "enable", " on", "-1"}) {
    auto r = ParseBool(s);
    EXPECT_TRUE(FailsWith(r, {std::string("invalid boolean '") + s + "'", "on/off"})) << s;
  }
}

// ---- schema validation ------------------------------------------------------

OptionSpec Opt(std::string name, OptionSpec::Type type, std::string def = "",
               bool has_default = false) {
  OptionSpec s;
  s.name = std::move(name);
  s.type = type;
  s.default_value = std::move(def);
  s.has_default = has_default;
  return s;
}

std::vector<OptionSpec> NullSchema() {
  using T = OptionSpec::Type;
  std::vector<OptionSpec> s;
  s.push_back(Opt("size", T::kSize, "1G", true));
  s.back().help = "Size of the device.";
  s.push_back(Opt("read-zeroes", T::kBool, "off", true));
  s.push_back(Opt("latency-ns", T::kInt, "0", true));
  s.back().min = 0;
  s.back().max = 1000000000;
  s.back().help = "Added latency per request.";
  return s;
}

std::vector<OptionSpec> RichSchema() {
  using T = OptionSpec::Type;
  std::vector<OptionSpec> s = NullSchema();
  s.push_back(Opt("mode", T::kEnum, "sync", true));
  s.back().enum_values = {"sync", "async", "off"};
  s.push_back(Opt("name", T::kString));
  s.push_back(Opt("block", T::kSize, "4K", true));
  s.back().min = 512;
  s.back().max = 65536;
  return s;
}

Expected<ParsedOptions> Validate(std::string_view driver, const std::vector<OptionSpec>& schema,
                                 std::string_view spec, const Strings& children = {}) {
  return ValidateOptions(driver, schema, children, MustParse(spec));
}

TEST(ValidateOptionsTest, DefaultsApplied) {
  auto p = Validate("null", RichSchema(), "");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->driver(), "null");
  EXPECT_EQ(p->size("size"), uint64_t{1} << 30);
  EXPECT_FALSE(p->flag("read-zeroes"));
  EXPECT_EQ(p->integer("latency-ns"), 0);
  EXPECT_EQ(p->choice("mode"), "sync");
  EXPECT_EQ(p->size("block"), 4096u);
  EXPECT_TRUE(p->has("size"));
  EXPECT_FALSE(p->given("size"));
  EXPECT_EQ(p->raw("size"), "1G");
  EXPECT_FALSE(p->has("name"));  // no default
  EXPECT_FALSE(p->has("nonexistent"));
}

TEST(ValidateOptionsTest, GivenValuesParsedByType) {
  auto p = Validate("null", RichSchema(),
                    "driver=null,size=1.5K,read-zeroes=on,latency-ns=0x10,mode=async,"
                    "name=a,,b,block=512");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->size("size"), 1536u);
  EXPECT_TRUE(p->flag("read-zeroes"));
  EXPECT_EQ(p->integer("latency-ns"), 16);
  EXPECT_EQ(p->choice("mode"), "async");
  EXPECT_EQ(p->str("name"), "a,b");
  EXPECT_EQ(p->size("block"), 512u);
  EXPECT_TRUE(p->given("size"));
  EXPECT_EQ(p->raw("latency-ns"), "0x10");
}

TEST(ValidateOptionsTest, EmptyStringValueAllowed) {
  auto p = Validate("null", RichSchema(), "name=");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_TRUE(p->has("name"));
  EXPECT_EQ(p->str("name"), "");
}

TEST(ValidateOptionsTest, UnknownOptionListsValidOnes) {
  auto p = Validate("null", NullSchema(), "sise=1G");
  EXPECT_TRUE(FailsWith(p, {"driver 'null': unknown option 'sise' (value '1G'); "
                            "valid options: size, read-zeroes, latency-ns"}));
  EXPECT_EQ(p.error().code, -EINVAL);
  EXPECT_TRUE(FailsWith(Validate("null", NullSchema(), "x=1", {"file"}),
                        {"unknown option 'x'", "children: file"}));
  EXPECT_TRUE(FailsWith(Validate("leaf", {}, "x=1"), {"driver 'leaf'", "'x'", "valid options: none"}));
}

TEST(ValidateOptionsTest, WrongTypeNamesOptionAndValue) {
  EXPECT_TRUE(FailsWith(Validate("null", NullSchema(), "size=abc"),
                        {"driver 'null': option 'size' expects a size like 1G, got 'abc'"}));
  EXPECT_TRUE(FailsWith(Validate("null", NullSchema(), "size=-5"), {"'size'", "'-5'", "negative"}));
  EXPECT_TRUE(FailsWith(Validate("null", NullSchema(), "size="), {"'size'", "got ''"}));
  EXPECT_TRUE(FailsWith(Validate("null", NullSchema(), "read-zeroes=maybe"),
                        {"driver 'null': option 'read-zeroes' expects on/off, got 'maybe'"}));
  EXPECT_TRUE(FailsWith(Validate("null", NullSchema(), "latency-ns=12x"),
                        {"driver 'null': option 'latency-ns' expects an integer, got '12x'"}));
}

TEST(ValidateOptionsTest, IntRange) {
  EXPECT_TRUE(FailsWith(Validate("null", NullSchema(), "latency-ns=-1"),
                        {"'latency-ns'", "between 0 and 1000000000", "got '-1'"}));
  EXPECT_TRUE(FailsWith(Validate("null", NullSchema(), "latency-ns=1000000001"),
                        {"'latency-ns'", "got '1000000001'"}));
  auto edge = Validate("null", NullSchema(), "latency-ns=1000000000");
  ASSERT_TRUE(edge.ok()) << edge.error().message;
  EXPECT_EQ(edge->integer("latency-ns"), 1000000000);

  std::vector<OptionSpec> only_min = {Opt("n", OptionSpec::Type::kInt)};
  only_min[0].min = 3;
  EXPECT_TRUE(FailsWith(ValidateOptions("d", only_min, {}, MustParse("n=2")),
                        {"'n' must be at least 3, got '2'"}));
  std::vector<OptionSpec> only_max = {Opt("n", OptionSpec::Type::kInt)};
  only_max[0].max = -1;
  EXPECT_TRUE(FailsWith(ValidateOptions("d", only_max, {}, MustParse("n=0")),
                        {"'n' must be at most -1, got '0'"}));
}

TEST(ValidateOptionsTest, SizeRange) {
  EXPECT_TRUE(FailsWith(Validate("null", RichSchema(), "block=256"),
                        {"'block'", "between 512 and 65536", "got '256'"}));
  EXPECT_TRUE(FailsWith(Validate("null", RichSchema(), "block=65537"), {"'block'", "'65537'"}));
  EXPECT_TRUE(FailsWith(Validate("null", RichSchema(), "block=1M"), {"'block'", "'1M'"}));
  auto ok = Validate("null", RichSchema(), "block=64K");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->size("block"), 65536u);
  // The default max of a size is INT64_MAX: offsets are signed.
  // ... and the message says so (it read "must be  bytes").
  EXPECT_TRUE(FailsWith(Validate("null", NullSchema(), "size=8E"),
                        {"option 'size' must be at most 9223372036854775807 bytes, got '8E'"}));
  auto big = Validate("null", NullSchema(), "size=8191P");
  ASSERT_TRUE(big.ok()) << big.error().message;
  EXPECT_EQ(big->size("size"), uint64_t{8191} << 50);
}

TEST(ValidateOptionsTest, EnumListsAllowedValues) {
  EXPECT_TRUE(FailsWith(Validate("null", RichSchema(), "mode=fast"),
                        {"driver 'null': option 'mode' must be one of: sync, async, off; got 'fast'"}));
  EXPECT_TRUE(FailsWith(Validate("null", RichSchema(), "mode=SYNC"), {"'SYNC'"}));
}

TEST(ValidateOptionsTest, MissingRequired) {
  std::vector<OptionSpec> schema = {Opt("filename", OptionSpec::Type::kString)};
  schema[0].required = true;
  auto p = ValidateOptions("file", schema, {}, Options());
  EXPECT_TRUE(FailsWith(p, {"driver 'file': missing required option 'filename'"}));
  EXPECT_EQ(p.error().code, -EINVAL);

  // A default does not satisfy a required option.
  schema[0].default_value = "x";
  schema[0].has_default = true;
  EXPECT_TRUE(FailsWith(ValidateOptions("file", schema, {}, Options()), {"'filename'"}));

  auto given = ValidateOptions("file", schema, {}, MustParse("filename=/tmp/x"));
  ASSERT_TRUE(given.ok()) << given.error().message;
  EXPECT_EQ(given->str("filename"), "/tmp/x");
}

TEST(ValidateOptionsTest, UnknownChild) {
  auto p = Validate("null", NullSchema(), "foo.bar=1");
  EXPECT_TRUE(FailsWith(p, {"driver 'null': unknown child 'foo' in option 'foo.bar'", "'1'"}));
  EXPECT_TRUE(FailsWith(Validate("raw", NullSchema(), "fiel.driver=null", {"file"}),
                        {"unknown child 'fiel'", "'fiel.driver'", "children: file"}));
}

TEST(ValidateOptionsTest, ChildKeysAndDriverKeyAccepted) {
  auto p = Validate("raw", NullSchema(),
                    "driver=raw,file.driver=null,file.size=1G,size=2G,backing=node1",
                    {"file", "backing"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->size("size"), uint64_t{2} << 30);
  EXPECT_FALSE(p->has("file.size"));
}

TEST(ValidateOptionsTest, MismatchedDriverKey) {
  EXPECT_TRUE(FailsWith(Validate("null", NullSchema(), "driver=file"),
                        {"driver 'null'", "'driver'", "'file'"}));
}

TEST(ValidateOptionsTest, SchemaBugsReported) {
  std::vector<OptionSpec> bad_default = NullSchema();
  bad_default[0].default_value = "lots";
  EXPECT_TRUE(FailsWith(ValidateOptions("null", bad_default, {}, Options()),
                        {"bad schema default", "'size'", "'lots'"}));
  // A given value hides the bad default.
  EXPECT_TRUE(ValidateOptions("null", bad_default, {}, MustParse("size=1")).ok());

  std::vector<OptionSpec> dup = NullSchema();
  dup.push_back(Opt("size", OptionSpec::Type::kInt));
  EXPECT_TRUE(FailsWith(ValidateOptions("null", dup, {}, Options()), {"'size'", "declared twice"}));
}

TEST(ValidateOptionsTest, FirstErrorIsFromKeysInOrder) {
  std::vector<OptionSpec> schema = NullSchema();
  schema.push_back(Opt("must", OptionSpec::Type::kString));
  schema.back().required = true;
  EXPECT_TRUE(FailsWith(Validate("null", schema, "size=1,typo=2,read-zeroes=bad"), {"'typo'"}));
}

TEST(ValidateOptionsTest, LongAndControlValuesQuotedSafely) {
  std::string spec = "sise=" + std::string(500, 'x');
  auto p = Validate("null", NullSchema(), spec);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("xxx..."), std::string::npos) << p.error().message;
  EXPECT_LT(p.error().message.size(), 300u);

  Options o;
  o.Set("size", std::string("a\nb"));
  auto q = ValidateOptions("null", NullSchema(), {}, o);
  EXPECT_TRUE(FailsWith(q, {"'a\\x0ab'"}));
}

TEST(ValidateOptionsTest, EndToEndGraph) {
  Options root = MustParse(R"(json:{"driver":"throttle","limit":"100",
                                    "file":{"driver":"null","size":"2M","read-zeroes":true}})");
  Options file = root.TakeSubtree("file");
  std::vector<OptionSpec> throttle = {Opt("limit", OptionSpec::Type::kInt)};
  auto top = ValidateOptions(*root.Get("driver"), throttle, {"file"}, root);
  ASSERT_TRUE(top.ok()) << top.error().message;
  EXPECT_EQ(top->integer("limit"), 100);
  auto leaf = ValidateOptions(*file.Get("driver"), NullSchema(), {}, file);
  ASSERT_TRUE(leaf.ok()) << leaf.error().message;
  EXPECT_EQ(leaf->size("size"), 2u << 20);
  EXPECT_TRUE(leaf->flag("read-zeroes"));
}

using ValidateOptionsDeathTest = ::testing::Test;

TEST_F(ValidateOptionsDeathTest, MisuseOfAccessorsAborts) {
  auto p = Validate("null", RichSchema(), "");
  ASSERT_TRUE(p.ok());
  const ParsedOptions& po = p.value();
  EXPECT_DEATH((void)po.integer("size"), "declared with another type");
  EXPECT_DEATH((void)po.str("name"), "not given and no default");
  EXPECT_DEATH((void)po.raw("nope"), "no option 'nope'");
}

// ---- help text --------------------------------------------------------------

TEST(FormatOptionsHelpTest, ListsEveryOption) {
  std::vector<OptionSpec> schema = RichSchema();
  schema.push_back(Opt("path", OptionSpec::Type::kString));
  schema.back().required = true;
  schema.back().help = "Image file.";
  std::string help = FormatOptionsHelp("null", schema, {"file"});
  for (const char* part :
       {"driver 'null' options:\n", "size=<size>", "(default: 1G) Size of the device.",
        "read-zeroes=<bool>", "(default: off)", "latency-ns=<int 0..1000000000>",
        "Added latency per request.", "mode=<sync|async|off>", "(default: sync)",
        "name=<string>", "block=<size 512..65536>", "path=<string>",
        "(required) Image file.", "children: file\n"}) {
    EXPECT_NE(help.find(part), std::string::npos) << "missing \"" << part << "\" in\n" << help;
  }
  EXPECT_EQ(help.find(" \n"), std::string::npos) << "trailing blanks in\n" << help;
  EXPECT_EQ(FormatOptionsHelp("leaf", {}), "driver 'leaf' options:\n  (none)\n");

  std::vector<OptionSpec> one_sided = {Opt("lo", OptionSpec::Type::kInt),
                                       Opt("hi", OptionSpec::Type::kSize)};
  one_sided[0].min = 3;
  one_sided[1].max = 4096;
  help = FormatOptionsHelp("d", one_sided);
  EXPECT_NE(help.find("lo=<int 3..>"), std::string::npos) << help;
  EXPECT_NE(help.find("hi=<size ..4096>"), std::string::npos) << help;
  EXPECT_EQ(help.find("children"), std::string::npos) << help;
}

TEST(OptionTypeNameTest, Names) {
  EXPECT_EQ(OptionTypeName(OptionSpec::Type::kString), "string");
  EXPECT_EQ(OptionTypeName(OptionSpec::Type::kBool), "bool");
  EXPECT_EQ(OptionTypeName(OptionSpec::Type::kInt), "int");
  EXPECT_EQ(OptionTypeName(OptionSpec::Type::kSize), "size");
  EXPECT_EQ(OptionTypeName(OptionSpec::Type::kEnum), "enum");
}

}  // namespace
}  // namespace blk
