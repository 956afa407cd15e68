#include "tools/block_bench/cli/signals.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace blk::bench::cli {
namespace {

// The one object the signal handler can reach (a handler takes no context).
StopSource* g_stop = nullptr;

void OnSignal(int sig) {
  // Only async-signal-safe calls here: StopSource::request, write, _exit.
  const bool again = g_stop->request(sig) > 1;
  const char* msg = again ? "\nblock-bench: interrupted again: exiting now\n"
                    : sig == SIGTERM
                        ? "\nblock-bench: SIGTERM: stopping the jobs (again to exit at once)\n"
                        : "\nblock-bench: SIGINT: stopping the jobs (again to exit at once)\n";
  ssize_t r = write(STDERR_FILENO, msg, strlen(msg));
  (void)r;
  if (again) _exit(128 + sig);
}

}  // namespace

void StopOnSignals(StopSource* stop) {
  g_stop = stop;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace blk::bench::cli
