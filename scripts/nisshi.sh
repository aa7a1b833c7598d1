#!/usr/bin/env bash
# The Kafka-protocol broker the Kafka suites run against: nisshi (crates.io, Apache-2.0; the
# project formerly named tansu), built from crates.io with Debian's Rust 1.96 (it needs 1.96;
# rustup's toolchain here is 1.95) and its SQLite storage, once, into a cache outside the repo.
#
#   scripts/nisshi.sh start    start the build in the background unless built or building (deps.sh)
#   scripts/nisshi.sh wait     wait for that build and print the binary's path (the Kafka suites)
#   scripts/nisshi.sh path     print where the binary is (or will be)
#
# The build is `cargo install` at opt-level 1 (a third of the release build's time; the broker's
# speed is not what the suites test) under `nice -n 19`, two jobs, so that it goes on beside the
# rest of `make test`. Its log ends with `rc=N`. Never committed: only its version is ours.
set -euo pipefail
version=0.8.1
cache=${TWAINMQ_DEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twainmq-dev}
root=$cache/nisshi-$version
bin=$root/bin/nisshi
log=$cache/nisshi-$version.log
lock=$cache/nisshi-$version.lock
mkdir -p "$cache"

build() {
  # Holds the lock for the whole build: `wait` blocks on it.
  exec 9>"$lock"
  flock -n 9 || return 0
  # A build of the same version started another way (by hand, into this cache) is waited for.
  while pgrep -f "cargo install nisshi --version $version" >/dev/null 2>&1; do sleep 5; done
  [ -x "$bin" ] && return 0
  {
    echo "nisshi $version: build started $(date -u +%FT%TZ)"
    set +e
    /usr/bin/time -f "nisshi build: %e s wall, %U s user, %S s system, %M KB peak" \
      env RUSTC=/usr/bin/rustc CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_TARGET_DIR="$cache/nisshi-target" \
      nice -n 19 /usr/bin/cargo install nisshi --version "$version" --locked --no-default-features --features libsql \
      --root "$root" -j2
    rc=$?
    set -e
    echo "rc=$rc"
    # The build's intermediate files are not needed once the binary is installed.
    [ "$rc" = 0 ] && rm -rf "$cache/nisshi-target"
  } >"$log" 2>&1
}

case "${1:-}" in
  start)
    if [ -x "$bin" ]; then exit 0; fi
    [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] || { echo "nisshi.sh: Debian's cargo and rustc 1.96 are needed (scripts/deps.sh installs cargo-web, rustc-web)" >&2; exit 1; }
    echo "deps: building the Kafka broker nisshi $version in the background (log: $log)"
    ( build ) </dev/null >/dev/null 2>&1 &
    disown || true
    ;;
  wait)
    if [ ! -x "$bin" ]; then
      # A build not started yet (make kafka-test alone) is started here.
      [ -f "$log" ] || "$0" start >&2
      echo "nisshi.sh: waiting for the broker's build ($log)" >&2
      exec 9>"$lock"
      flock 9
      if [ ! -x "$bin" ]; then
        # The background build failed, or never ran: build in the foreground.
        flock -u 9
        build
        [ -x "$bin" ] || { tail -n 30 "$log" >&2; echo "nisshi.sh: the broker did not build (above; $log)" >&2; exit 1; }
      fi
    fi
    echo "$bin"
    ;;
  path)
    echo "$bin"
    ;;
  *)
    echo "usage: scripts/nisshi.sh start|wait|path" >&2
    exit 2
    ;;
esac
