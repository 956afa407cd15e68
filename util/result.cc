#include <blkstack/util/result.h>

#include <string.h>  // strerrordesc_np (glibc >= 2.32, _GNU_SOURCE)

#include <climits>
#include <string>

namespace blk {

std::string ErrnoString(int neg_errno) {
  // A positive errno is accepted too; the number is always shown as given.
  // strerrordesc_np is thread-safe (it returns a pointer to a constant
  // string and never touches a shared buffer, unlike strerror) and returns
  // nullptr for numbers it does not know.
  const char* desc = nullptr;
  if (neg_errno != INT_MIN) {
    desc = strerrordesc_np(neg_errno < 0 ? -neg_errno : neg_errno);
  }
  std::string out = std::to_string(neg_errno);
  out += " (";
  out += desc != nullptr ? desc : "Unknown error";
  out += ')';
  return out;
}

}  // namespace blk
