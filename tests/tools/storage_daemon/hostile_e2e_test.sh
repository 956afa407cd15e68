#!/usr/bin/env bash
# Malformed and hostile clients against blkstack-storage-daemon, from raw
# sockets (python3): each gets the protocol's error or is disconnected, and
# the daemon goes on serving a well-behaved client (nbdinfo) every time.
#   handshake: unknown client flags, bad option magic, an option length of
#     4 GiB (dropped, nothing allocated), an unknown option (ERR_UNSUP, then
#     GO still works), STARTTLS (ERR_UNSUP)
#   transmission: read past the end (EINVAL), write past the end (ENOSPC,
#     payload consumed: the next request works), unknown command (EINVAL),
#     write/trim on a read-only export (EPERM), an oversize read (error), an
#     oversize write length (disconnect), bad request magic (disconnect), a
#     client that vanishes halfway through a write payload
#   structured replies: writes, reads (one OFFSET_DATA chunk, an empty read
#     a NONE chunk), errors (an ERROR chunk), BLOCK_STATUS in the
#     base:allocation context set with SET_META_CONTEXT (the sparse file's
#     hole / data / hole)
#   a client that sends read requests (1 MiB each, for 2 s) and never reads
#     the replies:
#     the daemon's memory stays bounded (RSS < 400 MiB) and another client
#     is served within 2 s meanwhile
#   a half-open client that sends nothing, and 1000 connections at once:
#     another client is still served; the daemon serves after they close
set -uo pipefail
source "$(dirname "$0")/daemon_lib.sh"
need nbdinfo libnbd-bin
cd "$WORK" || exit 1
truncate -s 16M rw.img
truncate -s 16M ro.img
start_daemon \
  --blockdev "driver=file,filename=$WORK/rw.img,node-name=rw" \
  --export type=nbd,id=e0,node-name=rw,writable=on \
  --blockdev "driver=file,filename=$WORK/ro.img,node-name=ro" \
  --export type=nbd,id=e1,node-name=ro
SOCK="$SOCK" DPID="$DPID" python3 - <<'PY' || fail=1
import os, resource, socket, struct, subprocess, sys, time

SOCK, PID = os.environ["SOCK"], int(os.environ["DPID"])
IHAVEOPT, REPLY_MAGIC = 0x49484156454F5054, 0x3e889045565a9
failed = False

def check(name, ok, detail=""):
    global failed
    print(("PASS: " if ok else "FAIL: ") + name + ("" if ok else " " + str(detail)))
    failed |= not ok

def served():
    r = subprocess.run(["nbdinfo", "--size", "nbd+unix:///rw?socket=" + SOCK],
                       capture_output=True, text=True, timeout=20)
    return r.returncode == 0 and r.stdout.strip() == str(16 << 20)

