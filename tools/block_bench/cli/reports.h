// Writing a block-bench run's reports and log files (the reports
// themselves are made by tools/block_bench/report/).
//
// The reports come in fio's order, whatever the order of --output-format:
// "terse" (fio's terse lines, made from the JSON document's jobs), then
// "json" / "json+" (one document, json+ when either is json+, then a
// newline), then "normal" (fio's text, after an empty line; on standard
// error instead when JSON goes to standard output).  Each is written once.  The same
// functions write the --status-interval reports, the final report of one
// process and the merged report of an MPI run: the callers pass the report
// makers.  Every error is printed on standard error as "block-bench: ...".
//
// Thread-safety: main thread only.
#pragma once

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/block_bench/jobfile/cmdline.h"
#include "tools/block_bench/run/runner.h"

namespace blk::bench::cli {

// Makes the text report / the JSON (plus: JSON+) document.  Called only for
// the formats asked for.
using TextMaker = std::function<std::string()>;
using JsonMaker = std::function<nlohmann::ordered_json(bool plus)>;

// Writes the reports flags.output_formats asks for to `out`, in fio's order
// (terse, JSON, text).  `json_on_stdout` (Outputs): standard output is kept
// for the JSON alone, so a text report goes to stderr (ChooseOutputs never
// sets it with normal asked: fio's json,normal is all on stdout).  Does not
// flush.
void WriteReports(const ToolFlags& flags, FILE* out, bool json_on_stdout, const TextMaker& text,
                  const JsonMaker& json);

// WriteReports, then flushes `out` and closes it unless it is stdout.
// Returns `status`, or 1 when the output cannot be written.
int PrintReports(const ToolFlags& flags, FILE* out, bool json_on_stdout, int status,
                 const TextMaker& text, const JsonMaker& json);

// --bandwidth-log: the aggregate bandwidth logs of `run` in the current
// directory.  False when they cannot be written.
bool WriteBandwidthLog(const RunResult& run);

// The log files the jobs asked for, `tag` after each prefix (MPI: ".rankR").
// `me`: "" or "rank R (host): ", before the message when they cannot be
// written.  False then.
bool WriteJobLogs(const RunResult& run, const std::string& tag, const std::string& me);

}  // namespace blk::bench::cli
