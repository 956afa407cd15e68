// Job file syntax and semantics: comments, sections, [global] inheritance,
// include, ${VAR} and keyword substitution, and error locations.
#include "tools/block_bench/jobfile/jobfile.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/tools/block_bench/jobfile/test_util.h"

namespace blk::bench {
namespace {

using std::chrono::microseconds;
using testing::FakeEnv;
using testing::FileError;

std::vector<JobOptions> Parse(const std::string& text, const FakeEnv& fake = FakeEnv{},
                              const std::string& name = "job.fio") {
  auto jobs = ParseJobText(text, name, fake.Env());
  EXPECT_TRUE(jobs.ok()) << (jobs.ok() ? "" : jobs.error().message);
  return jobs.ok() ? jobs.value() : std::vector<JobOptions>{};
}

TEST(Syntax, CommentsBlankLinesAndSpaces) {
  const auto jobs = Parse(
      "; leading comment\n"
      "# another\n"
      "\n"
      "[a]   ; comment after a header\n"
      "  bs = 8k  \n"
      "iodepth=4 ; trailing comment, as fio allows\n"
      "numjobs=2# hash comment\n"
      "\t\n"
      "   ;indented comment\n"
      "rw=randread\r\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].name, "a");
  EXPECT_EQ(jobs[0].bs[0].min, 8192u);
  EXPECT_EQ(jobs[0].iodepth, 4u);
  EXPECT_EQ(jobs[0].numjobs, 2u);
  EXPECT_EQ(jobs[0].rw, RwMode::kRandRead);
}

// fio's JSON echo: each name once where first written, with its last
// value; options without a value are not echoed; [global] apart.
TEST(Written, AsFioEchoesThem) {
  using List = WrittenOptions::List;
  const auto jobs = Parse("[global]\nioengine=null\nthread\n[a]\nbs=4k\nsize=1m\nbs=8k\n"
                          "group_reporting\n[b]\nrw=write\n");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_TRUE(jobs[0].written.global_section);
  EXPECT_EQ(jobs[0].written.global, (List{{"ioengine", "null"}}));
  EXPECT_EQ(jobs[0].written.job, (List{{"bs", "8k"}, {"size", "1m"}}));
  EXPECT_EQ(jobs[1].written.job, (List{{"rw", "write"}}));
  EXPECT_FALSE(Parse("[a]\nsize=1m\n")[0].written.global_section);
}

TEST(Syntax, EmptyFileHasNoJobs) {
  EXPECT_TRUE(Parse("").empty());
  EXPECT_TRUE(Parse("; nothing\n[global]\nbs=8k\n").empty());
}

TEST(Syntax, SectionsBecomeJobsInOrder) {
  const auto jobs = Parse("[first]\n[second job]\nrw=write\n[third]\n");
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].name, "first");
  EXPECT_EQ(jobs[1].name, "second job");
  EXPECT_EQ(jobs[1].rw, RwMode::kWrite);
  EXPECT_EQ(jobs[2].rw, RwMode::kRead);
}

TEST(Syntax, Errors) {
  EXPECT_EQ(FileError("bs=4k\n"), "job.fio:1: option 'bs' outside of a [section]");
  EXPECT_EQ(FileError("[a\n"), "job.fio:1: malformed section header '[a'");
  EXPECT_EQ(FileError("\n[ ]\n"), "job.fio:2: empty section name '[]'");
  EXPECT_EQ(FileError("[a]\n=4k\n"), "job.fio:2: missing option name in '=4k'");
}

TEST(Errors, UnknownOptionSuggestsTheClosest) {
  EXPECT_EQ(FileError("[a]\nbs=4k\n\n\n\n\niodepht=4\n"),
            "job.fio:7: unknown option 'iodepht' (did you mean 'iodepth'?)");
  EXPECT_EQ(FileError("[a]\nrunetime=4\n"), "job.fio:2: unknown option 'runetime' (did you mean 'runtime'?)");
  EXPECT_EQ(FileError("[a]\nfrobnicate=1\n"), "job.fio:2: unknown option 'frobnicate'");
}

TEST(Errors, UnsupportedFioOptionsAreRejected) {
  EXPECT_EQ(FileError("[a]\nprofile=tiobench\n"),
            "job.fio:2: option 'profile' is not supported by block-bench (fio's profiles are not supported)");
  EXPECT_EQ(FileError("[global]\nchunk_size=x\n[a]\n"),
            "job.fio:2: option 'chunk_size' is not supported by block-bench (an option of fio's "
            "dfs engine; block-bench has no such engine)");
}

// fio's thread (threads instead of processes) is what block-bench always
// does; timeout is fio's alias of runtime.
TEST(Options, ThreadIsAcceptedAndTimeoutIsRuntime) {
  const auto jobs = Parse("[global]\nthread\ntimeout=7\n[a]\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_TRUE(jobs[0].thread);
  EXPECT_EQ(jobs[0].runtime, std::chrono::seconds(7));
}

TEST(Errors, ValueErrorsNameFileLineAndOption) {
  EXPECT_EQ(FileError("[global]\nbs=4k\n\n[a]\nrw=read\n\n\n\n\n\n\niodepth=abc\n"),
            "job.fio:12: option 'iodepth': expected an integer >= 1, got 'abc'");
}

TEST(Errors, LongInputIsQuotedBriefly) {
  // Messages used to echo the whole input back (up to megabytes).
  const std::string big(1 << 20, 'x');
  const std::string rest = "...(" + std::to_string((1 << 20) - 80) + " more bytes)'";
  const std::string x80(80, 'x');
  EXPECT_EQ(FileError("[a]\nbs=" + big + "\n"),
            "job.fio:2: option 'bs': expected a size >= 1 (a number with an optional k/m/g/t/p "
            "suffix), got '" + x80 + rest);
  EXPECT_EQ(FileError("[a]\n" + big + "=1\n"), "job.fio:2: unknown option '" + x80 + rest);
  EXPECT_EQ(FileError("[" + big + "\n"), "job.fio:1: malformed section header '[" +
                                             std::string(79, 'x') + "...(" +
                                             std::to_string((1 << 20) - 79) + " more bytes)'");
  EXPECT_EQ(FileError("[a]\ninclude " + big + "\n"),
            "job.fio:2: cannot read include file '" + x80 + rest + ": No such file or directory");
  for (const std::string option : {"rw", "ioengine", "verify", "random_distribution",
                                   "bssplit", "rate_process", "continue_on_error", "filename"}) {
    const std::string value = option == "filename" ? "a::" + big : big;
    const std::string err = FileError("[a]\n" + option + "=" + value + "\n");
    EXPECT_NE(err.find(" more bytes)'"), std::string::npos) << err.substr(0, 300);
    EXPECT_LT(err.size(), 400u) << option << ": " << err.substr(0, 300);
  }
}

TEST(Global, AppliesToLaterJobsOnly) {
  const auto jobs = Parse(
      "[early]\n"
      "[global]\n"
      "bs=8k\n"
      "iodepth=4\n"
      "[a]\n"
      "[b]\n"
      "iodepth=16\n"
      "[global]\n"
      "rw=randwrite\n"
      "iodepth=2\n"
      "[c]\n");
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].bs[0].min, 4096u) << "a job is not affected by a later [global]";
  EXPECT_EQ(jobs[1].bs[0].min, 8192u);
  EXPECT_EQ(jobs[1].iodepth, 4u);
  EXPECT_EQ(jobs[2].iodepth, 16u) << "jobs override [global]";
  EXPECT_EQ(jobs[2].rw, RwMode::kRead);
  EXPECT_EQ(jobs[3].rw, RwMode::kRandWrite) << "second [global] adds to the first";
  EXPECT_EQ(jobs[3].bs[0].min, 8192u);
  EXPECT_EQ(jobs[3].iodepth, 2u);
}

