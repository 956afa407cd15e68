// Tests of util/result.h: Status, Result<T>, Error/Expected<T>, ErrnoString.
#include <blkstack/util/result.h>

#include <cerrno>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace blk {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(static_cast<bool>(s));
  EXPECT_EQ(s.error(), 0);
  EXPECT_EQ(s, Status::Ok());
}

TEST(StatusTest, CarriesNegativeErrno) {
  Status s(-EIO);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(static_cast<bool>(s));
  EXPECT_EQ(s.error(), -EIO);
  EXPECT_EQ(s, Status(-EIO));
  EXPECT_FALSE(s == Status(-ENOSPC));
  EXPECT_FALSE(s == Status::Ok());
}

TEST(StatusTest, IsConstexpr) {
  constexpr Status ok = Status::Ok();
  constexpr Status bad(-EINVAL);
  static_assert(ok.ok());
  static_assert(!bad.ok());
  static_assert(bad.error() == -EINVAL);
  EXPECT_NE(ok.error(), bad.error());
}

TEST(ResultTest, HoldsValue) {
  Result<int> r = 42;
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.error(), 0);
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(*r, 42);
  *r = 7;
  EXPECT_EQ(r.value(), 7);
}

TEST(ResultTest, HoldsError) {
  Result<int> r = Status(-ENOENT);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error(), -ENOENT);
  EXPECT_EQ(r.status(), Status(-ENOENT));

  Result<std::string> e = Result<std::string>::Err(-EAGAIN);
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.error(), -EAGAIN);
}

TEST(ResultTest, ArrowAndConstAccess) {
  Result<std::string> r = std::string("hello");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 5u);
  const Result<std::string>& cr = r;
  EXPECT_EQ(cr.value(), "hello");
  EXPECT_EQ(cr->front(), 'h');
}

TEST(ResultTest, MovesValueOut) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(9);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 9);
}

Result<int> Half(int x) {
  if (x % 2 != 0) return Status(-EINVAL);
  return x / 2;
}

TEST(ResultTest, ReturnedFromFunction) {
  Result<int> a = Half(10);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value(), 5);
  Result<int> b = Half(3);
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.error(), -EINVAL);
}

TEST(ExpectedTest, HoldsValue) {
  Expected<std::vector<int>> e = std::vector<int>{1, 2, 3};
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(static_cast<bool>(e));
  EXPECT_EQ(e->size(), 3u);
  EXPECT_EQ((*e)[1], 2);
  e.value().push_back(4);
  EXPECT_EQ(e.value().back(), 4);
  std::vector<int> moved = std::move(e).value();
  EXPECT_EQ(moved.size(), 4u);
}

TEST(ExpectedTest, HoldsError) {
  Expected<int> e = MakeError(-ENOENT, "file 'x.json' not found");
  EXPECT_FALSE(e.ok());
  EXPECT_FALSE(static_cast<bool>(e));
  EXPECT_EQ(e.error().code, -ENOENT);
  EXPECT_EQ(e.error().message, "file 'x.json' not found");
}

TEST(ExpectedTest, ErrorDefaultsToEinval) {
  Error err;
  EXPECT_EQ(err.code, -EINVAL);
  EXPECT_TRUE(err.message.empty());
  Expected<std::string> e = Error{.code = -EINVAL, .message = "bad option 'size'"};
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, -EINVAL);
  EXPECT_EQ(e.error().message, "bad option 'size'");
}

TEST(ExpectedVoidTest, OkAndError) {
  Expected<void> ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_TRUE(static_cast<bool>(ok));

  Expected<void> bad = MakeError(-EEXIST, "node 'disk0' already exists");
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(bad.error().code, -EEXIST);
  EXPECT_EQ(bad.error().message, "node 'disk0' already exists");
}

TEST(ErrnoStringTest, KnownErrnos) {
  EXPECT_EQ(ErrnoString(-EIO), "-5 (Input/output error)");
  EXPECT_EQ(ErrnoString(-ENOENT), "-2 (No such file or directory)");
  EXPECT_EQ(ErrnoString(-EINVAL), "-22 (Invalid argument)");
  EXPECT_EQ(ErrnoString(-ENOSPC), "-28 (No space left on device)");
}

TEST(ErrnoStringTest, ZeroAndPositive) {
  EXPECT_EQ(ErrnoString(0), "0 (Success)");
  EXPECT_EQ(ErrnoString(EIO), "5 (Input/output error)");
}

TEST(ErrnoStringTest, UnknownNumbers) {
  EXPECT_EQ(ErrnoString(-99999), "-99999 (Unknown error)");
  EXPECT_EQ(ErrnoString(-2147483647 - 1), "-2147483648 (Unknown error)");
}

TEST(ErrnoStringTest, DoesNotChangeErrno) {
  errno = EAGAIN;
  std::string s = ErrnoString(-EBADF);
  EXPECT_EQ(s, "-9 (Bad file descriptor)");
  EXPECT_EQ(errno, EAGAIN);
}

}  // namespace
}  // namespace blk
