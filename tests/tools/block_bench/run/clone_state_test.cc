// CloneErrors and ContinuesPast (run/clone_state.h): fio's
// continue_on_error rules, which error a job keeps, and how failed requests
// and bad verify blocks are counted.
#include "tools/block_bench/run/clone_state.h"

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <string>
#include <vector>

namespace blk::bench {
namespace {

using C = ContinueOnError;

const char* NameOf(C c) {
  switch (c) {
    case C::kNone: return "none";
    case C::kRead: return "read";
    case C::kWrite: return "write";
    case C::kIo: return "io";
    case C::kVerify: return "verify";
    case C::kAll: return "all";
  }
  return "?";
}

// fio's continue_on_error: read/write name one direction, io both, verify
// only bad blocks, all everything; and only the errors of fio's default
// ignore_error list (EIO, EILSEQ) are ever gone past.
TEST(ContinuesPast, EioAndEilseqInTheNamedDirections) {
  struct Row {
    C c;
    bool read, write;
  };
  const Row rows[] = {
      {C::kNone, false, false}, {C::kRead, true, false}, {C::kWrite, false, true},
      {C::kIo, true, true},     {C::kVerify, false, false}, {C::kAll, true, true},
  };
  for (const Row& r : rows) {
    for (int err : {EIO, EILSEQ}) {
      SCOPED_TRACE(std::string("continue_on_error=") + NameOf(r.c) + " errno " + std::to_string(err));
      EXPECT_EQ(ContinuesPast(r.c, Dir::kRead, err), r.read);
      EXPECT_EQ(ContinuesPast(r.c, Dir::kWrite, err), r.write);
    }
  }
}

TEST(ContinuesPast, OtherErrorsEndTheJobWhateverTheSetting) {
  for (C c : {C::kNone, C::kRead, C::kWrite, C::kIo, C::kVerify, C::kAll}) {
    for (Dir d : {Dir::kRead, Dir::kWrite, Dir::kTrim}) {
      for (int err : {ENOSPC, EBADF, EINVAL, ETIMEDOUT, ENOMEM}) {
        SCOPED_TRACE(std::string(NameOf(c)) + " dir " + std::to_string(int(d)) + " errno " +
                     std::to_string(err));
        EXPECT_FALSE(ContinuesPast(c, d, err));
      }
    }
  }
}

TEST(ContinuesPast, IoAndAllCoverTrims) {
  EXPECT_TRUE(ContinuesPast(C::kIo, Dir::kTrim, EIO));
  EXPECT_TRUE(ContinuesPast(C::kAll, Dir::kTrim, EIO));
  EXPECT_FALSE(ContinuesPast(C::kNone, Dir::kTrim, EIO));
  EXPECT_FALSE(ContinuesPast(C::kRead, Dir::kTrim, EIO));
}

// fio 3.33 (td_error.c, td_error_type): every direction but read is a
// write error, so continue_on_error=write goes past a failed trim (EIO).
// block-bench ends the job.  Disabled: reported, not fixed here.
TEST(ContinuesPast, DISABLED_WriteCoversTrimsAsFio) {
  EXPECT_TRUE(ContinuesPast(C::kWrite, Dir::kTrim, EIO));
}

// fio 3.33 (td_error_type): EILSEQ is a verify error whatever the
// direction, so continue_on_error=verify goes past a read failing with
// EILSEQ and continue_on_error=read does not.  block-bench has it the other
// way round.  Disabled: reported, not fixed here.
TEST(ContinuesPast, DISABLED_EilseqIsAVerifyErrorAsFio) {
  EXPECT_TRUE(ContinuesPast(C::kVerify, Dir::kRead, EILSEQ));
  EXPECT_FALSE(ContinuesPast(C::kRead, Dir::kRead, EILSEQ));
}

// ignore_error (fio's td_non_fatal_error): a list turns its type on and
// replaces the default EIO, EILSEQ; trims are writes, EILSEQ is verify.
TEST(IgnoresError, ListsDecidePerType) {
  const std::array<std::vector<int>, 3> write_enospc = {{{}, {ENOSPC}, {}}};
  EXPECT_TRUE(IgnoresError(C::kNone, write_enospc, Dir::kWrite, ENOSPC));
  EXPECT_TRUE(IgnoresError(C::kNone, write_enospc, Dir::kTrim, ENOSPC));
  EXPECT_FALSE(IgnoresError(C::kNone, write_enospc, Dir::kWrite, EIO));  // not listed
  EXPECT_FALSE(IgnoresError(C::kNone, write_enospc, Dir::kRead, ENOSPC));
  EXPECT_FALSE(IgnoresError(C::kNone, write_enospc, Dir::kRead, EIO));  // reads off
  // continue_on_error=read with no read list: fio's defaults for reads.
  EXPECT_TRUE(IgnoresError(C::kRead, write_enospc, Dir::kRead, EIO));
  EXPECT_FALSE(IgnoresError(C::kRead, write_enospc, Dir::kRead, ENOSPC));
  const std::array<std::vector<int>, 3> verify_list = {{{}, {}, {EILSEQ}}};
  EXPECT_TRUE(IgnoresError(C::kNone, verify_list, Dir::kRead, EILSEQ));
  EXPECT_FALSE(IgnoresError(C::kNone, verify_list, Dir::kRead, EIO));
}

TEST(CloneErrors, IgnoreErrorListsGoPastListedErrnosOnly) {
  CloneResult res;
  CloneErrors e(&res, C::kNone);
  e.set_ignore({{{}, {ENOSPC, EAGAIN}, {}}});
  e.io_error(Dir::kWrite, ENOSPC, "full");
  e.io_error(Dir::kWrite, EAGAIN, "again");
  EXPECT_FALSE(e.stopped());
  EXPECT_EQ(res.error, 0);
  EXPECT_EQ(res.total_errors, 2u);
  EXPECT_EQ(res.first_error, ENOSPC);
  e.io_error(Dir::kWrite, EIO, "eio");
  EXPECT_TRUE(e.stopped());
  EXPECT_EQ(res.error, EIO);
}

TEST(ContinuesPastVerify, OnlyVerifyAndAll) {
  EXPECT_FALSE(ContinuesPastVerify(C::kNone));
  EXPECT_FALSE(ContinuesPastVerify(C::kRead));
  EXPECT_FALSE(ContinuesPastVerify(C::kWrite));
  EXPECT_FALSE(ContinuesPastVerify(C::kIo));
  EXPECT_TRUE(ContinuesPastVerify(C::kVerify));
  EXPECT_TRUE(ContinuesPastVerify(C::kAll));
}

TEST(CloneErrors, FailKeepsTheFirstErrorAndStops) {
  CloneResult res;
  CloneErrors e(&res, C::kNone);
  EXPECT_FALSE(e.stopped());
  e.fail(EIO, "first");
  EXPECT_TRUE(e.stopped());
  e.fail(ENOSPC, "second");
  EXPECT_EQ(res.error, EIO);
  EXPECT_EQ(res.error_message, "first");
  // fail() ends the job; it is not a failed request.
  EXPECT_EQ(res.total_errors, 0u);
  EXPECT_EQ(res.first_error, 0);
}

TEST(CloneErrors, CountCountsEveryRequestAndKeepsTheFirst) {
  CloneResult res;
  CloneErrors e(&res, C::kNone);
  e.count(EIO, "a");
  e.count(ENOSPC, "b");
  e.count(EIO, "c");
  EXPECT_EQ(res.total_errors, 3u);
  EXPECT_EQ(res.first_error, EIO);
  EXPECT_EQ(res.first_error_message, "a");
  EXPECT_EQ(res.error, 0);
  EXPECT_FALSE(e.stopped());
}

TEST(CloneErrors, IoErrorEndsTheJobUnlessContinueOnErrorCoversIt) {
  {
    CloneResult res;
    CloneErrors e(&res, C::kNone);
    e.io_error(Dir::kRead, EIO, "read failed");
    EXPECT_TRUE(e.stopped());
    EXPECT_EQ(res.error, EIO);
    EXPECT_EQ(res.error_message, "read failed");
    EXPECT_EQ(res.total_errors, 1u);
    EXPECT_EQ(res.first_error, EIO);
  }
  {
    CloneResult res;
    CloneErrors e(&res, C::kRead);
    e.io_error(Dir::kRead, EIO, "r1");
    e.io_error(Dir::kRead, EILSEQ, "r2");
    EXPECT_FALSE(e.stopped());
    EXPECT_EQ(res.error, 0);
    EXPECT_EQ(res.total_errors, 2u);
    EXPECT_EQ(res.first_error, EIO);
    EXPECT_EQ(res.first_error_message, "r1");
    // A write error is not covered by continue_on_error=read.
    e.io_error(Dir::kWrite, EIO, "w");
    EXPECT_TRUE(e.stopped());
    EXPECT_EQ(res.error, EIO);
    EXPECT_EQ(res.error_message, "w");
    EXPECT_EQ(res.total_errors, 3u);
  }
  {
    // ENOSPC is never gone past, even with all.
    CloneResult res;
    CloneErrors e(&res, C::kAll);
    e.io_error(Dir::kWrite, EIO, "eio");
    EXPECT_FALSE(e.stopped());
    e.io_error(Dir::kWrite, ENOSPC, "full");
    EXPECT_TRUE(e.stopped());
    EXPECT_EQ(res.error, ENOSPC);
    EXPECT_EQ(res.error_message, "full");
    EXPECT_EQ(res.first_error, EIO);  // the first failed request, not the fatal one
    EXPECT_EQ(res.total_errors, 2u);
  }
}

// An error after the one that ended the job is counted, but the job keeps
// the first.
TEST(CloneErrors, LaterIoErrorsAreCountedButDoNotReplaceTheJobsError) {
  CloneResult res;
  CloneErrors e(&res, C::kNone);
  e.io_error(Dir::kWrite, ENOSPC, "first");
  e.io_error(Dir::kRead, EIO, "second");
  EXPECT_EQ(res.error, ENOSPC);
  EXPECT_EQ(res.error_message, "first");
  EXPECT_EQ(res.total_errors, 2u);
}

TEST(CloneErrors, AVerifyErrorIsTheJobsErrorButDoesNotStopItWithoutVerifyFatal) {
  CloneResult res;
  CloneErrors e(&res, C::kNone);
  e.verify_error("bad block 1", /*fatal=*/false);
  e.verify_error("bad block 2", /*fatal=*/false);
  EXPECT_FALSE(e.stopped()) << "every block is checked";
  EXPECT_EQ(res.error, EILSEQ);
  EXPECT_EQ(res.error_message, "bad block 1");
  EXPECT_EQ(res.verify_errors, 2u);
  EXPECT_EQ(res.total_errors, 2u);
  EXPECT_EQ(res.first_error, EILSEQ);
  EXPECT_EQ(res.first_error_message, "bad block 1");
}

TEST(CloneErrors, VerifyFatalStopsAtTheFirstBadBlock) {
  CloneResult res;
  CloneErrors e(&res, C::kNone);
  e.verify_error("bad", /*fatal=*/true);
  EXPECT_TRUE(e.stopped());
  EXPECT_EQ(res.error, EILSEQ);
  EXPECT_EQ(res.verify_errors, 1u);
}

TEST(CloneErrors, ContinueOnErrorVerifyCountsBadBlocksWithoutFailingTheJob) {
  for (C c : {C::kVerify, C::kAll}) {
    SCOPED_TRACE(NameOf(c));
    CloneResult res;
    CloneErrors e(&res, c);
    e.verify_error("bad", /*fatal=*/false);
    EXPECT_FALSE(e.stopped());
    EXPECT_EQ(res.error, 0);
    EXPECT_EQ(res.verify_errors, 1u);
    EXPECT_EQ(res.total_errors, 1u);
    EXPECT_EQ(res.first_error, EILSEQ);
  }
  // verify_fatal stops the job all the same (fio 3.33 stops at the first
  // bad block with continue_on_error=verify and verify_fatal=1).
  for (C c : {C::kVerify, C::kAll}) {
    SCOPED_TRACE(NameOf(c));
    CloneResult res;
    CloneErrors e(&res, c);
    e.verify_error("bad", /*fatal=*/true);
    EXPECT_TRUE(e.stopped());
    EXPECT_EQ(res.error, 0);
    EXPECT_EQ(res.verify_errors, 1u);
  }
  // read/write/io do not cover verify.
  for (C c : {C::kRead, C::kWrite, C::kIo}) {
    SCOPED_TRACE(NameOf(c));
    CloneResult res;
    CloneErrors e(&res, c);
    e.verify_error("bad", /*fatal=*/false);
    EXPECT_EQ(res.error, EILSEQ);
  }
}

// A verify error after an I/O error: the job keeps the I/O error.
TEST(CloneErrors, AVerifyErrorDoesNotReplaceAnEarlierError) {
  CloneResult res;
  CloneErrors e(&res, C::kNone);
  e.fail(ETIMEDOUT, "slow");
  e.verify_error("bad", false);
  EXPECT_EQ(res.error, ETIMEDOUT);
  EXPECT_EQ(res.error_message, "slow");
  EXPECT_EQ(res.verify_errors, 1u);
}

TEST(CloneErrors, StopAndSetDoNotCountRequests) {
  CloneResult res;
  CloneErrors e(&res, C::kNone);
  e.set(EINVAL, "bad option");
  EXPECT_FALSE(e.stopped()) << "set() stops nothing";
  EXPECT_EQ(res.error, EINVAL);
  EXPECT_EQ(res.error_message, "bad option");
  EXPECT_EQ(res.total_errors, 0u);
  e.stop();
  EXPECT_TRUE(e.stopped());
  EXPECT_EQ(res.error, EINVAL);
}

// error_dump=1: fio 3.33's line for every failed request, fatal or not,
// in the order they fail; without a sink nothing is printed, and the
// counting is the same either way.
TEST(CloneErrors, DumpGivesFiosLineForEveryFailedRequest) {
  CloneResult res;
  CloneErrors e(&res, C::kWrite);
  std::vector<std::string> lines;
  e.set_dump([&](std::string_view l) { lines.emplace_back(l); });
  e.io_error(FailedIo{Dir::kWrite, false, "/dev/full", 0, 4096}, EIO, "m1");
  e.io_error(FailedIo{Dir::kWrite, false, "/dev/full", 4096, 4096}, EIO, "m2");
  e.io_error(FailedIo{Dir::kRead, false, "a.dat", 8192, 512}, ENOSPC, "m3");  // fatal
  e.io_error(FailedIo{Dir::kWrite, true, "a.dat", 77, 9}, EIO, "m4");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "io_u error on file /dev/full: Input/output error: write offset=0, buflen=4096");
  EXPECT_EQ(lines[1], "io_u error on file /dev/full: Input/output error: write offset=4096, buflen=4096");
  EXPECT_EQ(lines[2], "io_u error on file a.dat: No space left on device: read offset=8192, buflen=512");
  EXPECT_EQ(lines[3], "io_u error on file a.dat: Input/output error: sync offset=0, buflen=0");
  EXPECT_EQ(res.total_errors, 4u);
  EXPECT_EQ(res.first_error, EIO);
  EXPECT_EQ(res.error, ENOSPC);
  EXPECT_EQ(res.error_message, "m3");

  CloneResult quiet;
  CloneErrors q(&quiet, C::kWrite);
  q.io_error(FailedIo{Dir::kWrite, false, "f", 0, 1}, EIO, "m");
  EXPECT_EQ(quiet.total_errors, 1u);
  EXPECT_EQ(quiet.error, 0);
}

TEST(Timeline, MeasuredFromTheRampsEndAndMsecFromTheStart) {
  Timeline t;
  t.start_ns = 1'000'000'000;
  t.ramp_end_ns = 3'000'000'000;
  EXPECT_FALSE(t.measured(2'999'999'999));
  EXPECT_TRUE(t.measured(3'000'000'000));
  EXPECT_EQ(t.msec(1'000'000'000), 0u);
  EXPECT_EQ(t.msec(1'001'999'999), 1u);
  EXPECT_EQ(t.msec(3'500'000'000), 2500u);
}

}  // namespace
}  // namespace blk::bench
