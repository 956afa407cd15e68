// Checking a graph spec against the driver table without opening it
// (ValidateSpec, ValidateNode); opening itself is covered by the drivers'
// tests.
#include <blkstack/block/registry.h>

#include <gtest/gtest.h>

#include <string>

#include "tests/util/scaling.h"

namespace blk {
namespace {

std::string SpecError(std::string_view spec) {
  Expected<void> r = ValidateSpec(spec);
  return r.ok() ? "<no error>" : r.error().message;
}

// `levels` throttle nodes over a null node, key=value form; each node also
// carries `pad` bytes of node-name.
std::string ThrottleChain(size_t levels, size_t pad = 0) {
  std::string spec;
  std::string prefix;
  for (size_t i = 0; i < levels; ++i) {
    spec += prefix + "driver=throttle,";
    if (pad) spec += prefix + "node-name=" + std::string(pad, 'n') + ",";
    prefix += "file.";
  }
  return spec + prefix + "driver=null";
}

TEST(ValidateSpec, AcceptsWhatOpenAccepts) {
  for (const char* spec : {
           "driver=null,size=1G",
           "driver=null,size=1G,node-name=n,read-only=on",
           "driver=throttle,iops-total=3000,file.driver=error-inject,file.event=read,"
           "file.file.driver=null,file.file.size=16m",
           R"({"driver":"throttle","file":{"driver":"null","read-zeroes":true}})",
           // Nothing is opened: a file that does not exist is fine here.
           "driver=file,filename=/nonexistent/blkstack/x,aio=native,cache.direct=on",
           "driver=rbd,pool=p,image=i,rados.rbd_cache=false,rados.debug_rbd=0/5",
           R"(json:{"driver":"rbd","image":"i","rados":{"rbd_cache":"false"}})",
       }) {
    EXPECT_EQ(SpecError(spec), "<no error>") << spec;
  }
}

TEST(ValidateSpec, RejectsWhatOpenRejects) {
  EXPECT_EQ(SpecError("driver=bogus"),
            "unknown driver 'bogus' (option 'driver'); known drivers: null, error-inject, "
            "throttle, file, rbd, rados, nbd");
  EXPECT_EQ(SpecError("size=1G").rfind("missing required option 'driver' (one of: ", 0), 0u);
  EXPECT_NE(SpecError("driver=null,sise=1G").find("driver 'null': unknown option 'sise'"),
            std::string::npos);
  EXPECT_NE(SpecError("driver=null,size=lots").find("option 'size' expects a size"),
            std::string::npos);
  EXPECT_NE(SpecError("driver=null,read-only=maybe").find("option 'read-only'"),
            std::string::npos);
  EXPECT_EQ(SpecError("driver=throttle,file.driver=bogus").rfind(
                "node 'file': unknown driver 'bogus'", 0),
            0u);
  EXPECT_NE(SpecError("driver=throttle,file.driver=error-inject,file.file.driver=null,"
                      "file.file.sise=1")
                .find("node 'file.file': driver 'null': unknown option 'sise'"),
            std::string::npos);
  EXPECT_NE(SpecError("driver=null,file.driver=null").find("unknown child 'file'"),
            std::string::npos);
  EXPECT_NE(SpecError("driver=null,rados.x=1").find("unknown child 'rados'"), std::string::npos);
  EXPECT_NE(SpecError("driver=file").find("missing required option 'filename'"),
            std::string::npos);
  EXPECT_EQ(SpecError("driver=null,").rfind("spec: expected 'key=value'", 0), 0u);
  EXPECT_EQ(SpecError("{\"driver\":").rfind("spec: invalid JSON", 0), 0u);
}

TEST(ValidateSpec, DeepestAllowedGraphIsCheap) {
  // 31 filters over a leaf: the leaf's keys have kMaxKeyComponents parts.
  EXPECT_EQ(SpecError(ThrottleChain(kMaxKeyComponents - 1)), "<no error>");
  EXPECT_NE(SpecError(ThrottleChain(kMaxKeyComponents)).find("more than 32"), std::string::npos);
  // At the deepest allowed nesting each level copies what is below it once,
  // so the cost stays linear in the spec's size (times the depth).
  EXPECT_EQ(SpecError(ThrottleChain(kMaxKeyComponents - 1, 100000)), "<no error>");
  EXPECT_LT(test::GrowthRatio([](size_t pad) { return ThrottleChain(kMaxKeyComponents - 1, pad); },
                              [](const std::string& spec) { (void)SpecError(spec); }, 10000),
            50);  // linear: 10-20, up to 31 loaded; quadratic: 100
}

TEST(ValidateSpec, ManyPassThroughKeysAreCheap) {
  // Each pass-through key was looked up again: quadratic.
  auto spec = [](size_t n) {
    std::string s = "driver=rbd,image=i";
    for (size_t i = 0; i < n; ++i) s += ",rados.k" + std::to_string(i) + "=v";
    return s;
  };
  EXPECT_EQ(SpecError(spec(100000)), "<no error>");
  // Linear work measures 10-20 here (allocation and cache misses grow with
  // the spec), up to 31 on the loaded 2-core CI machine; quadratic is 100.
  EXPECT_LT(test::GrowthRatio(spec, [](const std::string& s) { (void)SpecError(s); }, 10000), 50);
}

TEST(ValidateSpec, LongNamesAreQuotedBriefly) {
  const std::string err = SpecError("driver=" + std::string(1 << 20, 'd'));
  EXPECT_EQ(err.rfind("unknown driver '" + std::string(80, 'd') + "...(", 0), 0u) << err.substr(0, 200);
  EXPECT_LT(err.size(), 300u);
}

}  // namespace
}  // namespace blk
