/* Tests of the blkstack C API, compiled as C11.  Prints PASS/FAIL per check
 * and exits non-zero if any check failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <blkstack/blkstack.h>

static int failures = 0;

#define CHECK(cond, ...)                        \
  do {                                          \
    if (cond) {                                 \
      printf("PASS: " __VA_ARGS__);             \
    } else {                                    \
      printf("FAIL (%s:%d): ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                      \
      failures++;                               \
    }                                           \
    printf("\n");                               \
  } while (0)

struct req {
  int done;
  int ret;
};

static void on_done(void *opaque, int ret) {
  struct req *r = opaque;
  r->done++;
  r->ret = ret;
}

/* Drives the loop the way an embedding program does: poll() on the fd,
 * dispatch, honour next_timeout_ns. */
static int wait_for(blkstack_loop *loop, struct req *r) {
  for (int i = 0; i < 100000 && !r->done; i++) {
    int64_t ns = blkstack_loop_next_timeout_ns(loop);
    int timeout_ms = ns < 0 ? 1000 : (int)((ns + 999999) / 1000000);
    struct pollfd pfd = {blkstack_loop_fd(loop), POLLIN, 0};
    poll(&pfd, 1, timeout_ms);
    blkstack_loop_dispatch(loop);
  }
  return r->done;
}


static uint64_t counter(blkstack_dev *dev, const char *name) {
  uint64_t v = 0;
  if (blkstack_get_counter(dev, name, &v) != 0) return UINT64_MAX;
  return v;
}

/* A 1 MiB temporary file for the file driver; its path in `path`. */
static int temp_file(char *path, size_t n) {
  const char *dir = getenv("TEST_TMPDIR");
  snprintf(path, n, "%s/capi-XXXXXX", dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  int rc = ftruncate(fd, 1 << 20);
  close(fd);
  return rc;
}

/* A device the kernel must provide (io_uring, libaio): under
 * BLK_TEST_NO_SKIP a refusal is a failure, otherwise a SKIP. */
static blkstack_dev *open_or_skip(blkstack_loop *loop, const char *spec, const char *what) {
  blkstack_dev *dev = NULL;
  int rc = blkstack_open(loop, spec, 0, &dev);
  if (rc == 0) return dev;
  if (getenv("BLK_TEST_NO_SKIP")) {
    CHECK(0, "%s: open failed: %s", what, blkstack_last_error());
  } else {
    printf("SKIP: %s: %s\n", what, blkstack_last_error());
  }
  return NULL;
}

static void test_version(void) {
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", BLKSTACK_VERSION_MAJOR, BLKSTACK_VERSION_MINOR,
           BLKSTACK_VERSION_PATCH);
  CHECK(strcmp(blkstack_version(), want) == 0 && strcmp(BLKSTACK_VERSION_STRING, want) == 0,
        "blkstack_version() '%s' is the header's %s", blkstack_version(), want);
  CHECK(blkstack_version_number() == BLKSTACK_VERSION_NUMBER &&
            BLKSTACK_VERSION_NUMBER == BLKSTACK_VERSION_MAJOR * 10000 +
                                           BLKSTACK_VERSION_MINOR * 100 + BLKSTACK_VERSION_PATCH,
        "blkstack_version_number() %d", blkstack_version_number());
}

/* Fixed buffers: requests inside a registered range go as READ_FIXED /
 * WRITE_FIXED (counted by the ring), with the right data. */
