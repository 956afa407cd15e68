#!/usr/bin/env bash
# Installs everything blkstack needs on Debian 12 and prepares Bazel.
# Idempotent: apt is only touched when a package in scripts/packages.txt is
# missing.  Nothing is downloaded except Debian packages: the Bazel
# repositories are local (WORKSPACE, third_party/bazel/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACKAGES_FILE="$ROOT/scripts/packages.txt"

log() { echo "setup: $*"; }

mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$PACKAGES_FILE" | grep -v '^$')

missing=()
for p in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  log "installing missing packages: ${missing[*]}"
  SUDO=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install packages" >&2; exit 1; }
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" apt-get install -y -q "${missing[@]}" </dev/null
else
  log "all ${#packages[@]} packages already installed"
fi

# Bazel: Debian's bazel-bootstrap; everything it needs is local.
command -v bazel >/dev/null || { echo "setup: bazel not found after install" >&2; exit 1; }
if [[ -e "$ROOT/.bazelversion" ]]; then
  echo "setup: remove .bazelversion: Debian's bazel wrapper rejects it" >&2
  exit 1
fi
if [[ -x "$ROOT/tools/bazel" && -f "$ROOT/tools/bazel" ]]; then
  echo "setup: WARNING: tools/bazel is executable; Debian's bazel wrapper would run it instead of Bazel" >&2
fi
cd "$ROOT"
# Start the server and set up the output base now (fast; no network).
log "bazel output base: $(bazel info output_base 2>/dev/null)"
log "done"
