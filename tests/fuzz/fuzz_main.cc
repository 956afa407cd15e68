// main() for fuzz targets built without libFuzzer (the default and asan
// configs): passes the contents of every file named on the command line,
// and of every regular file below every directory named there, to
// LLVMFuzzerTestOneInput, once each, in sorted order.  Two of libFuzzer's
// flags bound the cost of each input as they do under libFuzzer:
//   -timeout=N       an input running more than N s fails (exit 70, naming it);
//   -rss_limit_mb=N  the process's peak RSS above N MiB after an input fails
//                    (exit 71, naming it).
// Other arguments starting with '-' (libFuzzer flags) are ignored.  Exits 0
// after replaying at least one input; 1 if an input could not be read or
// none was found.  A crash in the target is a crash here too.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The input being replayed, for the SIGALRM handler.
const char* g_current = "";

void OnAlarm(int) {
  // Async-signal-safe: write(2) only.
  const char kWhat[] = "fuzz_main: timeout (-timeout) on ";
  (void)!write(STDERR_FILENO, kWhat, sizeof kWhat - 1);
  (void)!write(STDERR_FILENO, g_current, std::strlen(g_current));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(70);
}

// The value of flag `name` ("-timeout=") in `arg`, or -1.
long FlagValue(std::string_view arg, std::string_view name) {
  if (arg.substr(0, name.size()) != name) return -1;
  return std::strtol(std::string(arg.substr(name.size())).c_str(), nullptr, 10);
}

long PeakRssMb() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;  // KiB on Linux
}

// Regular files named by `arg`: itself, or those below it if a directory.
std::vector<std::filesystem::path> InputsOf(const std::filesystem::path& arg) {
  std::vector<std::filesystem::path> out;
  if (std::filesystem::is_directory(arg)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(arg)) {
      if (e.is_regular_file()) out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
  } else {
    out.push_back(arg);
  }
  return out;
}

bool Replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz_main: cannot read %s\n", file.c_str());
    return false;
  }
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy the size of the input, so that ASan sees reads past its end.
  std::vector<uint8_t> copy(data.begin(), data.end());
  LLVMFuzzerTestOneInput(copy.data(), copy.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  long timeout_s = -1, rss_limit_mb = -1;
  for (int i = 1; i < argc; ++i) {
    if (long v = FlagValue(argv[i], "-timeout="); v >= 0) timeout_s = v;
    if (long v = FlagValue(argv[i], "-rss_limit_mb="); v >= 0) rss_limit_mb = v;
  }
  if (timeout_s > 0) signal(SIGALRM, OnAlarm);
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    for (const auto& file : InputsOf(argv[i])) {
      g_current = file.c_str();
      if (timeout_s > 0) alarm(unsigned(timeout_s));
      if (!Replay(file)) return 1;
      alarm(0);
      if (rss_limit_mb > 0 && PeakRssMb() > rss_limit_mb) {
        std::fprintf(stderr, "fuzz_main: peak RSS %ld MiB above -rss_limit_mb=%ld after %s\n",
                     PeakRssMb(), rss_limit_mb, file.c_str());
        return 71;
      }
      ++replayed;
    }
  }
  std::printf("fuzz_main: replayed %zu inputs\n", replayed);
  return replayed > 0 ? 0 : 1;
}