static void test_register_buf(blkstack_loop *loop, const char *file) {
  char spec[512];
  snprintf(spec, sizeof spec,
           "driver=file,filename=%s,aio=io_uring,cache.direct=off,aio-fixed-buffers=on", file);
  blkstack_dev *dev = open_or_skip(loop, spec, "io_uring with fixed buffers");
  if (!dev) return;
  static char pinned[65536];
  CHECK(blkstack_register_buf(dev, pinned, sizeof pinned) == 0, "register_buf: %s",
        blkstack_last_error());
  CHECK(blkstack_register_buf(dev, pinned + 4096, 4096) == -EEXIST,
        "an overlapping range is refused with -EEXIST");
  CHECK(blkstack_register_buf(dev, NULL, 4096) == -EINVAL, "a NULL range is refused");
  CHECK(counter(dev, "io_uring_registered_buffers") == 1, "one range registered");
  for (int i = 0; i < 8192; i++) pinned[8192 + i] = (char)(i * 31 + 7);
  struct iovec w = {pinned + 8192, 8192}, r = {pinned + 65536 - 8192, 8192};
  struct req q = {0, 1};
  blkstack_writev(dev, 40960, &w, 1, 0, on_done, &q);
  CHECK(wait_for(loop, &q) && q.ret == 0, "write from the registered range");
  q.done = 0;
  blkstack_readv(dev, 40960, &r, 1, on_done, &q);
  CHECK(wait_for(loop, &q) && q.ret == 0, "read into the registered range");
  CHECK(memcmp(pinned + 8192, pinned + 65536 - 8192, 8192) == 0, "the data came back");
  CHECK(counter(dev, "io_uring_fixed_sqes") == 2, "both went as fixed-buffer requests (%llu)",
        (unsigned long long)counter(dev, "io_uring_fixed_sqes"));
  blkstack_unregister_buf(dev, pinned, sizeof pinned);
  CHECK(counter(dev, "io_uring_registered_buffers") == 0, "unregister_buf took it back");
  q.done = 0;
  blkstack_readv(dev, 40960, &r, 1, on_done, &q);
  CHECK(wait_for(loop, &q) && q.ret == 0 && counter(dev, "io_uring_fixed_sqes") == 2,
        "afterwards a plain request");
  blkstack_close(dev);
}

/* plug/unplug: 8 reads submitted between them reach libaio in one
 * io_submit. */
static void test_plug(blkstack_loop *loop, const char *file) {
  char spec[512];
  snprintf(spec, sizeof spec, "driver=file,filename=%s,aio=native,cache.direct=on", file);
  blkstack_dev *dev = open_or_skip(loop, spec, "libaio");
  if (!dev) return;
  static _Alignas(4096) char bufs[8][4096];
  static struct req reqs[8];
  for (int round = 0; round < 2; round++) {
    const int plugged = round == 1;
    uint64_t calls0 = counter(dev, "aio_submit_calls");
    uint64_t reqs0 = counter(dev, "aio_requests_submitted");
    if (plugged) blkstack_plug(dev);
    for (int i = 0; i < 8; i++) {
      struct iovec v = {bufs[i], 4096};
      reqs[i].done = 0;
      blkstack_readv(dev, (uint64_t)i * 4096, &v, 1, on_done, &reqs[i]);
      if (!plugged) wait_for(loop, &reqs[i]);  /* one at a time */
    }
    if (plugged) blkstack_unplug(dev);
    int all = 1;
    for (int i = 0; i < 8; i++) all &= wait_for(loop, &reqs[i]) == 1 && reqs[i].ret == 0;
    uint64_t calls = counter(dev, "aio_submit_calls") - calls0;
    uint64_t sent = counter(dev, "aio_requests_submitted") - reqs0;
    CHECK(all && sent == 8 && calls == (plugged ? 1u : 8u),
          "%s: 8 reads in %llu io_submit call(s)", plugged ? "plugged" : "unplugged",
          (unsigned long long)calls);
  }
  blkstack_close(dev);
}

static int drain_seen_reads = -1;
static struct req drain_reads[3];
static void on_drained(void *opaque, int ret) {
  struct req *r = opaque;
  drain_seen_reads = drain_reads[0].done + drain_reads[1].done + drain_reads[2].done;
  r->done++;
  r->ret = ret;
}

