// What both spec fuzz targets check for a spec that parses: options.h's
// promise that Parse(ToString()) gives back equal Options, and that
// validating the graph against the driver table (nothing is opened) neither
// crashes nor leaks.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <blkstack/block/options.h>
#include <blkstack/block/registry.h>

namespace blk::fuzz {

inline void CheckParsedSpec(const Options& opts) {
  Expected<Options> again = Options::Parse(opts.ToString());
  if (!again.ok() || !(again.value() == opts)) {
    std::fprintf(stderr, "ToString() does not parse back: %s\n",
                 again.ok() ? "different options" : again.error().message.c_str());
    std::abort();
  }
  (void)ValidateNode(opts);
}

}  // namespace blk::fuzz
