#include "tools/block_bench/jobfile/parse_env.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <blkstack/util/input_file.h>

namespace blk::bench {
namespace {

// A job file or an include, within kJobFileMaxBytes (util/input_file.h:
// a device such as /dev/zero is refused without reading).  The message is
// the reason alone: the parser names the file.
Expected<std::string> ReadWholeFile(const std::string& path) {
  InputLimit limit;
  limit.max_bytes = kJobFileMaxBytes;
  limit.what = "a job file";
  auto r = ReadInputFile(path, limit);
  if (r.ok()) return r;
  std::string why = r.error().message;
  if (why.compare(0, path.size() + 2, path + ": ") == 0) why.erase(0, path.size() + 2);
  return MakeError(r.error().code, why);
}

}  // namespace

ParseEnvironment ParseEnvironment::FromSystem() {
  ParseEnvironment env;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
  env.read_file = ReadWholeFile;
  const long page = ::sysconf(_SC_PAGESIZE);
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (page > 0) env.pagesize = static_cast<uint64_t>(page);
  if (page > 0 && pages > 0) {
    env.mb_memory = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / (1024 * 1024);
  }
  if (cpus > 0) env.ncpus = static_cast<uint64_t>(cpus);
  return env;
}

ParseEnvironment WithRankVariables(ParseEnvironment env, int rank, int nranks,
                                   const std::string& hostname, bool mpi) {
  auto base = env.getenv;
  env.getenv = [base, rank, nranks, hostname, mpi](const std::string& name) -> std::optional<std::string> {
    const bool ours = name == "RANK" || name == "NRANKS" || name == "HOSTNAME";
    if (!ours || !mpi) {
      std::optional<std::string> v = base ? base(name) : std::nullopt;
      if (v || !ours) return v;
    }
    if (name == "RANK") return std::to_string(rank);
    if (name == "NRANKS") return std::to_string(nranks);
    return hostname;
  };
  return env;
}

std::string ExpandEnvironment(std::string_view text, const ParseEnvironment& env) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text.substr(i, 2) == "${") {
      const size_t close = text.find('}', i + 2);
      if (close != std::string_view::npos) {
        const std::string name(text.substr(i + 2, close - i - 2));
        if (!name.empty() && env.getenv) {
          if (std::optional<std::string> v = env.getenv(name)) out += *v;
        }
        i = close + 1;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

ExpandedValue ExpandValue(std::string_view value, const ParseEnvironment& env, bool expand_env) {
  ExpandedValue out{expand_env ? ExpandEnvironment(value, env) : std::string(value), false};
  if (!expand_env) {
    // The shell expanded the command line before an MPI launcher ran this
    // rank: the rank variables are expanded here.
    for (const char* name : {"RANK", "NRANKS", "HOSTNAME"}) {
      const std::string ref = std::string("${") + name + "}";
      const std::optional<std::string> v = env.getenv ? env.getenv(name) : std::nullopt;
      size_t pos = 0;
      // Past each replacement: a value holding its own reference is not
      // expanded again.
      while ((pos = out.text.find(ref, pos)) != std::string::npos) {
        out.text.replace(pos, ref.size(), v.value_or(""));
        pos += v.value_or("").size();
      }
    }
  }
  const struct {
    std::string_view word;
    uint64_t value;
  } keywords[] = {{"$pagesize", env.pagesize}, {"$mb_memory", env.mb_memory}, {"$ncpus", env.ncpus}};
  bool replaced = false;
  for (const auto& kw : keywords) {
    size_t pos;
    while ((pos = out.text.find(kw.word)) != std::string::npos) {
      out.text.replace(pos, kw.word.size(), std::to_string(kw.value));
      replaced = true;
    }
  }
  out.wants_arithmetic = replaced && out.text.find_first_of("+-*/") != std::string::npos;
  return out;
}

}  // namespace blk::bench
