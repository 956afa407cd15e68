// Options naming the job and its target: name, description, kb_base,
// ioengine, rbd options, filename, directory, blockdev, direct, buffered,
// invalidate.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/tools/block_bench/jobfile/test_util.h"
#include "tools/block_bench/jobfile/option_table.h"

namespace blk::bench {
namespace {

using testing::FileError;
using testing::OneError;
using testing::ParseOne;

TEST(NameOption, SectionNameUnlessNameGiven) {
  EXPECT_EQ(ParseOne("").name, "job");
  EXPECT_EQ(ParseOne("name=renamed").name, "renamed");
  EXPECT_OPTION_ERROR("name=", 2, "name", "non-empty");
  EXPECT_OPTION_ERROR("name=global", 2, "name", "'global' is reserved");
}

TEST(DescriptionOption, FreeText) {
  EXPECT_EQ(ParseOne("").description, "");
  EXPECT_EQ(ParseOne("description=Random reads, 4k = small").description, "Random reads, 4k = small");
  EXPECT_OPTION_ERROR("description=", 2, "description", "non-empty");
}

TEST(KbBaseOption, ChangesSuffixesOfTheWholeSection) {
  EXPECT_EQ(ParseOne("").kb_base, 1024u);
  JobOptions j = ParseOne("kb_base=1000\nbs=4k\nsize=1MiB");
  EXPECT_EQ(j.kb_base, 1000u);
  EXPECT_EQ(j.bs[0].min, 4000u);
  EXPECT_EQ(j.size->value, 1048576u);
  // Applied first, as fio's option priority does, even when written last.
  j = ParseOne("bs=4k\nkb_base=1000");
  EXPECT_EQ(j.bs[0].min, 4000u);
  EXPECT_OPTION_ERROR("kb_base=1023", 2, "kb_base", "expected 1000 or 1024, got '1023'");
}

TEST(IoEngineOption, SupportedEngines) {
  EXPECT_EQ(ParseOne("").ioengine, IoEngine::kPsync);
  const std::pair<const char*, IoEngine> cases[] = {
      {"psync", IoEngine::kPsync},   {"sync", IoEngine::kSync},        {"pvsync", IoEngine::kPvsync},
      {"pvsync2", IoEngine::kPvsync2}, {"libaio", IoEngine::kLibaio},  {"io_uring", IoEngine::kIoUring},
      {"posixaio", IoEngine::kPosixaio}, {"null", IoEngine::kNull}, {"rbd", IoEngine::kRbd},
      {"nbd", IoEngine::kNbd},       {"mmap", IoEngine::kMmap},        {"falloc", IoEngine::kFalloc},
      {"ftruncate", IoEngine::kFtruncate}, {"filecreate", IoEngine::kFilecreate},
      {"filestat", IoEngine::kFilestat},     {"filedelete", IoEngine::kFiledelete}};
  for (const auto& [text, engine] : cases) {
    EXPECT_EQ(ParseOne(std::string("ioengine=") + text).ioengine, engine) << text;
    EXPECT_EQ(Name(engine), text);
  }
  EXPECT_OPTION_ERROR("ioengine=cpuio2", 2, "ioengine", "unsupported ioengine 'cpuio2'");
  EXPECT_OPTION_ERROR("ioengine=external:/tmp/x.o", 2, "ioengine", "unsupported ioengine");
  EXPECT_OPTION_ERROR("ioengine=dircreate", 2, "ioengine",
                      "unsupported ioengine 'dircreate': fio 3.33 has no such engine");
  EXPECT_OPTION_ERROR("ioengine=posix_aio", 2, "ioengine", "unsupported ioengine");
}

// cpuio's and exec's options: only with their engine, fio's defaults, and
// the engine's required option.
TEST(IoEngineOption, CpuioAndExecOptions) {
  JobOptions j = ParseOne("ioengine=cpuio\ncpuload=150\ncpuchunks=10000\ncpumode=qsort\n"
                          "exit_on_io_done=1\nnrfiles=4");
  EXPECT_EQ(j.ioengine, IoEngine::kCpuio);
  EXPECT_EQ(j.cpuio.load, 150u);  // clamped to 100 when the job runs, as fio's init
  EXPECT_EQ(j.cpuio.chunk.count(), 10000);
  EXPECT_EQ(j.cpuio.mode, CpuioOptions::Mode::kQsort);
  EXPECT_TRUE(j.cpuio.exit_on_io_done);
  EXPECT_EQ(j.nrfiles, 1u);  // fio's cpuio opens no file
  EXPECT_TRUE(MovesNoData(j.ioengine));
  EXPECT_EQ(ParseOne("ioengine=cpuio\ncpuload=5").cpuio.chunk.count(), 50000);
  EXPECT_OPTION_ERROR("ioengine=cpuio\ncpuload=5\ncpumode=spin", 4, "cpumode",
                      "expected noop or qsort, got 'spin'");
  EXPECT_NE(OneError("ioengine=cpuio").find("needs cpuload="), std::string::npos);
  EXPECT_NE(OneError("ioengine=null\ncpuload=5").find("only valid with ioengine=cpuio"),
            std::string::npos);

  j = ParseOne("ioengine=exec\nprogram=/bin/sleep\narguments=%r  x\ngrace_time=0\nstd_redirect=0");
  EXPECT_EQ(j.exec.program, "/bin/sleep");
  EXPECT_EQ(j.exec.arguments, "%r  x");
  EXPECT_EQ(j.exec.grace_time, 0u);
  EXPECT_FALSE(j.exec.std_redirect);
  EXPECT_EQ(ParseOne("ioengine=exec\nprogram=p").exec.grace_time, 1u);
  EXPECT_NE(OneError("ioengine=exec").find("needs program="), std::string::npos);
  EXPECT_FALSE(MovesNoData(ParseOne("ioengine=null").ioengine));

  // filestat's stat_type; the file-system engines may open many files.
  EXPECT_EQ(ParseOne("ioengine=filestat").stat_type, StatType::kStat);
  EXPECT_EQ(ParseOne("ioengine=filestat\nstat_type=statx").stat_type, StatType::kStatx);
  EXPECT_EQ(ParseOne("ioengine=filestat\nstat_type=lstat").stat_type, StatType::kLstat);
  EXPECT_OPTION_ERROR("ioengine=filestat\nstat_type=fstat", 3, "stat_type",
                      "expected stat, lstat or statx, got 'fstat'");
  EXPECT_NE(OneError("ioengine=filecreate\nstat_type=stat").find("only valid with ioengine=filestat"),
            std::string::npos);
  EXPECT_EQ(ParseOne("ioengine=filecreate\nnrfiles=31250").nrfiles, 31250u);
  EXPECT_NE(OneError("ioengine=psync\nnrfiles=31250").find("at most 4096 files"),
            std::string::npos);
  EXPECT_TRUE(TimesFileCalls(IoEngine::kFiledelete));
  EXPECT_FALSE(TimesFileCalls(IoEngine::kNull));
}

// fio's mmap engine init: direct=1, fsync= or fdatasync= need whole pages.
TEST(IoEngineOption, MmapNeedsPageBlocksWithDirectOrSyncs) {
  for (const char* opt : {"direct=1", "fsync=4", "fdatasync=4"}) {
    const std::string e = OneError(std::string("ioengine=mmap\nbs=512\n") + opt);
    EXPECT_NE(e.find("job.fio"), std::string::npos) << e;
    EXPECT_NE(e.find("ioengine=mmap with direct=1, fsync= or fdatasync= needs a block size"),
              std::string::npos)
        << opt << ": " << e;
    EXPECT_EQ(ParseOne(std::string("ioengine=mmap\nbs=8k\n") + opt).ioengine, IoEngine::kMmap);
  }
  EXPECT_EQ(ParseOne("ioengine=mmap\nbs=512").bs[0].min, 512u);  // buffered: any size
  EXPECT_EQ(ParseOne("ioengine=psync\nbs=512\ndirect=1").ioengine, IoEngine::kPsync);
}

TEST(RbdOptions, ValidWithRbdEngine) {
  const JobOptions j =
      ParseOne("ioengine=rbd\npool=bench\nrbdname=img1\nclientname=admin\nclustername=ceph\nbusy_poll=1");
  EXPECT_EQ(j.rbd.pool, "bench");
  EXPECT_EQ(j.rbd.rbdname, "img1");
  EXPECT_EQ(j.rbd.clientname, "admin");
  EXPECT_EQ(j.rbd.clustername, "ceph");
  EXPECT_TRUE(j.rbd.busy_poll);
  // Order within the section does not matter.
  EXPECT_EQ(ParseOne("pool=p\nioengine=rbd").rbd.pool, "p");
  EXPECT_EQ(ParseOne("").rbd, RbdOptions{});
  EXPECT_OPTION_ERROR("ioengine=rbd\nbusy_poll=yes", 3, "busy_poll", "expected 0 or 1");
  EXPECT_OPTION_ERROR("ioengine=rbd\npool=", 3, "pool", "non-empty");
}

TEST(RbdOptions, RejectedWithOtherEngines) {
  EXPECT_EQ(OneError("ioengine=libaio\nrbdname=img"),
            "job.fio:3: option 'rbdname' is only valid with ioengine=rbd (ioengine is libaio)");
  EXPECT_EQ(OneError("pool=p"),
            "job.fio:2: option 'pool' is only valid with ioengine=rbd or rados (ioengine is psync)");
  EXPECT_EQ(OneError("ioengine=rbd\ntouch_objects=0"),
            "job.fio:3: option 'touch_objects' is only valid with ioengine=rados (ioengine is rbd)");
  EXPECT_EQ(OneError("ioengine=rbd\nconf=/etc/ceph/ceph.conf"),
            "job.fio:3: option 'conf' is only valid with ioengine=rados (ioengine is rbd)");
}

TEST(LibaioOptions, UserspaceReap) {
  EXPECT_TRUE(ParseOne("ioengine=libaio\nuserspace_reap=1").libaio.userspace_reap);
  EXPECT_TRUE(ParseOne("ioengine=libaio\nuserspace_reap").libaio.userspace_reap);  // bare, as fio
  EXPECT_FALSE(ParseOne("ioengine=libaio\nuserspace_reap=0").libaio.userspace_reap);
  EXPECT_FALSE(ParseOne("").libaio.userspace_reap);
  EXPECT_OPTION_ERROR("ioengine=libaio\nuserspace_reap=maybe", 3, "userspace_reap", "expected 0 or 1");
  EXPECT_EQ(OneError("userspace_reap=1"),
            "job.fio:2: option 'userspace_reap' is only valid with ioengine=libaio (ioengine is psync)");
  EXPECT_EQ(OneError("ioengine=io_uring\nuserspace_reap=1"),
            "job.fio:3: option 'userspace_reap' is only valid with ioengine=libaio (ioengine is "
            "io_uring)");
}

TEST(RbdOptions, DroppedWhenAJobSwitchesEngine) {
  auto jobs = ParseJobText("[global]\nioengine=rbd\npool=p\n[a]\n[b]\nioengine=null\n", "job.fio",
                           testing::FakeEnv{}.Env());
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  EXPECT_EQ(jobs.value()[0].rbd.pool, "p");
  EXPECT_EQ(jobs.value()[1].rbd, RbdOptions{});
}

TEST(FilenameOption, ColonSeparatedWithEscapes) {
  EXPECT_TRUE(ParseOne("").filenames.empty());
  EXPECT_EQ(ParseOne("filename=/dev/sda").filenames, (std::vector<std::string>{"/dev/sda"}));
  EXPECT_EQ(ParseOne("filename=/dev/sda:/dev/sdb").filenames,
            (std::vector<std::string>{"/dev/sda", "/dev/sdb"}));
  EXPECT_EQ(ParseOne("filename=/dev/dsk/foo@3,0\\:c").filenames,
            (std::vector<std::string>{"/dev/dsk/foo@3,0:c"}));
  EXPECT_OPTION_ERROR("filename=a::b", 2, "filename", "empty entries");
  EXPECT_OPTION_ERROR("filename=", 2, "filename", "got ''");
}

TEST(DirectoryOption, ColonSeparated) {
  EXPECT_TRUE(ParseOne("").directories.empty());
  EXPECT_EQ(ParseOne("directory=/mnt/a:/mnt/b").directories,
            (std::vector<std::string>{"/mnt/a", "/mnt/b"}));
  EXPECT_OPTION_ERROR("directory=:", 2, "directory", "empty entries");
}

TEST(BlockdevOption, TakenVerbatim) {
  EXPECT_EQ(ParseOne("").blockdev, "");
  EXPECT_EQ(ParseOne("blockdev=driver=file,filename=/tmp/x,aio=native,cache.direct=on").blockdev,
            "driver=file,filename=/tmp/x,aio=native,cache.direct=on");
  EXPECT_EQ(ParseOne("blockdev = driver=null,size=1G ").blockdev, "driver=null,size=1G");
  EXPECT_OPTION_ERROR("blockdev=", 2, "blockdev", "non-empty");
}

TEST(BlockdevOption, CheckedAgainstTheDriversWithoutOpening) {
  // Nothing is opened: a file that does not exist is fine at parse time.
  EXPECT_EQ(ParseOne("blockdev=driver=file,filename=/nonexistent/x").blockdev,
            "driver=file,filename=/nonexistent/x");
  EXPECT_EQ(ParseOne("blockdev={\"driver\":\"throttle\",\"file\":{\"driver\":\"null\"}}").blockdev,
            "{\"driver\":\"throttle\",\"file\":{\"driver\":\"null\"}}");
  EXPECT_OPTION_ERROR("blockdev=driver=bogus", 2, "blockdev",
                      "unknown driver 'bogus' (option 'driver'); known drivers: ");
  EXPECT_OPTION_ERROR("blockdev=driver=null,sise=1G", 2, "blockdev",
                      "driver 'null': unknown option 'sise'");
  EXPECT_OPTION_ERROR("rw=read\nblockdev=driver=throttle,file.driver=nul", 3, "blockdev",
                      "node 'file': unknown driver 'nul'");
  EXPECT_OPTION_ERROR("blockdev=size=1G", 2, "blockdev", "missing required option 'driver'");
  EXPECT_OPTION_ERROR("blockdev=driver=null,size", 2, "blockdev", "spec: expected 'key=value'");
  EXPECT_EQ(testing::CmdError({"--name=t", "--blockdev=driver=bogus", "--parse-only"}).rfind(
                "<command line>: option '--blockdev': unknown driver 'bogus'", 0),
            0u);
  // In [global] too, before any job uses it.
  EXPECT_EQ(testing::FileError("[global]\nblockdev=driver=file\n"),
            "job.fio:2: option 'blockdev': driver 'file': missing required option 'filename'");
}

TEST(DirectAndBuffered, AreOneField) {
  EXPECT_FALSE(ParseOne("").direct);
  EXPECT_TRUE(ParseOne("direct=1").direct);
  EXPECT_FALSE(ParseOne("direct=1\ndirect=0").direct);
  EXPECT_TRUE(ParseOne("buffered=0").direct);
  EXPECT_FALSE(ParseOne("direct=1\nbuffered=1").direct);
  EXPECT_OPTION_ERROR("direct=2", 2, "direct", "expected 0 or 1, got '2'");
  EXPECT_OPTION_ERROR("direct", 2, "direct", "requires a value");
  EXPECT_OPTION_ERROR("buffered=x", 2, "buffered", "expected 0 or 1");
}

// fio's atomic=1 opens O_DIRECT plus an O_ATOMIC Linux ignores: direct=1.
TEST(AtomicOption, IsDirect) {
  EXPECT_TRUE(ParseOne("atomic=1").direct);
  EXPECT_FALSE(ParseOne("atomic=0").direct);
  EXPECT_TRUE(ParseOne("direct=1\natomic=0").direct);  // 0 does not undo direct=1, as fio
  EXPECT_FALSE(ParseOne("atomic=1\ndirect=0").direct);
  EXPECT_OPTION_ERROR("atomic=2", 2, "atomic", "expected 0 or 1");
  EXPECT_FALSE(UnsupportedFioOptionReason("atomic"));
}

TEST(InvalidateOption, DefaultsOn) {
  EXPECT_TRUE(ParseOne("").invalidate);
  EXPECT_FALSE(ParseOne("invalidate=0").invalidate);
  EXPECT_OPTION_ERROR("invalidate=off", 2, "invalidate", "expected 0 or 1");
}

TEST(WriteHintOption, FioValuesAsLinuxLifeTimes) {
  EXPECT_EQ(ParseOne("").write_hint, JobOptions::WriteHint::kNotSet);
  EXPECT_EQ(ParseOne("write_hint=none").write_hint, JobOptions::WriteHint::kNone);
  EXPECT_EQ(int(ParseOne("write_hint=none").write_hint), 1);  // RWH_WRITE_LIFE_NONE
  EXPECT_EQ(int(ParseOne("write_hint=short").write_hint), 2);
  EXPECT_EQ(int(ParseOne("write_hint=medium").write_hint), 3);
  EXPECT_EQ(int(ParseOne("write_hint=long").write_hint), 4);
  EXPECT_EQ(int(ParseOne("write_hint=extreme").write_hint), 5);
  EXPECT_OPTION_ERROR("write_hint=forever", 2, "write_hint", "expected none, short");
}

// opendir: every regular file below the directory, recursively, becomes a
// file of the job; links and FIFOs are left out; an empty or missing
// directory is an error naming it.
TEST(OpendirOption, RegularFilesBelowRecursively) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string d = std::string(tmp ? tmp : "/tmp") + "/opendir_test";
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d + "/sub/deeper");
  std::filesystem::create_directories(d + "/empty");
  for (const char* f : {"/a", "/sub/b", "/sub/deeper/c"}) std::ofstream(d + f) << "x";
  std::filesystem::create_symlink(d + "/a", d + "/link");
  ASSERT_EQ(mkfifo((d + "/fifo").c_str(), 0600), 0);
  JobOptions j = ParseOne("opendir=" + d + "/");
  std::vector<std::string> got = j.filenames;
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{d + "/a", d + "/sub/b", d + "/sub/deeper/c"}));
  EXPECT_EQ(j.nrfiles, 3u);
  j = ParseOne("filename=/x/first\nopendir=" + d + "/sub/deeper");
  EXPECT_EQ(j.filenames, (std::vector<std::string>{"/x/first", d + "/sub/deeper/c"}));
  EXPECT_EQ(j.nrfiles, 2u);
  EXPECT_OPTION_ERROR("opendir=" + d + "/empty", 2, "opendir", "no regular file below");
  EXPECT_OPTION_ERROR("opendir=" + d + "/missing", 2, "opendir", "No such file or directory");
  std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace blk::bench
