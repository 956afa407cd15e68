// The fio-style command line: tool flags, --name groups, global options,
// positional job files and errors.
#include "tools/block_bench/jobfile/cmdline.h"

#include <gtest/gtest.h>

#include <chrono>

#include "tests/tools/block_bench/jobfile/test_util.h"

namespace blk::bench {
namespace {

using std::chrono::microseconds;
using testing::Cmd;
using testing::CmdError;
using testing::FakeEnv;

CommandLine Ok(const std::vector<std::string>& args, const FakeEnv& fake = FakeEnv{}) {
  auto r = Cmd(args, fake);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value()) : CommandLine{};
}

TEST(ToolFlags, Defaults) {
  const CommandLine c = Ok({"--name=x"});
  EXPECT_EQ(c.flags, ToolFlags{});
  EXPECT_EQ(c.flags.output, "");
  EXPECT_EQ(c.flags.output_formats, std::vector<OutputFormat>{OutputFormat::kNormal});
  EXPECT_EQ(c.flags.eta, EtaMode::kAuto);
  EXPECT_FALSE(c.flags.parse_only || c.flags.showcmd || c.flags.version || c.flags.help);
}

TEST(ToolFlags, AllFlags) {
  const CommandLine c = Ok({"--output=report.txt", "--output-format=json,json+,json", "--parse-only",
                            "--showcmd", "--eta=never", "--name=x"});
  EXPECT_EQ(c.flags.output, "report.txt");
  EXPECT_EQ(c.flags.output_formats, (std::vector<OutputFormat>{OutputFormat::kJson, OutputFormat::kJsonPlus}));
  EXPECT_TRUE(c.flags.parse_only);
  EXPECT_TRUE(c.flags.showcmd);
  EXPECT_EQ(c.flags.eta, EtaMode::kNever);
  EXPECT_EQ(Ok({"--eta", "always", "--name=x"}).flags.eta, EtaMode::kAlways);
  EXPECT_EQ(Ok({"--output", "out.json", "--name=x"}).flags.output, "out.json");
  EXPECT_EQ(Ok({"--output-format=normal,json", "--name=x"}).flags.output_formats,
            (std::vector<OutputFormat>{OutputFormat::kNormal, OutputFormat::kJson}));
  EXPECT_EQ(Name(OutputFormat::kJsonPlus), "json+");
  EXPECT_EQ(Name(EtaMode::kNever), "never");
  EXPECT_TRUE(Ok({"--merge-blktrace-only", "--name=x"}).flags.merge_blktrace_only);
  EXPECT_FALSE(Ok({"--name=x"}).flags.merge_blktrace_only);
}

// fio's terse flags: --minimal replaces the formats, --append-terse adds
// terse once, --terse-version picks the layout.
TEST(ToolFlags, TerseFlags) {
  EXPECT_EQ(Ok({"--minimal", "--name=x"}).flags.output_formats,
            std::vector<OutputFormat>{OutputFormat::kTerse});
  EXPECT_EQ(Ok({"--output-format=json", "--append-terse", "--append-terse", "--name=x"}).flags.output_formats,
            (std::vector<OutputFormat>{OutputFormat::kJson, OutputFormat::kTerse}));
  EXPECT_EQ(Ok({"--output-format=terse,normal", "--name=x"}).flags.output_formats,
            (std::vector<OutputFormat>{OutputFormat::kTerse, OutputFormat::kNormal}));
  EXPECT_EQ(Ok({"--name=x"}).flags.terse_version, 3);
  EXPECT_EQ(Ok({"--terse-version=5", "--name=x"}).flags.terse_version, 5);
  EXPECT_EQ(Name(OutputFormat::kTerse), "terse");
}

// fio's flags that harnesses pass to every run.
TEST(ToolFlags, FioHarnessFlags) {
  const CommandLine c = Ok({"--max-jobs=8", "--warnings-fatal", "--bandwidth-log", "--alloc-size=4096",
                            "--eta-newline=2s", "--aux-path=/tmp", "--name=x", "--numjobs=4"});
  EXPECT_EQ(c.flags.max_jobs, 8u);
  EXPECT_TRUE(c.flags.warnings_fatal);
  EXPECT_TRUE(c.flags.bandwidth_log);
  EXPECT_EQ(c.flags.alloc_size_kb, 4096u);
  EXPECT_EQ(c.flags.eta_newline_ms, 2000);
  EXPECT_EQ(c.flags.aux_path, "/tmp");
  EXPECT_EQ(CmdError({"--max-jobs=3", "--name=x", "--numjobs=4"}),
            "<command line>: option '--max-jobs': the jobs need 4 threads, more than --max-jobs=3");
  EXPECT_EQ(CmdError({"--aux-path=/nonexistent/dir", "--name=x"}),
            "<command line>: option '--aux-path': '/nonexistent/dir' is not a directory");
  // --section: only the named jobs; a name that is not there is an error.
  const CommandLine s = Ok({"--section=b", "--name=a", "--name=b", "--name=c"});
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs[0].name, "b");
  EXPECT_EQ(CmdError({"--section=z", "--name=a"}),
            "<command line>: option '--section': no job (section) named 'z'");
  // --readonly: a writing job is refused; reading jobs open read-only.
  EXPECT_EQ(CmdError({"--readonly", "--name=w", "--rw=randwrite"}),
            "<command line>: option '--readonly': job 'w' would write (rw=randwrite)");
  const CommandLine r = Ok({"--readonly", "--name=r", "--rw=read"});
  EXPECT_TRUE(r.jobs[0].readonly);
}

