#include "tools/block_bench/jobfile/cmdline.h"

#include <sys/stat.h>

#include <algorithm>

#include "tools/block_bench/jobfile/jobfile.h"
#include "tools/block_bench/jobfile/option_table.h"
#include "tools/block_bench/jobfile/raw_option.h"
#include "tools/block_bench/jobfile/values.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

Error CmdError(const std::string& msg) {
  return MakeError(-EINVAL, std::string(kCommandLine) + ": " + msg);
}

Error FlagError(std::string_view flag, const std::string& detail) {
  return CmdError("option " + QuoteInput("--" + std::string(flag)) + ": " + detail);
}

Expected<std::vector<OutputFormat>> ParseOutputFormats(std::string_view text) {
  std::vector<OutputFormat> out;
  for (std::string_view item : SplitTopLevel(text, ',')) {
    item = Trim(item);
    OutputFormat f;
    if (item == "normal") {
      f = OutputFormat::kNormal;
    } else if (item == "json") {
      f = OutputFormat::kJson;
    } else if (item == "json+") {
      f = OutputFormat::kJsonPlus;
    } else if (item == "terse") {
      f = OutputFormat::kTerse;
    } else {
      return FlagError("output-format", "expected normal, json, json+ or terse (comma-separated), "
                                        "got " + QuoteInput(item));
    }
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

Expected<EtaMode> ParseEta(std::string_view text) {
  if (text == "auto") return EtaMode::kAuto;
  if (text == "always") return EtaMode::kAlways;
  if (text == "never") return EtaMode::kNever;
  return FlagError("eta", "expected always, never or auto, got " + QuoteInput(text));
}

// Parser state over argv.
class Parser {
 public:
  Parser(const std::vector<std::string>& args, const ParseEnvironment& env) : args_(args), env_(env) {
    // Options before the first --name are global.
    groups_.push_back(RawSection{"global", CommandLineLocation(), {}});
  }

  Expected<CommandLine> Run() {
    bool files_only = false;
    for (i_ = 0; i_ < args_.size(); ++i_) {
      const std::string& arg = args_[i_];
      if (!files_only && arg == "--") {
        files_only = true;
        continue;
      }
      if (files_only || arg.size() < 2 || arg[0] != '-') {
        out_.job_files.push_back(arg);
        continue;
      }
      Expected<void> r = Option(arg);
      if (!r.ok()) return r.error();
    }
    JobOptions defaults;
    Expected<std::vector<JobOptions>> jobs = BuildJobs(groups_, defaults);
    if (!jobs.ok()) return jobs.error();
    out_.jobs = std::move(jobs.value());
    out_.globals = defaults;
    if (out_.flags.help || out_.flags.version || out_.flags.cmdhelp || out_.flags.debug_list ||
        out_.flags.inflate_log)
      return std::move(out_);
    std::vector<std::string> files_without_jobs;
    for (size_t k = 0; k < out_.job_files.size(); ++k) {
      Expected<std::vector<JobOptions>> file_jobs = ParseJobFile(out_.job_files[k], env_, defaults);
      if (!file_jobs.ok()) return file_jobs.error();
      if (file_jobs.value().empty()) files_without_jobs.push_back(out_.job_files[k]);
      // fio separates job files by a stonewall.
      if (k > 0 && !file_jobs.value().empty()) file_jobs.value().front().stonewall = true;
      for (JobOptions& job : file_jobs.value()) out_.jobs.push_back(std::move(job));
      if (out_.jobs.size() > kMaxJobs) {
        return CmdError("more than " + std::to_string(kMaxJobs) +
                        " jobs over the command line and job files (fio's limit too)");
      }
    }
    if (!out_.flags.sections.empty()) {
      // --section: only the named jobs (fio's sections), in their order.
      std::vector<JobOptions> kept;
      for (const std::string& want : out_.flags.sections) {
        bool found = false;
        for (const JobOptions& j : out_.jobs)
          if (j.name == want) found = true;
        if (!found) return FlagError("section", "no job (section) named " + QuoteInput(want));
      }
      for (JobOptions& j : out_.jobs) {
        if (std::find(out_.flags.sections.begin(), out_.flags.sections.end(), j.name) !=
            out_.flags.sections.end())
          kept.push_back(std::move(j));
      }
      out_.jobs = std::move(kept);
    }
    // fio's --parse-only defines no job to parse options.
    if (out_.jobs.empty() && out_.flags.parse_only) return std::move(out_);
    if (out_.jobs.empty() && !files_without_jobs.empty()) {
      // The file is what lacks a job: name it, not the command line.
      return MakeError(-EINVAL, files_without_jobs.front() +
                                    ": no jobs defined (the file has no job section; [global] "
                                    "alone defines none)");
    }
    if (out_.jobs.empty()) {
      return CmdError("no jobs defined (give a job file or --name=NAME with job options)");
    }
    if (out_.flags.max_jobs) {
      uint64_t clones = 0;
      for (const JobOptions& j : out_.jobs) clones += std::max<uint32_t>(1, j.numjobs);
      if (clones > out_.flags.max_jobs)
        return FlagError("max-jobs", "the jobs need " + std::to_string(clones) +
                                         " threads, more than --max-jobs=" +
                                         std::to_string(out_.flags.max_jobs));
    }
    if (out_.flags.readonly) {
      for (JobOptions& j : out_.jobs) {
        const bool writes = j.read_iolog.empty() && j.rw != RwMode::kRead && j.rw != RwMode::kRandRead;
        if (writes)
          return FlagError("readonly", "job " + QuoteInput(j.name) + " would " +
                                           (j.rw == RwMode::kTrim || j.rw == RwMode::kRandTrim ||
                                                    j.rw == RwMode::kTrimWrite || j.rw == RwMode::kRandTrimWrite
                                                ? "trim"
                                                : "write") +
                                           " (rw=" + std::string(Name(j.rw)) + ")");
        j.readonly = true;  // a replayed trace's writes fail at the read-only graph
      }
    }
    if (!out_.flags.aux_path.empty()) {
      struct stat st;
      if (::stat(out_.flags.aux_path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return FlagError("aux-path", QuoteInput(out_.flags.aux_path) + " is not a directory");
    }
    return std::move(out_);
  }

 private:
  // The value of --flag: after '=', or else the next argument.
  Expected<std::string> FlagValue(std::string_view flag, const std::optional<std::string>& value) {
    if (value) {
      if (value->empty()) return FlagError(flag, "requires a value");
      return *value;
    }
    if (i_ + 1 >= args_.size()) return FlagError(flag, "requires a value");
    return args_[++i_];
  }

  Expected<void> Option(const std::string& arg) {
    const std::string body = arg.rfind("--", 0) == 0 ? arg.substr(2) : arg.substr(1);
    const size_t eq = body.find('=');
    const std::string name = body.substr(0, eq);
    std::optional<std::string> value;
    if (eq != std::string::npos) value = body.substr(eq + 1);
    if (name.empty()) return CmdError("malformed argument " + QuoteInput(arg));

    if (name == "max-jobs" || name == "section" || name == "alloc-size" || name == "eta-newline" ||
        name == "aux-path" || name == "status-interval" || name == "blkstack-max-memory") {
      Expected<std::string> v = FlagValue(name, value);
      if (!v.ok()) return v.error();
      if (name == "blkstack-max-memory") {
        Expected<uint64_t> n = FioParseSize(v.value(), 1024, 1);
        if (!n.ok()) return FlagError(name, n.error().message);
        out_.flags.max_memory = n.value();
      } else if (name == "section") {
        out_.flags.sections.push_back(v.value());
      } else if (name == "aux-path") {
        out_.flags.aux_path = v.value();
      } else if (name == "status-interval") {
        Expected<std::chrono::microseconds> t = ParseTime(v.value(), 1'000'000);  // default unit: s
        if (!t.ok()) return FlagError(name, t.error().message);
        if (t.value().count() < 1000) return FlagError(name, "must be at least 1ms");
        out_.flags.status_interval_ms = t.value().count() / 1000;
      } else if (name == "eta-newline") {
        Expected<std::chrono::microseconds> t = ParseTime(v.value(), 1000);  // default unit: ms
        if (!t.ok()) return FlagError(name, t.error().message);
        out_.flags.eta_newline_ms = t.value().count() / 1000;
      } else {
        Expected<uint64_t> n = ParseInteger(v.value(), 1024, 1, name == "max-jobs" ? kMaxJobs : UINT32_MAX);
        if (!n.ok()) return FlagError(name, n.error().message);
        if (name == "max-jobs") out_.flags.max_jobs = uint32_t(n.value());
        else out_.flags.alloc_size_kb = n.value();
      }
      return {};
    }
    if (name == "debug" || name == "d") {
      // fio's --debug / -d: categories of debug lines (debug_mask.h).
      Expected<std::string> v = FlagValue(name, value);
      if (!v.ok()) return v.error();
      if (v.value() == "?") {
        out_.flags.debug_list = true;
        return {};
      }
      const DebugMask m = ParseDebugMask(v.value());
      out_.flags.debug.mask |= m.mask;
      out_.flags.debug.unknown.insert(out_.flags.debug.unknown.end(), m.unknown.begin(),
                                      m.unknown.end());
      return {};
    }
    if (name == "minimal" || name == "append-terse") {
      if (value) return FlagError(name, "takes no value");
      auto& f = out_.flags.output_formats;
      if (name == "minimal") f = {OutputFormat::kTerse};
      else if (std::find(f.begin(), f.end(), OutputFormat::kTerse) == f.end()) f.push_back(OutputFormat::kTerse);
      return {};
    }
    if (name == "inflate-log") {
      Expected<std::string> v = FlagValue(name, value);
      if (!v.ok()) return v.error();
      out_.flags.inflate_log = v.value();
      return {};
    }
    if (name == "cmdhelp") {
      out_.flags.cmdhelp = value.value_or("all");
      return {};
    }
    if (name == "terse-version") {
      Expected<std::string> v = FlagValue(name, value);
      if (!v.ok()) return v.error();
      const std::string& t = v.value();
      if (t == "2") {
        return FlagError(name, "version 2 (no fio version field, description on its own "
                               "line) is not supported by block-bench; use 3, 4 or 5");
      }
      if (t != "3" && t != "4" && t != "5") {
        return FlagError(name, "expected 3, 4 or 5, got " + QuoteInput(t));
      }
      out_.flags.terse_version = t[0] - '0';
      return {};
    }
    // Bare flags: present or not, never a value.
    static constexpr struct {
      std::string_view name;
      bool ToolFlags::*flag;
    } kBareFlags[] = {{"parse-only", &ToolFlags::parse_only},
                      {"merge-blktrace-only", &ToolFlags::merge_blktrace_only},
                      {"showcmd", &ToolFlags::showcmd},
                      {"version", &ToolFlags::version},
                      {"help", &ToolFlags::help},
                      {"h", &ToolFlags::help},
                      {"readonly", &ToolFlags::readonly},
                      {"warnings-fatal", &ToolFlags::warnings_fatal},
                      {"bandwidth-log", &ToolFlags::bandwidth_log},
                      {"blkstack-counters", &ToolFlags::blkstack_counters}};
    for (const auto& f : kBareFlags) {
      if (name != f.name) continue;
      if (value) return FlagError(name, "takes no value");
      out_.flags.*f.flag = true;
      return {};
    }
    if (name == "output" || name == "output-format" || name == "eta") {
      Expected<std::string> v = FlagValue(name, value);
      if (!v.ok()) return v.error();
      if (name == "output") {
        out_.flags.output = v.value();
      } else if (name == "output-format") {
        Expected<std::vector<OutputFormat>> formats = ParseOutputFormats(v.value());
        if (!formats.ok()) return formats.error();
        out_.flags.output_formats = std::move(formats.value());
      } else {
        Expected<EtaMode> eta = ParseEta(v.value());
        if (!eta.ok()) return eta.error();
        out_.flags.eta = eta.value();
      }
      return {};
    }
    if (name == "name") {
      Expected<std::string> v = FlagValue(name, value);
      if (!v.ok()) return v.error();
      // A job name is an identity, not a value: no substitution.
      if (v.value().empty()) return FlagError(name, "expected a non-empty job name");
      groups_.push_back(RawSection{v.value(), CommandLineLocation(), {}});
      return {};
    }

    // A job option.  Like getopt, an option that needs a value takes the
    // next argument when there is no '='.  Unknown options are reported by
    // ApplyOptions, with a suggestion.
    const FioOptionSpec* spec = FindOption(name);
    if (!value && spec != nullptr && spec->value_required && i_ + 1 < args_.size()) {
      value = args_[++i_];
    }
    RawOption opt{name, std::nullopt, false, CommandLineLocation()};
    if (value) {
      ExpandedValue expanded = ExpandValue(*value, env_, /*expand_env=*/false);
      opt.value = std::move(expanded.text);
      opt.wants_arithmetic = expanded.wants_arithmetic;
    }
    groups_.back().options.push_back(std::move(opt));
    return {};
  }

  const std::vector<std::string>& args_;
  const ParseEnvironment& env_;
  size_t i_ = 0;
  std::vector<RawSection> groups_;
  CommandLine out_;
};

}  // namespace

std::string_view Name(OutputFormat v) {
  switch (v) {
    case OutputFormat::kNormal: return "normal";
    case OutputFormat::kJson: return "json";
    case OutputFormat::kJsonPlus: return "json+";
    case OutputFormat::kTerse: return "terse";
  }
  return "?";
}

std::string_view Name(EtaMode v) {
  switch (v) {
    case EtaMode::kAuto: return "auto";
    case EtaMode::kAlways: return "always";
    case EtaMode::kNever: return "never";
  }
  return "?";
}

Expected<CommandLine> ParseCommandLine(const std::vector<std::string>& args,
                                       const ParseEnvironment& env) {
  return Parser(args, env).Run();
}

std::string UsageText(std::string_view program) {
  std::string out;
  out += "usage: " + std::string(program) +
         " [flags] [--option=value ...] [--name=JOB --option=value ...] [jobfile ...]\n" +
         "       " + std::string(program) + " compare [options] BASE NEW\n" +
         "       " + std::string(program) + " ab [options] A B [--] job arguments...\n" +
         "       " + std::string(program) + " plot [--output=FILE.svg] FILE...\n" +
         "       " + std::string(program) +
         " --trace-info FILE [--trace-format=NAME] [--trace-device=DEV]\n" +
         "                   [--trace-max-size=SIZE]\n" +
         "(compare and ab: latency and throughput verdicts for git bisect run; plot: SVG\n"
         "latency curves and logs over time; each has --help; --trace-info: statistics of\n"
         "an I/O trace (fio iolog, blktrace, perf script, Alibaba/Tencent/MSR CSV), as text\n"
         "or with --output-format=json)\n\n";
  out +=
      "Runs fio-style jobs against block driver graphs.  Job files use fio's format;\n"
      "--option=value on the command line means option=value in a job file.  Options\n"
      "before the first --name apply to all jobs.\n\n"
      "flags:\n"
      "  --output=FILE              write the report to FILE\n"
      "  --output-format=FMT[,FMT]  normal (default), json, json+, terse (fio's --minimal lines)\n"
      "  --minimal                  --output-format=terse;  --append-terse: add terse lines\n"
      "  --terse-version=N          layout of terse lines: 3 (default), 4 or 5, as fio's\n"
      "  --parse-only               parse the jobs and exit\n"
      "  --merge-blktrace-only      write the jobs' merge_blktrace_file merges and exit\n"
      "  --showcmd                  print the jobs as a command line and exit\n"
      "  --inflate-log=FILE         print a log_store_compressed=1 log (.fz) as the plain\n"
      "                             log's lines and exit\n"
      "  --eta=WHEN                 always, never or auto (default)\n"
      "  --eta-newline=TIME         start a new progress line this often (default unit ms)\n"
      "  --debug=CAT[,CAT...]       fio's debug categories (--debug=? lists them): parse, file,\n"
      "                             io, random, job and process print block-bench's lines on the\n"
      "                             output (stdout or --output); the others print nothing\n"
      "  --status-interval=TIME     also print the full report (cumulative) this often (default unit s)\n"
      "  --section=NAME             run only this job of the job files (repeatable)\n"
      "  --readonly                 refuse writing jobs; open every target read-only\n"
      "  --max-jobs=N               refuse to run more than N threads (clones)\n"
      "  --warnings-fatal           fio's warnings about a job are fatal (exit 1 before running)\n"
      "  --bandwidth-log            write agg-read_bw.log etc.: all clones' bandwidth\n"
      "  --blkstack-counters        also print the driver counters in the text report\n"
      "  --blkstack-max-memory=SIZE the most the I/O buffers and verify state of the jobs\n"
      "                             running at once may take (default: half of MemAvailable)\n"
      "  --alloc-size=KB            fio's; accepted, no effect (no shared-memory pool)\n"
      "  --aux-path=DIR             where verify state files go (default: the working directory)\n"
      "  --cmdhelp[=OPT,...|all]    whether each fio option is supported (and its help) or\n"
      "                             refused (and why); all: every supported option\n"
      "  --version                  print the version and exit\n"
      "  --help, -h                 print this help and exit\n\n"
      "job options:\n";
  for (const FioOptionSpec& s : OptionTable()) {
    std::string names(s.name);
    for (std::string_view alias : s.aliases) names += ", " + std::string(alias);
    out += "  " + names;
    out += std::string(names.size() < 28 ? 28 - names.size() : 1, ' ');
    out += std::string(s.help) + "\n";
  }
  return out;
}

std::string CmdHelp(std::string_view which, bool* all_known) {
  *all_known = true;
  std::string out;
  if (which == "all") {
    for (const FioOptionSpec& s : OptionTable()) {
      out += std::string(s.name) + ": supported: " + std::string(s.help) + "\n";
      for (std::string_view alias : s.aliases) {
        out += std::string(alias) + ": supported (alias of " + std::string(s.name) + ")\n";
      }
    }
    return out;
  }
  for (std::string_view name : SplitTopLevel(which, ',')) {
    name = Trim(name);
    if (const FioOptionSpec* s = FindOption(name)) {
      out += std::string(name) + ": supported" +
             (s->name != name ? " (alias of " + std::string(s->name) + ")" : std::string()) +
             ": " + std::string(s->help) + "\n";
    } else if (std::optional<std::string_view> why = UnsupportedFioOptionReason(name)) {
      out += std::string(name) + ": refused: " + std::string(*why) + "\n";
    } else {
      out += std::string(name) + ": unknown to block-bench\n";
      *all_known = false;
    }
  }
  return out;
}

}  // namespace blk::bench
