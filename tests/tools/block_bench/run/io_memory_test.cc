// IoMemory (run/io_memory.h): each mem= type gives the mapping it names, as
// /proc/self/maps and the mapped file show it; the huge types fail with
// fio's hint when the machine has no free huge pages (and round up when it
// has); mem_align against O_DIRECT's memory alignment; SlotPool's buffers
// start mem_align bytes past a page boundary.
#include "tools/block_bench/run/io_memory.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "tools/block_bench/run/slot_pool.h"

namespace blk::bench {
namespace {

// The /proc/self/maps line of the mapping holding `p` ("" if none).
std::string MapsLine(const void* p) {
  std::ifstream maps("/proc/self/maps");
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (std::string line; std::getline(maps, line);) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2 && a >= lo && a < hi) return line;
  }
  return "";
}

// The permissions field ("rw-p", "rw-s").
std::string Perms(const std::string& line) {
  std::istringstream in(line);
  std::string range, perms;
  in >> range >> perms;
  return perms;
}

uint64_t FreeHugePages() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("HugePages_Free:", 0) == 0) return std::strtoull(line.c_str() + 15, nullptr, 10);
  }
  return 0;
}

std::string TempPath(const char* name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + "." + std::to_string(getpid());
}

IoMemoryOptions Opts(IoMem type, std::string file = "") {
  IoMemoryOptions o;
  o.type = type;
  o.file = std::move(file);
  return o;
}

TEST(IoMemory, MallocAndMmapArePrivateAnonymousAndUntouched) {
  for (IoMem t : {IoMem::kMalloc, IoMem::kMmap, IoMem::kMmapShared}) {
    auto m = IoMemory::Allocate(Opts(t), 3 * 4096 + 1);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(m.value().size(), size_t(3 * 4096 + 1));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m.value().data()) % 4096, 0u);
    const std::string line = MapsLine(m.value().data());
    EXPECT_EQ(Perms(line), "rw-p") << line;
    m.value().data()[3 * 4096] = 7;  // all of it writable
  }
}

// fio 3.33 maps mmapshared without a file MAP_PRIVATE|MAP_ANONYMOUS
// (strace of fio --mem=mmapshared); so does block-bench.
TEST(IoMemory, MmapSharedWithoutAFileIsPrivateAsFios) {
  auto m = IoMemory::Allocate(Opts(IoMem::kMmapShared), 8192);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const std::string line = MapsLine(m.value().data());
  EXPECT_EQ(Perms(line), "rw-p") << line;
}

TEST(IoMemory, ShmIsASystemVSegmentGoneWhenReleased) {
  uint8_t* p;
  {
    auto m = IoMemory::Allocate(Opts(IoMem::kShm), 65536);
    ASSERT_TRUE(m.ok()) << m.error().message;
    p = m.value().data();
    const std::string line = MapsLine(p);
    EXPECT_NE(line.find("/SYSV"), std::string::npos) << line;
    EXPECT_EQ(Perms(line), "rw-s") << line;
    std::memset(p, 0xa5, 65536);
  }
  EXPECT_EQ(MapsLine(p).find("/SYSV"), std::string::npos) << MapsLine(p);
}

TEST(IoMemory, MmapFileIsCreatedSizedAndRemovedAgain) {
  const std::string path = TempPath("mmapfile");
  unlink(path.c_str());
  {
    auto m = IoMemory::Allocate(Opts(IoMem::kMmap, path), 10000);
    ASSERT_TRUE(m.ok()) << m.error().message;
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_size, 10000);
    const std::string line = MapsLine(m.value().data());
    EXPECT_NE(line.find(path), std::string::npos) << line;
    EXPECT_EQ(Perms(line), "rw-p") << line;
    // Private: the file does not see the buffer's bytes.
    m.value().data()[0] = 'x';
  }
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "the file it created is left behind";
}

