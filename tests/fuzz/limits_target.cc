// A fuzz target whose inputs cost what they say, for fuzz_main_limits_test:
// "sleep" runs 3 s, "grow" keeps 200 MiB resident, anything else is cheap.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.substr(0, 5) == "sleep") sleep(3);
  if (in.substr(0, 4) == "grow") {
    static std::vector<char> keep;
    keep.assign(size_t{200} << 20, 1);  // touched: resident
  }
  return 0;
}