// block-bench's memory limit (run/resources.h): a size, fio's syntax; 0
// (not given) leaves the default.
// fio's --debug / -d: categories accumulate, unknown names are kept for
// the message; --debug=? needs no job.
TEST(ToolFlags, Debug) {
  const CommandLine c = Ok({"--debug=io,nosuch", "-d", "random", "--name=x"});
  EXPECT_EQ(c.flags.debug.mask, Bit(DebugCategory::kIo) | Bit(DebugCategory::kRandom));
  EXPECT_EQ(c.flags.debug.unknown, std::vector<std::string>{"nosuch"});
  EXPECT_FALSE(c.flags.debug_list);
  EXPECT_TRUE(Ok({"--debug=?"}).flags.debug_list);
}

// fio's JSON echo of command-line jobs: "name" first; options before the
// first --name are the global ones (present only when there are some).
TEST(JobOptionsOnCommandLine, WrittenAsFioEchoesThem) {
  using List = WrittenOptions::List;
  const CommandLine c = Ok({"--size=1m", "--name=x", "--bs=4k", "--name=y"});
  ASSERT_EQ(c.jobs.size(), 2u);
  EXPECT_TRUE(c.jobs[0].written.global_section);
  EXPECT_EQ(c.jobs[0].written.global, (List{{"size", "1m"}}));
  EXPECT_EQ(c.jobs[0].written.job, (List{{"name", "x"}, {"bs", "4k"}}));
  EXPECT_EQ(c.jobs[1].written.job, (List{{"name", "y"}}));
  EXPECT_FALSE(Ok({"--name=x", "--size=1m"}).jobs[0].written.global_section);
}

TEST(ToolFlags, BlkstackMaxMemory) {
  EXPECT_EQ(Ok({"--name=x"}).flags.max_memory, 0u);
  EXPECT_EQ(Ok({"--blkstack-max-memory=2g", "--name=x"}).flags.max_memory, uint64_t(2) << 30);
  EXPECT_EQ(Ok({"--blkstack-max-memory", "512m", "--name=x"}).flags.max_memory, uint64_t(512) << 20);
  EXPECT_NE(CmdError({"--blkstack-max-memory=lots", "--name=x"}).find("'--blkstack-max-memory'"),
            std::string::npos);
  EXPECT_NE(CmdError({"--blkstack-max-memory=0", "--name=x"}).find("'--blkstack-max-memory'"),
            std::string::npos);
}

// kb_base applies to every size of its job on the command line too, wherever
// it stands (fio applies command-line options in order; docs/block-bench.md).
TEST(JobOptionsOnCommandLine, KbBaseAppliesWhereverItStands) {
  for (const auto& args : {std::vector<std::string>{"--name=a", "--kb_base=1000", "--size=1m", "--bs=4k"},
                           std::vector<std::string>{"--name=a", "--size=1m", "--bs=4k", "--kb_base=1000"}}) {
    const CommandLine c = Ok(args);
    ASSERT_EQ(c.jobs.size(), 1u);
    ASSERT_TRUE(c.jobs[0].size);
    EXPECT_EQ(c.jobs[0].size->value, 1000000u) << args[1];
    EXPECT_EQ(c.jobs[0].bs[0].min, 4000u) << args[1];
  }
}