TEST(IoMemory, MmapSharedFileSeesTheBuffersAndAnExistingFileIsKept) {
  const std::string path = TempPath("sharedfile");
  {
    std::ofstream f(path);
    f << "old";
  }
  {
    auto m = IoMemory::Allocate(Opts(IoMem::kMmapShared, path), 8192);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(Perms(MapsLine(m.value().data())), "rw-s");
    std::memcpy(m.value().data() + 4096, "new", 3);
  }
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0) << "an existing file is removed";
  EXPECT_EQ(st.st_size, 8192);  // extended to the area
  std::ifstream f(path, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all.substr(0, 3), "old");
  EXPECT_EQ(all.substr(4096, 3), "new");
  unlink(path.c_str());
}

TEST(IoMemory, MmapHugeFileMustBeOnHugetlbfs) {
  const std::string path = TempPath("notuge");
  unlink(path.c_str());
  auto m = IoMemory::Allocate(Opts(IoMem::kMmapHuge, path), 4096);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, -EINVAL);
  EXPECT_NE(m.error().message.find("not on a hugetlbfs mount"), std::string::npos)
      << m.error().message;
  EXPECT_NE(m.error().message.find("mem=mmaphuge:" + path), std::string::npos)
      << m.error().message;
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "the file it created is left behind";
}

// The machine's huge pages decide which half runs: both check something.
TEST(IoMemory, HugeTypesNeedFreeHugePages) {
  for (IoMem t : {IoMem::kShmHuge, IoMem::kMmapHuge}) {
    auto m = IoMemory::Allocate(Opts(t), 4096);
    if (FreeHugePages() == 0) {
      ASSERT_FALSE(m.ok()) << "mem type " << int(t);
      EXPECT_EQ(m.error().code, -ENOMEM) << m.error().message;
      EXPECT_NE(m.error().message.find("2097152 bytes"), std::string::npos) << m.error().message;
      EXPECT_NE(m.error().message.find("nr_hugepages"), std::string::npos) << m.error().message;
    } else {
      ASSERT_TRUE(m.ok()) << m.error().message;
      EXPECT_EQ(m.value().size(), size_t(2) << 20);  // rounded up to hugepage-size
      m.value().data()[0] = 1;
    }
  }
}

TEST(IoMemory, MemAlignMustKeepODirectsAlignment) {
  EXPECT_TRUE(CheckMemAlign(0, 512, "f").ok());
  EXPECT_TRUE(CheckMemAlign(512, 512, "f").ok());
  EXPECT_TRUE(CheckMemAlign(1, 1, "f").ok());  // buffered I/O
  EXPECT_TRUE(CheckMemAlign(8192, 4096, "f").ok());
  auto e = CheckMemAlign(512, 4096, "/dev/sdz");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, -EINVAL);
  EXPECT_NE(e.error().message.find("mem_align=512"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("/dev/sdz"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("4096"), std::string::npos) << e.error().message;
  EXPECT_FALSE(CheckMemAlign(1, 512, "f").ok());
}

TEST(SlotPool, BuffersStartMemAlignPastAPageOfTheChosenMemory) {
  for (uint32_t align : {0u, 1u, 512u, 4095u, 8192u}) {
    IoMemoryOptions o = Opts(IoMem::kShm);
    o.align = align;
    SlotPool p;
    ASSERT_TRUE(p.allocate(3, 6000, nullptr, nullptr, o).ok());
    for (uint32_t s = 0; s < 3; s++) {
      const uintptr_t a = reinterpret_cast<uintptr_t>(p[s].buf.data());
      EXPECT_EQ(a % 4096, align % 4096) << "align " << align << " slot " << s;
      EXPECT_NE(MapsLine(p[s].buf.data()).find("/SYSV"), std::string::npos);
      p[s].buf.data()[5999] = 1;  // the whole buffer inside the area
    }
  }
}

}  // namespace
}  // namespace blk::bench
