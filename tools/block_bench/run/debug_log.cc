#include "tools/block_bench/run/debug_log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdarg>
#include <string>

namespace blk::bench {

void DebugLog::print(DebugCategory c, const char* fmt, ...) const {
  if (!on(c)) return;
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  const std::string name(Name(c));
  std::fprintf(out_, "%-8s %-5d %s\n", name.c_str(), int(::syscall(SYS_gettid)), text);
}

}  // namespace blk::bench