TEST(Global, JobDoesNotLeakIntoNextJob) {
  const auto jobs = Parse("[a]\niodepth=8\n[b]\n");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[1].iodepth, 1u);
}

TEST(Global, NameInGlobalIsOverriddenBySectionName) {
  const auto jobs = Parse("[global]\nname=g\n[a]\n[b]\nname=bee\n");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "a");
  EXPECT_EQ(jobs[1].name, "bee");
}

TEST(Global, CallerDefaultsAreTheStart) {
  JobOptions defaults;
  defaults.iodepth = 64;
  auto jobs = ParseJobText("[a]\n[b]\niodepth=2\n", "job.fio", FakeEnv{}.Env(), defaults);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(jobs.value()[0].iodepth, 64u);
  EXPECT_EQ(jobs.value()[1].iodepth, 2u);
}

TEST(Include, RelativeToTheIncludingFile) {
  FakeEnv fake;
  fake.files["conf/main.fio"] =
      "[global]\n"
      "filename=/tmp/test\n"
      "include glob-include.fio\n"
      "[test]\n"
      "rw=randread\n"
      "include sub/test-include.fio\n"
      "iodepth=8\n";
  fake.files["conf/glob-include.fio"] = "; shared settings\ngroup_reporting=1\nbs=16k\n";
  fake.files["conf/sub/test-include.fio"] = "ioengine=libaio\niodepth=4\ninclude ../more.fio\n";
  fake.files["conf/more.fio"] = "numjobs=3\n";
  auto jobs = ParseJobFile("conf/main.fio", fake.Env());
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  ASSERT_EQ(jobs.value().size(), 1u);
  const JobOptions& j = jobs.value()[0];
  EXPECT_TRUE(j.group_reporting);
  EXPECT_EQ(j.bs[1].min, 16384u);
  EXPECT_EQ(j.ioengine, IoEngine::kLibaio);
  EXPECT_EQ(j.numjobs, 3u);
  EXPECT_EQ(j.iodepth, 8u) << "options after the include still apply in order";
}

