// main() for fuzz targets built without libFuzzer (the default and asan
// configs): passes the contents of every file named on the command line,
// and of every regular file below every directory named there, to
// LLVMFuzzerTestOneInput, once each, in sorted order.  Arguments starting
// with '-' (libFuzzer flags) are ignored.  Exits 0 after replaying at least
// one input; 1 if an input could not be read or none was found.  A crash in
// the target is a crash here too.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

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
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    for (const auto& file : InputsOf(argv[i])) {
      if (!Replay(file)) return 1;
      ++replayed;
    }
  }
  std::printf("fuzz_main: replayed %zu inputs\n", replayed);
  return replayed > 0 ? 0 : 1;
}