/* drain, drained_begin/end, cancel_waits on the null driver's delays. */
static void test_quiesce(blkstack_loop *loop) {
  blkstack_dev *dev = NULL;
  blkstack_open(loop, "driver=null,size=1M,latency-ns=2000000", 0, &dev);
  static char buf[512];
  struct iovec v = {buf, sizeof buf};
  for (int i = 0; i < 3; i++) blkstack_readv(dev, 0, &v, 1, on_done, &drain_reads[i]);
  struct req d = {0, 1};
  CHECK(blkstack_drain(dev, on_drained, &d) == 0 && d.done == 0, "drain submitted, not run inline");
  CHECK(blkstack_drain(dev, NULL, NULL) == -EINVAL, "drain without a callback refused");
  CHECK(wait_for(loop, &d) == 1 && d.ret == 0 && drain_seen_reads == 3,
        "drain's callback ran after the 3 reads in flight (%d)", drain_seen_reads);

  struct req q = {0, 1};
  blkstack_drained_begin(dev);
  blkstack_readv(dev, 0, &v, 1, on_done, &q);
  for (int i = 0; i < 20; i++) {
    struct pollfd pfd = {blkstack_loop_fd(loop), POLLIN, 0};
    poll(&pfd, 1, 1);
    blkstack_loop_dispatch(loop);
  }
  CHECK(q.done == 0, "drained_begin holds a new request back");
  blkstack_drained_end(dev);
  CHECK(wait_for(loop, &q) == 1 && q.ret == 0, "drained_end lets it run");
  blkstack_close(dev);

  blkstack_open(loop, "driver=null,size=1M,latency-ns=3600000000000", 0, &dev);
  q.done = 0;
  blkstack_readv(dev, 0, &v, 1, on_done, &q);
  for (int i = 0; i < 3; i++) blkstack_loop_run_once(loop, 0);
  blkstack_cancel_waits(dev);
  CHECK(wait_for(loop, &q) == 1 && q.ret == -ECANCELED,
        "cancel_waits ends an hour-long wait with -ECANCELED (%d)", q.ret);
  uint64_t v0;
  CHECK(blkstack_get_counter(dev, "no_such_counter", &v0) == -ENOENT &&
            strstr(blkstack_last_error(), "no_such_counter") != NULL,
        "an unknown counter: -ENOENT naming it");
  blkstack_close(dev);
}

