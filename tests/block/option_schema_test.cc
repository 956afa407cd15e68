// Tests for block/option_schema.h: validating a node's options against a
// schema, typed access, and help text.
#include <blkstack/block/option_schema.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/block/option_test_util.h"

namespace blk {
namespace {

using testing::FailsWith;
using testing::MustParse;
using Strings = std::vector<std::string>;

// ---- schema validation ------------------------------------------------------

using T = OptionSpec::Type;

std::vector<OptionSpec> NullSchema() {
  return {
      {.name = "size", .type = T::kSize, .default_value = "1G", .has_default = true,
       .help = "Size of the device."},
      {.name = "read-zeroes", .type = T::kBool, .default_value = "off", .has_default = true},
      {.name = "latency-ns", .type = T::kInt, .default_value = "0", .has_default = true,
       .min = 0, .max = 1000000000, .help = "Added latency per request."},
  };
}

std::vector<OptionSpec> RichSchema() {
  std::vector<OptionSpec> s = NullSchema();
  s.push_back({.name = "mode", .type = T::kEnum, .default_value = "sync", .has_default = true,
               .enum_values = {"sync", "async", "off"}});
  s.push_back({.name = "name", .type = T::kString});
  s.push_back({.name = "block", .type = T::kSize, .default_value = "4K", .has_default = true,
               .min = 512, .max = 65536});
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

  std::vector<OptionSpec> only_min = {{.name = "n", .type = T::kInt, .min = 3}};
  EXPECT_TRUE(FailsWith(ValidateOptions("d", only_min, {}, MustParse("n=2")),
                        {"'n' must be at least 3, got '2'"}));
  std::vector<OptionSpec> only_max = {{.name = "n", .type = T::kInt, .max = -1}};
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
  std::vector<OptionSpec> schema = {{.name = "filename", .type = T::kString, .required = true}};
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
  dup.push_back({.name = "size", .type = T::kInt});
  EXPECT_TRUE(FailsWith(ValidateOptions("null", dup, {}, Options()), {"'size'", "declared twice"}));
}

TEST(ValidateOptionsTest, FirstErrorIsFromKeysInOrder) {
  std::vector<OptionSpec> schema = NullSchema();
  schema.push_back({.name = "must", .type = T::kString, .required = true});
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
  std::vector<OptionSpec> throttle = {{.name = "limit", .type = T::kInt}};
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
  schema.push_back({.name = "path", .type = T::kString, .required = true, .help = "Image file."});
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

  std::vector<OptionSpec> one_sided = {{.name = "lo", .type = T::kInt, .min = 3},
                                       {.name = "hi", .type = T::kSize, .max = 4096}};
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