def recvn(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b

def closed(s, timeout=5):
    """True when the server closed the connection (EOF or reset)."""
    s.settimeout(timeout)
    try:
        while True:
            if not s.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False

def connect(flags=3):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(SOCK)
    s.settimeout(10)
    g = recvn(s, 18)
    assert g[:8] == b"NBDMAGIC" and struct.unpack(">Q", g[8:16])[0] == IHAVEOPT
    s.sendall(struct.pack(">I", flags))
    return s

def option(s, opt, data=b""):
    s.sendall(struct.pack(">QII", IHAVEOPT, opt, len(data)) + data)

def opt_reply(s):
    magic, opt, typ, n = struct.unpack(">QIII", recvn(s, 20))
    assert magic == REPLY_MAGIC
    return opt, typ, recvn(s, n)

def go(name):
    s = connect()
    option(s, 7, struct.pack(">I", len(name)) + name + struct.pack(">H", 0))
    while True:
        _, typ, _ = opt_reply(s)
        if typ == 1:
            return s
        assert typ == 3, hex(typ)

def request(s, typ, off, length, cookie=7, flags=0, payload=b""):
    s.sendall(struct.pack(">IHHQQI", 0x25609513, flags, typ, cookie, off, length) + payload)

def simple_reply(s):
    magic, err, cookie = struct.unpack(">IIQ", recvn(s, 16))
    assert magic == 0x67446698, hex(magic)
    return err, cookie

# ---- handshake ----
s = connect(flags=0x80000003)
check("unknown client flags: disconnected", closed(s))
s = connect()
s.sendall(struct.pack(">QII", 0x1234, 7, 0))
check("bad option magic: disconnected", closed(s))
s = connect()
s.sendall(struct.pack(">QII", IHAVEOPT, 7, 0xffffffff))
check("4 GiB option length: disconnected", closed(s))
s = connect()
option(s, 999)
check("unknown option: NBD_REP_ERR_UNSUP", opt_reply(s)[1] == 0x80000001)
option(s, 5)
check("STARTTLS: NBD_REP_ERR_UNSUP", opt_reply(s)[1] == 0x80000001)
option(s, 3, b"x")
check("LIST with data: NBD_REP_ERR_INVALID", opt_reply(s)[1] == 0x80000003)
option(s, 7, struct.pack(">I", 2) + b"rw" + struct.pack(">H", 0))
types = []
while not types or types[-1] != 1:
    types.append(opt_reply(s)[1])
check("GO after refused options reaches transmission", types[-1] == 1 and 3 in types, types)
s.close()
check("served after handshake abuse", served())

# ---- transmission ----
s = go(b"rw")
request(s, 0, 16 << 20, 4096, cookie=1)
check("read past the end: EINVAL", simple_reply(s) == (22, 1))
request(s, 1, (16 << 20) - 512, 4096, cookie=2, payload=b"\xaa" * 4096)
check("write past the end: ENOSPC", simple_reply(s) == (28, 2))
request(s, 99, 0, 0, cookie=3)
check("unknown command: EINVAL", simple_reply(s) == (22, 3))
request(s, 0, 0, 1 << 30, cookie=4)
check("1 GiB read: refused with an error", simple_reply(s)[0] != 0)
request(s, 1, 0, 512, cookie=5, payload=b"\x42" * 512)
check("framing kept: the next write succeeds", simple_reply(s) == (0, 5))
request(s, 0, 0, 512, cookie=6)
ok = simple_reply(s) == (0, 6) and recvn(s, 512) == b"\x42" * 512
check("and reads back", ok)
request(s, 1, 0, 0x7fffffff, cookie=8)
check("2 GiB write length: disconnected", closed(s))
s = go(b"rw")
s.sendall(b"\xde\xad\xbe\xef" + b"\0" * 24)
check("bad request magic: disconnected", closed(s))
s = go(b"ro")
request(s, 1, 0, 4096, cookie=9, payload=b"\x01" * 4096)
check("write on a read-only export: EPERM", simple_reply(s) == (1, 9))
request(s, 4, 0, 4096, cookie=10)
check("trim on a read-only export: EPERM", simple_reply(s) == (1, 10))
request(s, 0, 0, 4096, cookie=11)
check("read-only export still reads", simple_reply(s) == (0, 11) and len(recvn(s, 4096)) == 4096)
s.close()
s = go(b"rw")
request(s, 1, 0, 65536, cookie=12, payload=b"\x11" * 100)
s.close()
check("served after a client vanished mid-payload", served())

# ---- structured replies (NBD_OPT_STRUCTURED_REPLY, SET_META_CONTEXT) ----
def chunk(s):
    magic, flags, typ, cookie, n = struct.unpack(">IHHQI", recvn(s, 20))
    assert magic == 0x668e33ef, hex(magic)
    return flags, typ, cookie, recvn(s, n)
s = connect()
option(s, 8)
check("STRUCTURED_REPLY: ACK", opt_reply(s)[1] == 1)
q = b"base:allocation"
option(s, 10, struct.pack(">I", 2) + b"rw" + struct.pack(">II", 1, len(q)) + q)
_, typ, data = opt_reply(s)
ctx_id = struct.unpack(">I", data[:4])[0] if typ == 4 else None
check("SET_META_CONTEXT base:allocation: a context id", typ == 4 and data[4:] == q, (typ, data))
check("then ACK", opt_reply(s)[1] == 1)
option(s, 7, struct.pack(">I", 2) + b"rw" + struct.pack(">H", 0))
while opt_reply(s)[1] != 1:
    pass
request(s, 1, 8192, 512, cookie=20, payload=b"\x5c" * 512)
check("structured write: a NONE chunk with DONE", chunk(s)[:3] == (1, 0, 20))
request(s, 0, 8192, 512, cookie=21)
f, t, c, d = chunk(s)
check("structured read: one OFFSET_DATA chunk with DONE",
      (f, t, c) == (1, 1, 21) and d[:8] == struct.pack(">Q", 8192) and d[8:] == b"\x5c" * 512,
      (f, t, c, len(d)))
request(s, 0, 0, 0, cookie=22)
check("structured empty read: a NONE chunk, not a simple reply", chunk(s)[:3] == (1, 0, 22))
request(s, 0, 16 << 20, 512, cookie=23)
f, t, c, d = chunk(s)
check("structured error: an ERROR chunk with EINVAL", (f, t, c) == (1, 0x8001, 23) and
      struct.unpack(">I", d[:4])[0] == 22, (f, t, c, d))
request(s, 7, 4096, 65536, cookie=24)
f, t, c, d = chunk(s)
# rw.img is sparse: only the 4 KiB block written at 8192 holds data, the
# rest of [4096, 69632) is a hole that reads as zeros (HOLE|ZERO = 3).
ext = [struct.unpack(">II", d[i:i + 8]) for i in range(4, len(d), 8)]
check("BLOCK_STATUS: the file's extents in the negotiated context",
      (f, t, c) == (1, 5, 24) and d[:4] == struct.pack(">I", ctx_id) and
      ext == [(4096, 3), (4096, 0), (57344, 3)], (f, t, c, d))
s.close()

# ---- a client that never reads its replies ----
hog = go(b"rw")
hog.setblocking(False)
sent, want = 0, 2 << 30
req = struct.pack(">IHHQQI", 0x25609513, 0, 0, 1, 0, 1 << 20)
deadline = time.time() + 2
while sent < want and time.time() < deadline:
    try:
        hog.send(req)
        sent += 1 << 20
    except BlockingIOError:
        time.sleep(0.01)
t0 = time.time()
ok = served()
dt = time.time() - t0
rss = int([l for l in open("/proc/%d/status" % PID) if l.startswith("VmRSS")][0].split()[1]) // 1024
check("a client that stops reading stalls only itself (other client in %.2f s)" % dt, ok and dt < 2, dt)
check("memory bounded while it does (%d MiB of reads asked, RSS %d MiB)" % (sent >> 20, rss), rss < 400, rss)
hog.close()
check("served after the non-reading client left", served())

# ---- half-open and many connections ----
half = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
half.connect(SOCK)
check("a silent half-open client does not block others", served())
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
conns = []
for _ in range(1000):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(SOCK)
    conns.append(c)
greeted = 0
for c in conns:
    c.settimeout(10)
    try:
        greeted += len(recvn(c, 18)) == 18
    except Exception:
        pass
check("1000 connections at once, each greeted (%d)" % greeted, greeted == 1000, greeted)
check("served while 1000 connections are open", served())
for c in conns:
    c.close()
half.close()
time.sleep(0.2)
check("served after they closed", served())
sys.exit(1 if failed else 0)
PY
alive rw && pass "the daemon survived every hostile client" || bad "daemon not serving at the end"
stop_daemon
exit $fail