TEST(ToolFlags, HelpAndVersionNeedNoJobs) {
  FakeEnv fake;
  std::vector<std::string> reads;
  fake.reads = &reads;
  const CommandLine h = Ok({"--help", "job.fio"}, fake);
  EXPECT_TRUE(h.flags.help);
  EXPECT_TRUE(h.jobs.empty());
  EXPECT_TRUE(reads.empty()) << "job files are not read with --help";
  EXPECT_TRUE(Ok({"-h"}).flags.help);
  EXPECT_TRUE(Ok({"--version"}).flags.version);
  EXPECT_NE(UsageText().find("--output-format"), std::string::npos);
  EXPECT_NE(UsageText().find("iodepth_batch_submit, iodepth_batch"), std::string::npos);
  EXPECT_NE(UsageText().find("blockdev"), std::string::npos);
}

TEST(ToolFlags, Errors) {
  EXPECT_NE(CmdError({"--terse-version=2", "--name=x"}).find("version 2 (no fio version field"),
            std::string::npos);
  EXPECT_EQ(CmdError({"--terse-version=6", "--name=x"}),
            "<command line>: option '--terse-version': expected 3, 4 or 5, got '6'");
  EXPECT_EQ(CmdError({"--minimal=1", "--name=x"}),
            "<command line>: option '--minimal': takes no value");
  EXPECT_EQ(CmdError({"--output-format=xml", "--name=x"}),
            "<command line>: option '--output-format': expected normal, json, json+ or terse (comma-separated), got 'xml'");
  EXPECT_EQ(CmdError({"--eta=sometimes", "--name=x"}),
            "<command line>: option '--eta': expected always, never or auto, got 'sometimes'");
  EXPECT_EQ(CmdError({"--showcmd=1", "--name=x"}), "<command line>: option '--showcmd': takes no value");
  EXPECT_EQ(CmdError({"--name=x", "--output"}), "<command line>: option '--output': requires a value");
  EXPECT_EQ(CmdError({"--output=", "--name=x"}), "<command line>: option '--output': requires a value");
  EXPECT_EQ(CmdError({"--name="}), "<command line>: option '--name': requires a value");
  EXPECT_EQ(CmdError({"--name", ""}), "<command line>: option '--name': expected a non-empty job name");
  EXPECT_EQ(CmdError({"--=x"}), "<command line>: malformed argument '--=x'");
}

TEST(Jobs, OneJobFromOptions) {
  const CommandLine c = Ok({"--name=x", "--rw=randread", "--bs=4k", "--iodepth=16", "--time_based",
                            "--runtime=10", "--ioengine=libaio"});
  ASSERT_EQ(c.jobs.size(), 1u);
  const JobOptions& j = c.jobs[0];
  EXPECT_EQ(j.name, "x");
  EXPECT_EQ(j.rw, RwMode::kRandRead);
  EXPECT_EQ(j.bs[0].min, 4096u);
  EXPECT_EQ(j.iodepth, 16u);
  EXPECT_TRUE(j.time_based);
  EXPECT_EQ(j.runtime, microseconds(10'000'000));
  EXPECT_EQ(j.ioengine, IoEngine::kLibaio);
}

TEST(Jobs, SameMeaningAsTheJobFile) {
  FakeEnv fake;
  fake.files["job.fio"] =
      "[random-writers]\nioengine=libaio\niodepth=4\nrw=randwrite\nbs=32k\ndirect=0\nsize=64m\nnumjobs=4\n";
  const CommandLine from_file = Ok({"job.fio"}, fake);
  const CommandLine from_args = Ok({"--name=random-writers", "--ioengine=libaio", "--iodepth=4",
                                    "--rw=randwrite", "--bs=32k", "--direct=0", "--size=64m", "--numjobs=4"});
  ASSERT_EQ(from_file.jobs.size(), 1u);
  ASSERT_EQ(from_args.jobs.size(), 1u);
  EXPECT_EQ(from_file.jobs[0], from_args.jobs[0]);
}

