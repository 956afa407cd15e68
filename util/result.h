// Result types.
//
// Two kinds of failure exist in blkstack and they are kept apart:
//  * On the I/O path a failure is a negative errno and nothing else: cheap to
//    return, cheap to test.  `Status` and `Result<T>` carry it.
//  * At set-up and configuration time (opening a graph, parsing a spec or a
//    job file) a failure also carries a human-readable message that names the
//    file, line, option or value.  `Error` and `Expected<T>` carry it.
//
// Thread-safety: plain values; no shared state.
#pragma once

#include <cassert>
#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace blk {

// Outcome of an I/O operation: 0 or a negative errno.
class [[nodiscard]] Status {
 public:
  constexpr Status() = default;
  // REQUIRES: err <= 0.
  constexpr explicit Status(int err) : err_(err) { assert(err <= 0); }
  static constexpr Status Ok() { return Status(); }

  constexpr bool ok() const { return err_ == 0; }
  // 0 on success, otherwise a negative errno.
  constexpr int error() const { return err_; }
  constexpr explicit operator bool() const { return ok(); }
  friend constexpr bool operator==(Status a, Status b) { return a.err_ == b.err_; }

 private:
  int err_ = 0;
};

// A value or a negative errno.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T v) : err_(0), v_(std::move(v)) {}  // NOLINT: implicit by design
  Result(Status s) : err_(s.error()) { assert(err_ < 0); }  // NOLINT
  static Result Err(int err) { return Result(Status(err)); }

  bool ok() const { return err_ == 0; }
  int error() const { return err_; }
  Status status() const { return Status(err_); }
  // REQUIRES: ok().
  T& value() & { assert(ok()); return v_; }
  const T& value() const& { assert(ok()); return v_; }
  T&& value() && { assert(ok()); return std::move(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  int err_;
  T v_{};
};

// A set-up/configuration failure: errno-like code plus a message for people.
struct Error {
  int code = -EINVAL;  // negative errno
  std::string message;
};

// A value or an Error.  Used off the I/O path only.
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T v) : v_(std::move(v)) {}          // NOLINT
  Expected(Error e) : v_(std::move(e)) {}      // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  // REQUIRES: ok().
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  T& operator*() & { return value(); }
  // REQUIRES: !ok().
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error e) : err_(std::move(e)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return err_; }

 private:
  Error err_;
  bool ok_ = true;
};

inline Error MakeError(int code, std::string msg) { return Error{code, std::move(msg)}; }

// "strerror" for a negative errno, e.g. "-5 (Input/output error)".
std::string ErrnoString(int neg_errno);

}  // namespace blk
