// block-bench's reports, one header for callers that print them all
// (tools/block_bench/main.cc): each output has its own header, which
// callers may include instead.
//
//   units.h    what one report block covers (fio's report units)
//   text.h     fio's normal text report (TextReport)
//   json.h     fio's JSON and JSON+ report (JsonReport, kBenchVersion)
//   terse.h    fio's terse lines, made from the JSON report (TerseReport)
//   logs.h     fio's latency/bandwidth/IOPS/histogram log files (WriteLogs,
//              WriteAggregateBwLogs)
//   clients.h  the merged report of a multi-host (MPI) run (ClientRun,
//              ClientsTextReport, ClientsJsonReport, AllClientsUnits)
//   ../format/format.h  fio's num2str (NumToStr) for the figures
//
// Thread-safety: see each header.  In short: functions of their inputs,
// except the text reports' dates (the clock), the dates' localtime() (not
// from two threads at once) and the files logs.h writes.
#pragma once

#include "tools/block_bench/format/format.h"
#include "tools/block_bench/report/clients.h"
#include "tools/block_bench/report/json.h"
#include "tools/block_bench/report/logs.h"
#include "tools/block_bench/report/terse.h"
#include "tools/block_bench/report/text.h"
#include "tools/block_bench/report/units.h"