TEST(Jobs, GlobalOptionsBeforeFirstName) {
  const CommandLine c = Ok({"--rw=randread", "--size=128m", "--name=job1", "--name=job2", "--bs=8k"});
  ASSERT_EQ(c.jobs.size(), 2u);
  EXPECT_EQ(c.jobs[0].name, "job1");
  EXPECT_EQ(c.jobs[0].rw, RwMode::kRandRead);
  EXPECT_EQ(c.jobs[0].size, (SizeSpec{128ull << 20, false}));
  EXPECT_EQ(c.jobs[0].bs[0].min, 4096u) << "--bs belongs to job2 only";
  EXPECT_EQ(c.jobs[1].rw, RwMode::kRandRead);
  EXPECT_EQ(c.jobs[1].bs[0].min, 8192u);
}

TEST(Jobs, NameGlobalStartsAGlobalGroup) {
  // The fio manual's example.
  const CommandLine c = Ok({"--name=global", "--rw=randread", "--size=128m", "--name=job1", "--name=job2"});
  ASSERT_EQ(c.jobs.size(), 2u);
  EXPECT_EQ(c.jobs[1].name, "job2");
  EXPECT_EQ(c.jobs[1].rw, RwMode::kRandRead);
  // A later global group affects later jobs only.
  const CommandLine d = Ok({"--name=a", "--name=global", "--iodepth=8", "--name=b"});
  ASSERT_EQ(d.jobs.size(), 2u);
  EXPECT_EQ(d.jobs[0].iodepth, 1u);
  EXPECT_EQ(d.jobs[1].iodepth, 8u);
}

TEST(Jobs, ValueSpellings) {
  const CommandLine c = Ok({"--name", "x", "--bs", "8k", "-iodepth=4", "--write_bw_log", "--norandommap",
                            "--blockdev=driver=null,size=1G", "--description", "two words"});
  ASSERT_EQ(c.jobs.size(), 1u);
  const JobOptions& j = c.jobs[0];
  EXPECT_EQ(j.name, "x");
  EXPECT_EQ(j.bs[0].min, 8192u);
  EXPECT_EQ(j.iodepth, 4u);
  EXPECT_EQ(j.write_bw_log, std::optional<std::string>(""));
  EXPECT_TRUE(j.norandommap);
  EXPECT_EQ(j.blockdev, "driver=null,size=1G");
  EXPECT_EQ(j.description, "two words");
}

TEST(Jobs, KeywordsButNotVariablesOnTheCommandLine) {
  FakeEnv fake;
  fake.vars["X"] = "expanded";
  const CommandLine c = Ok({"--name=x", "--numjobs=$ncpus", "--iodepth=$ncpus*4", "--description=${X}"}, fake);
  ASSERT_EQ(c.jobs.size(), 1u);
  EXPECT_EQ(c.jobs[0].numjobs, 8u);
  EXPECT_EQ(c.jobs[0].iodepth, 32u);
  EXPECT_EQ(c.jobs[0].description, "${X}") << "the shell expands variables, not block-bench";
}

TEST(JobFiles, PositionalArgumentsAfterCommandLineJobs) {
  FakeEnv fake;
  fake.files["a.fio"] = "[global]\nbs=16k\n[a1]\n[a2]\niodepth=2\n";
  fake.files["b.fio"] = "[b1]\n[b2]\n";
  const CommandLine c = Ok({"--iodepth=8", "a.fio", "--name=cmd", "b.fio"}, fake);
  EXPECT_EQ(c.job_files, (std::vector<std::string>{"a.fio", "b.fio"}));
  ASSERT_EQ(c.jobs.size(), 5u);
  EXPECT_EQ(c.jobs[0].name, "cmd");
  EXPECT_EQ(c.jobs[1].name, "a1");
  EXPECT_EQ(c.jobs[1].iodepth, 8u) << "command-line globals are the job files' defaults";
  EXPECT_EQ(c.jobs[1].bs[0].min, 16384u);
  EXPECT_EQ(c.jobs[2].iodepth, 2u);
  EXPECT_EQ(c.jobs[3].name, "b1");
  EXPECT_EQ(c.jobs[3].bs[0].min, 4096u) << "a file's [global] does not reach the next file";
  EXPECT_EQ(c.jobs[3].iodepth, 8u);
  EXPECT_FALSE(c.jobs[1].stonewall);
  EXPECT_TRUE(c.jobs[3].stonewall) << "fio stonewalls between job files";
  EXPECT_FALSE(c.jobs[4].stonewall);
}

TEST(JobFiles, DoubleDashEndsOptions) {
  FakeEnv fake;
  fake.files["-odd.fio"] = "[odd]\n";
  const CommandLine c = Ok({"--", "-odd.fio"}, fake);
  ASSERT_EQ(c.jobs.size(), 1u);
  EXPECT_EQ(c.jobs[0].name, "odd");
}

