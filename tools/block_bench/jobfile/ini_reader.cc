#include "tools/block_bench/jobfile/ini_reader.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "tools/block_bench/jobfile/values.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

Error At(const SourceLocation& where, const std::string& msg) {
  return MakeError(-EINVAL, where.ToString() + ": " + msg);
}

bool IsIncludeDirective(std::string_view line) {
  constexpr std::string_view kWord = "include";
  return line.size() > kWord.size() && line.substr(0, kWord.size()) == kWord &&
         std::isspace(static_cast<unsigned char>(line[kWord.size()]));
}

std::string NormalPath(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().string();
}

class Reader {
 public:
  explicit Reader(const ParseEnvironment& env) : env_(env) {}

  Expected<void> Read(std::string_view text, const std::string& file, int depth) {
    stack_.push_back(NormalPath(file));
    int line_no = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      ++line_no;
      const size_t comment = line.find_first_of(";#");
      if (comment != std::string_view::npos) line = line.substr(0, comment);
      line = Trim(line);
      if (line.empty()) continue;
      Expected<void> r = Line(line, SourceLocation{file, line_no}, depth);
      if (!r.ok()) return r;
    }
    stack_.pop_back();
    return {};
  }

  std::vector<RawSection> TakeSections() { return std::move(sections_); }

 private:
  Expected<void> Line(std::string_view line, const SourceLocation& where, int depth) {
    if (line.front() == '[') {
      if (depth > 0) return At(where, "included files may not contain sections ('[...]')");
      if (line.back() != ']') return At(where, "malformed section header " + QuoteInput(line));
      const std::string_view name = Trim(line.substr(1, line.size() - 2));
      if (name.empty()) return At(where, "empty section name '[]'");
      sections_.push_back(RawSection{std::string(name), where, {}});
      return {};
    }
    if (IsIncludeDirective(line)) return Include(Trim(line.substr(7)), where, depth);
    if (line == "include") return At(where, "'include' needs a file name");

    const size_t eq = line.find('=');
    const std::string name(Trim(line.substr(0, eq)));
    if (name.empty()) return At(where, "missing option name in " + QuoteInput(line));
    if (sections_.empty()) return At(where, "option " + QuoteInput(name) + " outside of a [section]");
    RawOption opt{name, std::nullopt, false, where};
    if (eq != std::string_view::npos) {
      ExpandedValue v = ExpandValue(Trim(line.substr(eq + 1)), env_);
      opt.value = std::move(v.text);
      opt.wants_arithmetic = v.wants_arithmetic;
    }
    sections_.back().options.push_back(std::move(opt));
    return {};
  }

  Expected<void> Include(std::string_view target, const SourceLocation& where, int depth) {
    if (sections_.empty()) return At(where, "'include' outside of a [section]");
    const std::string name = ExpandEnvironment(target, env_);
    if (name.empty()) return At(where, "'include' needs a file name");
    std::filesystem::path path(name);
    if (path.is_relative()) path = std::filesystem::path(where.file).parent_path() / path;
    const std::string file = path.string();
    if (depth + 1 > kMaxIncludeDepth) {
      return At(where, "includes nested more than " + std::to_string(kMaxIncludeDepth) + " deep");
    }
    if (std::find(stack_.begin(), stack_.end(), NormalPath(file)) != stack_.end()) {
      return At(where, "include cycle: " + QuoteInput(file) + " is already being read");
    }
    Expected<std::string> contents = env_.read_file(file);
    if (!contents.ok()) {
      return At(where, "cannot read include file " + QuoteInput(file) + ": " + contents.error().message);
    }
    return Read(contents.value(), file, depth + 1);
  }

  const ParseEnvironment& env_;
  std::vector<RawSection> sections_;
  std::vector<std::string> stack_;  // files being read, outermost first
};

}  // namespace

Expected<std::vector<RawSection>> ReadJobText(std::string_view text,
                                              const std::string& display_name,
                                              const ParseEnvironment& env) {
  Reader reader(env);
  Expected<void> r = reader.Read(text, display_name, 0);
  if (!r.ok()) return r.error();
  return reader.TakeSections();
}

Expected<std::vector<RawSection>> ReadJobFile(const std::string& path,
                                              const ParseEnvironment& env) {
  Expected<std::string> contents = env.read_file(path);
  if (!contents.ok()) {
    return MakeError(contents.error().code,
                     "cannot read job file " + QuoteInput(path) + ": " + contents.error().message);
  }
  return ReadJobText(contents.value(), path, env);
}

}  // namespace blk::bench