TEST(Include, AbsolutePathsAndEnvironment) {
  FakeEnv fake;
  fake.vars["INC"] = "/etc/bench";
  fake.files["/etc/bench/common.fio"] = "bs=64k\n";
  fake.files["job.fio"] = "[a]\ninclude ${INC}/common.fio\n";
  auto jobs = ParseJobFile("job.fio", fake.Env());
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  EXPECT_EQ(jobs.value()[0].bs[0].min, 65536u);
}

TEST(Include, ErrorsInIncludedFilesNameThatFile) {
  FakeEnv fake;
  fake.files["dir/main.fio"] = "[a]\ninclude inc.fio\n";
  fake.files["dir/inc.fio"] = "bs=4k\n\niodepth=zero\n";
  auto jobs = ParseJobFile("dir/main.fio", fake.Env());
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.error().message, "dir/inc.fio:3: option 'iodepth': expected an integer >= 1, got 'zero'");
}

TEST(Include, Errors) {
  FakeEnv fake;
  fake.files["job.fio"] = "[a]\ninclude missing.fio\n";
  EXPECT_EQ(ParseJobFile("job.fio", fake.Env()).error().message,
            "job.fio:2: cannot read include file 'missing.fio': No such file or directory");

  fake.files["job.fio"] = "include x.fio\n[a]\n";
  EXPECT_EQ(ParseJobFile("job.fio", fake.Env()).error().message,
            "job.fio:1: 'include' outside of a [section]");

  fake.files["job.fio"] = "[a]\ninclude sect.fio\n";
  fake.files["sect.fio"] = "bs=4k\n[b]\n";
  EXPECT_EQ(ParseJobFile("job.fio", fake.Env()).error().message,
            "sect.fio:2: included files may not contain sections ('[...]')");

  fake.files["job.fio"] = "[a]\ninclude loop1.fio\n";
  fake.files["loop1.fio"] = "include loop2.fio\n";
  fake.files["loop2.fio"] = "include ./loop1.fio\n";
  EXPECT_EQ(ParseJobFile("job.fio", fake.Env()).error().message,
            "loop2.fio:1: include cycle: './loop1.fio' is already being read");

  fake.files["job.fio"] = "[a]\ninclude  \n";
  EXPECT_EQ(ParseJobFile("job.fio", fake.Env()).error().message, "job.fio:2: 'include' needs a file name");

  EXPECT_EQ(ParseJobFile("nope.fio", fake.Env()).error().message,
            "cannot read job file 'nope.fio': No such file or directory");
}

TEST(Include, DepthIsLimited) {
  FakeEnv fake;
  fake.files["job.fio"] = "[a]\ninclude d1.fio\n";
  for (int i = 1; i <= 20; ++i) {
    fake.files["d" + std::to_string(i) + ".fio"] = "include d" + std::to_string(i + 1) + ".fio\n";
  }
  auto jobs = ParseJobFile("job.fio", fake.Env());
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.error().message, "d16.fio:1: includes nested more than 16 deep");
}

TEST(Include, RealFilesOnDisk) {
  char tmpl[] = "/tmp/bbXXXXXX";
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string base = tmp ? std::string(tmp) + "/bbXXXXXX" : std::string(tmpl);
  ASSERT_NE(::mkdtemp(base.data()), nullptr);
  const std::filesystem::path dir(base);
  std::filesystem::create_directories(dir / "inc");
  std::ofstream(dir / "main.fio") << "[global]\ninclude inc/common.fio\n[disk]\nrw=randwrite\n";
  std::ofstream(dir / "inc" / "common.fio") << "ioengine=io_uring\n";
  auto jobs = ParseJobFile((dir / "main.fio").string(), ParseEnvironment::FromSystem());
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  ASSERT_EQ(jobs.value().size(), 1u);
  EXPECT_EQ(jobs.value()[0].ioengine, IoEngine::kIoUring);
  EXPECT_EQ(jobs.value()[0].rw, RwMode::kRandWrite);
  std::filesystem::remove_all(dir);
}

