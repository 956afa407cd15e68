/* Tests of the blkstack C API, compiled as C11.  Prints PASS/FAIL per check
 * and exits non-zero if any check failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block/capi/blkstack.h"

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

  blkstack_loop_free(loop);
  printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