int main(void) {
  blkstack_loop *loop = blkstack_loop_new();
  CHECK(loop != NULL, "loop created");
  CHECK(blkstack_loop_fd(loop) >= 0, "loop fd");

  blkstack_dev *dev = NULL;
  int rc = blkstack_open(loop, "driver=null,size=16M,read-zeroes=on", 0, &dev);
  CHECK(rc == 0 && dev != NULL, "open null device (rc=%d %s)", rc, blkstack_last_error());
  if (!dev) return 1;
  CHECK(blkstack_length(dev) == 16 << 20, "length is 16M");
  CHECK(!blkstack_is_read_only(dev), "read-write");

  char buf[4096];
  memset(buf, 0x5a, sizeof(buf));
  struct iovec iov[2] = {{buf, 1024}, {buf + 1024, 3072}};
  struct req r = {0, 1};
  rc = blkstack_readv(dev, 4096, iov, 2, on_done, &r);
  CHECK(rc == 0, "readv submitted");
  CHECK(r.done == 0, "callback not run inside the submitting call");
  CHECK(wait_for(loop, &r) == 1 && r.ret == 0, "readv completed (ret=%d)", r.ret);
  CHECK(buf[0] == 0 && buf[4095] == 0, "read-zeroes filled the buffer");

  r.done = 0;
  rc = blkstack_writev(dev, 0, iov, 2, BLKSTACK_FUA, on_done, &r);
  CHECK(rc == 0 && wait_for(loop, &r) == 1 && r.ret == 0, "FUA writev completed");
  r.done = 0;
  rc = blkstack_flush(dev, on_done, &r);
  CHECK(rc == 0 && wait_for(loop, &r) == 1 && r.ret == 0, "flush completed");
  r.done = 0;
  rc = blkstack_discard(dev, 0, 1 << 20, on_done, &r);
  CHECK(rc == 0 && wait_for(loop, &r) == 1 && r.ret == 0, "discard completed");
  r.done = 0;
  rc = blkstack_write_zeroes(dev, 0, 1 << 20, BLKSTACK_MAY_UNMAP, on_done, &r);
  CHECK(rc == 0 && wait_for(loop, &r) == 1 && r.ret == 0, "write_zeroes completed");

  r.done = 0;
  rc = blkstack_readv(dev, 16 << 20, iov, 2, on_done, &r);
  CHECK(rc == 0 && wait_for(loop, &r) == 1 && r.ret == -EIO, "read past the end fails with -EIO");

  rc = blkstack_readv(dev, 0, NULL, 2, on_done, &r);
  CHECK(rc == -EINVAL, "NULL iovec refused");
  rc = blkstack_writev(dev, 0, iov, 2, 0x80, on_done, &r);
  CHECK(rc == -EINVAL && strstr(blkstack_last_error(), "flags") != NULL, "unknown flags refused");

  struct blkstack_op_stats st;
  CHECK(blkstack_get_stats(dev, BLKSTACK_OP_READ, &st) == 0, "read stats");
  CHECK(st.ops == 2 && st.errors == 1 && st.bytes == 4096, "read stats count ops/errors/bytes");
  CHECK(blkstack_get_stats(dev, 99, &st) == -EINVAL, "unknown op refused");

  /* Many requests in flight, then close drains them. */
  static struct req many[256];
  static char mbuf[256][512];
  for (int i = 0; i < 256; i++) {
    struct iovec v = {mbuf[i], sizeof(mbuf[i])};
    blkstack_writev(dev, (uint64_t)i * 512, &v, 1, 0, on_done, &many[i]);
  }
  blkstack_close(dev);
  int all = 1;
  for (int i = 0; i < 256; i++) all &= many[i].done == 1 && many[i].ret == 0;
  CHECK(all, "close waited for 256 requests in flight");

  /* Open errors carry a message naming the problem. */
  rc = blkstack_open(loop, "driver=null,size=lots", 0, &dev);
  CHECK(rc == -EINVAL && strstr(blkstack_last_error(), "lots") != NULL,
        "bad spec: %d %s", rc, blkstack_last_error());
  rc = blkstack_open(loop, "driver=nosuch", 0, &dev);
  CHECK(rc < 0 && strstr(blkstack_last_error(), "nosuch") != NULL, "unknown driver: %s",
        blkstack_last_error());
  rc = blkstack_open(loop, "driver=null", BLKSTACK_OPEN_READ_ONLY, &dev);
  CHECK(rc == 0 && blkstack_is_read_only(dev), "read-only open");
  r.done = 0;
  blkstack_writev(dev, 0, iov, 2, 0, on_done, &r);
  CHECK(wait_for(loop, &r) == 1 && r.ret == -EPERM, "write to read-only fails with -EPERM");
  blkstack_close(dev);

  /* A timer-driven completion (latency-ns) with the host honouring
   * next_timeout_ns. */
  rc = blkstack_open(loop, "driver=null,latency-ns=3000000", 0, &dev);
  r.done = 0;
  blkstack_readv(dev, 0, iov, 1, on_done, &r);
  CHECK(wait_for(loop, &r) == 1 && r.ret == 0, "delayed completion via timer");
  blkstack_close(dev);

  test_version();
  test_quiesce(loop);
  char file[4096];
  CHECK(temp_file(file, sizeof file) == 0, "temporary file %s", file);
  test_register_buf(loop, file);
  test_plug(loop, file);
  unlink(file);

  blkstack_loop_free(loop);
  printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