TEST(Errors, OptionErrorsNameTheOption) {
  EXPECT_EQ(CmdError({"--name=x", "--bs=4q"}),
            "<command line>: option '--bs': expected a size >= 1 (a number with an optional k/m/g/t/p "
            "suffix), got '4q'");
  EXPECT_EQ(CmdError({"--name=x", "--iodepht=4"}),
            "<command line>: unknown option '--iodepht' (did you mean '--iodepth'?)");
  EXPECT_EQ(CmdError({"--name=x", "--profile=x"}),
            "<command line>: option '--profile' is not supported by block-bench (fio's profiles are "
            "not supported)");
  EXPECT_EQ(CmdError({"--name=x", "--conf=x"}),
            "<command line>: option '--conf' is only valid with ioengine=rados (ioengine is psync)");
  EXPECT_EQ(CmdError({"--name=x", "--iodepth"}), "<command line>: option '--iodepth': requires a value");
  EXPECT_EQ(CmdError({"--name=x", "--pool=p"}),
            "<command line>: option '--pool' is only valid with ioengine=rbd or rados (ioengine is psync)");
  EXPECT_EQ(CmdError({"--name=x", "--iodepth_batch_complete_min=4", "--iodepth_batch_complete_max=2"}),
            "<command line>: job 'x': iodepth_batch_complete_max (2) is less than iodepth_batch_complete_min (4)");
}

TEST(Errors, DeepExpressionIsAnErrorNotACrash) {
  const std::string deep = std::string(30000, '(') + "4k" + std::string(30000, ')');
  const std::string err = CmdError({"--name=x", "--bs=" + deep});
  EXPECT_EQ(err.rfind("<command line>: option '--bs': expected a size", 0), 0u) << err.substr(0, 300);
  EXPECT_NE(err.find("nested more than 64 levels deep"), std::string::npos) << err.substr(0, 300);
}

TEST(Errors, LongInputIsQuotedBriefly) {
  const std::string big(1 << 20, 'y');
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--eta=" + big}, {"--output-format=" + big},
        {"--name=x", "--" + big + "=1"}, {"--name=x", "--bs=" + big}, {"--name=" + big,
        "--iodepth_batch_complete_min=4", "--iodepth_batch_complete_max=2"}}) {
    const std::string err = CmdError(args);
    EXPECT_EQ(err.rfind("<command line>: ", 0), 0u) << err.substr(0, 300);
    EXPECT_NE(err.find("...(" ), std::string::npos) << err.substr(0, 300);
    EXPECT_LT(err.size(), 400u) << err.substr(0, 300);
  }
}

TEST(Errors, OffsetAndSizeMustFitATarget) {
  // 2^64-4096 + 8k wrapped around to a 4 KiB null device.
  EXPECT_EQ(CmdError({"--name=x", "--ioengine=null", "--offset=18446744073709547520", "--size=8k"}),
            "<command line>: job 'x': offset (18446744073709547520) is beyond the largest possible "
            "target (9223372036854775807 bytes)");
  EXPECT_EQ(CmdError({"--name=x", "--ioengine=null", "--offset=9223372036854775807", "--size=4k"}),
            "<command line>: job 'x': offset (9223372036854775807) + size (4096) is beyond the "
            "largest possible target (9223372036854775807 bytes)");
  EXPECT_EQ(CmdError({"--name=x", "--offset=9223372036854775808"}),
            "<command line>: job 'x': offset (9223372036854775808) is beyond the largest possible "
            "target (9223372036854775807 bytes)");
  // Up to the limit, and percentages, are fine.
  EXPECT_EQ(CmdError({"--name=x", "--offset=9223372036854771711", "--size=4k"}), "<no error>");
  EXPECT_EQ(CmdError({"--name=x", "--offset=100%", "--size=100%"}), "<no error>");
  FakeEnv fake;
  fake.files["j.fio"] = "[global]\noffset=9223372036854775807\n[a]\nsize=1m\n";
  EXPECT_EQ(CmdError({"j.fio"}, fake),
            "j.fio:3: job 'a': offset (9223372036854775807) + size (1048576) is beyond the largest "
            "possible target (9223372036854775807 bytes)");
}

