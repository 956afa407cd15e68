// fio's memory options as fio 3.33 reads them: mem/iomem (the type, with a
// file for the mmap types), iomem_align/mem_align, hugepage-size.
#include <gtest/gtest.h>

#include "tests/tools/block_bench/jobfile/test_util.h"
#include "tools/block_bench/jobfile/option_table.h"

namespace blk::bench {
namespace {

using testing::ParseOne;

TEST(MemoryOptions, EveryTypeOfFiosExceptCuda) {
  EXPECT_EQ(ParseOne("").mem.type, IoMem::kMalloc);
  EXPECT_EQ(ParseOne("mem=malloc").mem.type, IoMem::kMalloc);
  EXPECT_EQ(ParseOne("mem=shm").mem.type, IoMem::kShm);
  EXPECT_EQ(ParseOne("iomem=shmhuge").mem.type, IoMem::kShmHuge);
  EXPECT_EQ(ParseOne("mem=mmap").mem.type, IoMem::kMmap);
  EXPECT_EQ(ParseOne("mem=mmaphuge").mem.type, IoMem::kMmapHuge);
  EXPECT_EQ(ParseOne("mem=mmapshared").mem.type, IoMem::kMmapShared);
  EXPECT_TRUE(ParseOne("mem=mmap").mem.file.empty());
  EXPECT_OPTION_ERROR("mem=cudamalloc", 2, "mem", "rdma");
  EXPECT_OPTION_ERROR("mem=heap", 2, "mem", "expected malloc, shm, shmhuge, mmap[:FILE]");
}

TEST(MemoryOptions, TheMmapTypesTakeAFile) {
  const JobOptions j = ParseOne("mem=mmap:/tmp/a:b");
  EXPECT_EQ(j.mem.type, IoMem::kMmap);
  EXPECT_EQ(j.mem.file, "/tmp/a:b");  // everything after the first colon, as fio
  EXPECT_EQ(ParseOne("mem=mmaphuge:/huge/f").mem.file, "/huge/f");
  EXPECT_EQ(ParseOne("mem=mmapshared:f").mem.file, "f");
  // The last mem= wins whole: no file left over from an earlier one.
  EXPECT_TRUE(ParseOne("mem=mmap:f\nmem=shm").mem.file.empty());
  EXPECT_OPTION_ERROR("mem=shm:/x", 2, "mem", "takes no file");
  EXPECT_OPTION_ERROR("mem=malloc:/x", 2, "mem", "takes no file");
  EXPECT_OPTION_ERROR("mem=mmap:", 2, "mem", "expected a file name");
}

TEST(MemoryOptions, AlignIsAnOffsetInBytes) {
  EXPECT_EQ(ParseOne("").mem.align, 0u);
  EXPECT_EQ(ParseOne("mem_align=512").mem.align, 512u);
  EXPECT_EQ(ParseOne("iomem_align=4k").mem.align, 4096u);
  EXPECT_EQ(ParseOne("iomem_align=1").mem.align, 1u);
  EXPECT_OPTION_ERROR("mem_align=-1", 2, "mem_align", "-1");
  EXPECT_OPTION_ERROR("iomem_align=x", 2, "iomem_align", "x");
}

TEST(MemoryOptions, HugepageSizeIsAPowerOfTwo) {
  EXPECT_EQ(ParseOne("").mem.hugepage_size, uint64_t(2) << 20);
  EXPECT_EQ(ParseOne("hugepage-size=1g").mem.hugepage_size, uint64_t(1) << 30);
  EXPECT_EQ(ParseOne("hugepage-size=64k").mem.hugepage_size, uint64_t(64) << 10);
  EXPECT_OPTION_ERROR("hugepage-size=3m", 2, "hugepage-size", "power of two");
  EXPECT_OPTION_ERROR("hugepage-size=0", 2, "hugepage-size", "0");
}

TEST(MemoryOptions, NoLongerRefused) {
  for (const char* name : {"mem", "iomem", "mem_align", "iomem_align", "hugepage-size"}) {
    EXPECT_FALSE(UnsupportedFioOptionReason(name)) << name;
    EXPECT_NE(FindOption(name), nullptr) << name;
  }
}

}  // namespace
}  // namespace blk::bench