TEST(Environment, VariablesExpandInValues) {
  FakeEnv fake;
  fake.vars["SIZE"] = "64m";
  fake.vars["NUMJOBS"] = "4";
  fake.vars["DEV"] = "/dev/nvme0n1";
  const auto jobs = Parse(
      "[random-writers]\n"
      "rw=randwrite\n"
      "size=${SIZE}\n"
      "numjobs=${NUMJOBS}\n"
      "filename=${DEV}:/dev/extra\n"
      "description=prefix-${UNSET}-suffix\n"
      "blockdev=driver=file,filename=${DEV},aio=native\n",
      fake);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].size, (SizeSpec{64ull << 20, false}));
  EXPECT_EQ(jobs[0].numjobs, 4u);
  EXPECT_EQ(jobs[0].filenames, (std::vector<std::string>{"/dev/nvme0n1", "/dev/extra"}));
  EXPECT_EQ(jobs[0].description, "prefix--suffix") << "unset variables expand to nothing";
  EXPECT_EQ(jobs[0].blockdev, "driver=file,filename=/dev/nvme0n1,aio=native");
}

TEST(Environment, UnterminatedReferenceStaysLiteral) {
  const auto jobs = Parse("[a]\ndescription=cost ${HOME\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].description, "cost ${HOME");
}

TEST(Environment, UnsetVariableInNumericOptionIsAnError) {
  EXPECT_EQ(FileError("[a]\niodepth=${DEPTH}\n"), "job.fio:2: option 'iodepth': expected an integer >= 1, got ''");
}

TEST(Keywords, ReplacedAndEvaluated) {
  const auto jobs = Parse(
      "[a]\n"
      "bs=$pagesize\n"
      "numjobs=$ncpus\n"
      "size=8*$mb_memory\n"
      "iodepth=$ncpus*2\n"
      "description=on $ncpus cpus\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].bs[0].min, 4096u);
  EXPECT_EQ(jobs[0].numjobs, 8u);
  EXPECT_EQ(jobs[0].size, (SizeSpec{8 * 16384, false}));
  EXPECT_EQ(jobs[0].iodepth, 16u);
  EXPECT_EQ(jobs[0].description, "on 8 cpus");
}

TEST(Keywords, SystemValuesArePlausible) {
  const ParseEnvironment env = ParseEnvironment::FromSystem();
  EXPECT_GE(env.pagesize, 4096u);
  EXPECT_GE(env.ncpus, 1u);
  EXPECT_GT(env.mb_memory, 0u);
}

TEST(Arithmetic, ParenthesisedValues) {
  const auto jobs = Parse("[a]\nbs=(4k*2)\nruntime=(1m+30s)\nthinktime=(2*500)\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].bs[0].min, 8192u);
  EXPECT_EQ(jobs[0].runtime, microseconds(90'000'000));
  EXPECT_EQ(jobs[0].thinktime, microseconds(1000));
}

TEST(Arithmetic, DeepNestingIsAnErrorNotACrash) {
  // 30,000 levels overflowed the stack of the recursive evaluator.
  const std::string deep = std::string(30000, '(') + "4k" + std::string(30000, ')');
  for (const std::string option : {"bs", "size", "runtime", "time_based"}) {
    const std::string err = FileError("[a]\n" + option + "=" + deep + "\n");
    EXPECT_EQ(err.rfind("job.fio:2: option '" + option + "': expected ", 0), 0u) << err.substr(0, 300);
    EXPECT_NE(err.find("nested more than 64 levels deep"), std::string::npos) << err.substr(0, 300);
    EXPECT_LT(err.size(), 400u) << "the message quotes the whole value";
  }
}

TEST(Arithmetic, ExpressionErrorsSayWhy) {
  EXPECT_NE(FileError("[a]\nbs=(4k/0)\n").find("got '(4k/0)': division by zero"), std::string::npos)
      << FileError("[a]\nbs=(4k/0)\n");
}

// Jobs are bounded: at most kMaxJobs (fio's 4096), and a [global] value
// copied into many jobs cannot take memory without bound (a 140 KB file of
// one 100 KB description and 10,000 sections took 1 GB).
TEST(Limits, TooManyJobsOrTooMuchCopiedTextIsAnError) {
  std::string many = "[global]\nrw=read\n";
  for (size_t i = 0; i <= kMaxJobs; i++) many += "[j]\n";
  auto r = ParseJobText(many, "many.fio", FakeEnv{}.Env());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("many.fio:4099: more than 4096 jobs"), std::string::npos)
      << r.error().message;
  std::string fat = "[global]\ndescription=" + std::string(100000, 'd') + "\n";
  for (int i = 0; i < 1000; i++) fat += "[a]\n";
  r = ParseJobText(fat, "fat.fio", FakeEnv{}.Env());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("MiB of text"), std::string::npos) << r.error().message;
  // Well within the limits: fine.
  std::string ok = "[global]\ndescription=" + std::string(1000, 'd') + "\n";
  for (int i = 0; i < 1000; i++) ok += "[a]\n";
  EXPECT_EQ(Parse(ok).size(), 1000u);
}

}  // namespace
}  // namespace blk::bench