TEST(Errors, NoJobs) {
  EXPECT_EQ(CmdError({}), "<command line>: no jobs defined (give a job file or --name=NAME with job options)");
  EXPECT_EQ(CmdError({"--rw=read"}),
            "<command line>: no jobs defined (give a job file or --name=NAME with job options)");
}

// A job file that defines no job (only [global], or nothing) is named in
// the error: the file lacks the job, not the command line.
TEST(Errors, AJobFileWithoutJobsIsNamed) {
  FakeEnv fake;
  fake.files["g.fio"] = "[global]\nbs=4k\n";
  fake.files["empty.fio"] = "; nothing\n";
  EXPECT_EQ(CmdError({"g.fio"}, fake),
            "g.fio: no jobs defined (the file has no job section; [global] alone defines none)");
  EXPECT_EQ(CmdError({"--rw=read", "empty.fio"}, fake),
            "empty.fio: no jobs defined (the file has no job section; [global] alone defines none)");
  // A job on the command line is enough.
  EXPECT_EQ(Ok({"--name=x", "g.fio"}, fake).jobs.size(), 1u);
}

// --parse-only needs no job (fio's dry run): the global options are parsed
// (and kept for --debug=parse), and a bad one is still an error.
TEST(ParseOnly, NeedsNoJob) {
  FakeEnv fake;
  fake.files["g.fio"] = "[global]\nbs=4k\n";
  const CommandLine c = Ok({"--parse-only", "--ss=iops:10", "--ss_dur=10s"});
  EXPECT_TRUE(c.jobs.empty());
  EXPECT_EQ(c.globals.ss.limit, 10);
  EXPECT_FALSE(c.globals.ss.pct);
  EXPECT_TRUE(Ok({"--parse-only", "g.fio"}, fake).jobs.empty());
  EXPECT_NE(CmdError({"--parse-only", "--ss=nonsense"}).find("expected iops, iops_slope"),
            std::string::npos);
}

// FromSystem's reader refuses a device at once and names it.
TEST(Errors, ADeviceAsJobFileIsRefused) {
  const auto t0 = std::chrono::steady_clock::now();
  auto cl = ParseCommandLine({"/dev/zero"}, ParseEnvironment::FromSystem());
  ASSERT_FALSE(cl.ok());
  EXPECT_EQ(cl.error().message,
            "cannot read job file '/dev/zero': a character device, not a job file (read from a "
            "regular file or a pipe)");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

TEST(Errors, JobFileErrorsKeepTheirLocation) {
  FakeEnv fake;
  fake.files["bad.fio"] = "[a]\n\nbs=big\n";
  EXPECT_EQ(CmdError({"bad.fio"}, fake),
            "bad.fio:3: option 'bs': expected a size >= 1 (a number with an optional k/m/g/t/p suffix), got "
            "'big'");
  EXPECT_EQ(CmdError({"missing.fio"}, fake), "cannot read job file 'missing.fio': No such file or directory");
}

}  // namespace
}  // namespace blk::bench

namespace blk::bench {
namespace {

// --cmdhelp: supported (with the alias named), refused with the reason,
// unknown; "all" lists every supported option.
TEST(ToolFlags, CmdHelp) {
  bool known = false;
  const std::string s = CmdHelp("bs, readwrite,profile", &known);
  EXPECT_TRUE(known);
  EXPECT_EQ(s.rfind("bs: supported: ", 0), 0u) << s;
  EXPECT_NE(s.find("\nreadwrite: supported (alias of rw): "), std::string::npos) << s;
  EXPECT_NE(s.find("\nprofile: refused: fio's profiles are not supported"),
            std::string::npos) << s;
  EXPECT_EQ(CmdHelp("http_host", &known), "http_host: unknown to block-bench\n");
  EXPECT_FALSE(known);
  const std::string all = CmdHelp("all", &known);
  EXPECT_TRUE(known);
  EXPECT_NE(all.find("\niodepth: supported: "), std::string::npos);
  EXPECT_EQ(all.find(": refused: "), std::string::npos);  // "all" lists only supported ones
  const CommandLine c = Ok({"--cmdhelp=bs"});  // no job needed
  EXPECT_EQ(c.flags.cmdhelp, std::optional<std::string>("bs"));
  EXPECT_EQ(Ok({"--cmdhelp"}).flags.cmdhelp, std::optional<std::string>("all"));
}

}  // namespace
}  // namespace blk::bench
