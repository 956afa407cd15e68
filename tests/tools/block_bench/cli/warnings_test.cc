// The header notes: one line per job and option that runs differently from
// what it asks.
#include "tools/block_bench/cli/warnings.h"

#include <gtest/gtest.h>

#include <fstream>

#include "cli_test_util.h"

namespace blk::bench::cli {
namespace {

using Lines = std::vector<std::string>;
using testing::Jobs;

TEST(JobNotes, NoneForAPlainJob) {
  EXPECT_EQ(JobNotes(Jobs({"--name=j", "--ioengine=null", "--size=1m"})[0]), Lines{});
}

TEST(JobNotes, LibaioWithoutODirectRunsOnThreads) {
  EXPECT_EQ(JobNotes(Jobs({"--name=l", "--ioengine=libaio", "--direct=0",
                              "--filename=/tmp/x", "--size=1m"})[0]),
            Lines{"ioengine=libaio with direct=0 runs on the thread pool (aio=threads): "
                  "buffered io_submit would block the loop"});
  EXPECT_EQ(JobNotes(Jobs({"--name=l", "--ioengine=libaio", "--direct=1",
                              "--filename=/tmp/x", "--size=1m"})[0]),
            Lines{});
}

TEST(JobNotes, ReadIologChunkedOnlyWithATrace) {
  EXPECT_EQ(JobNotes(Jobs({"--name=c", "--ioengine=null", "--size=1m",
                              "--read_iolog_chunked=1"})[0]),
            Lines{});
  const std::string trace = ::testing::TempDir() + "/warnings_test.log";
  std::ofstream(trace) << "fio version 2 iolog\n";
  EXPECT_EQ(JobNotes(Jobs({"--name=c", "--ioengine=null", "--size=1m", "--read_iolog=" + trace,
                              "--read_iolog_chunked=1"})[0]),
            Lines{"read_iolog_chunked: the trace is read whole (24 bytes per record); "
                  "the replay is the same"});
}

TEST(JobNotes, LogCompressionOnlyWhenSet) {
  EXPECT_EQ(JobNotes(Jobs({"--name=b", "--ioengine=null", "--size=1m", "--write_lat_log=b"})[0]),
            Lines{});
  EXPECT_EQ(JobNotes(Jobs({"--name=b", "--ioengine=null", "--size=1m", "--log_compression=4096",
                           "--write_lat_log=b"})[0]),
            Lines{"log_compression: the logs are kept uncompressed in memory; the log files are "
                  "the same"});
}

// Each clone records its own iolog, where fio appends them all to one.
TEST(JobNotes, WriteIologOfClonesOnlyWithNumjobs) {
  EXPECT_EQ(JobNotes(Jobs({"--name=w", "--ioengine=null", "--size=1m", "--write_iolog=w.log"})[0]),
            Lines{});
  EXPECT_EQ(JobNotes(Jobs({"--name=w", "--ioengine=null", "--size=1m", "--write_iolog=w.log",
                           "--numjobs=3"})[0]),
            Lines{"write_iolog: clone N > 0 of numjobs records to w.log.N (fio 3.33 appends "
                  "every job to w.log)"});
}

}  // namespace
}  // namespace blk::bench::cli
