#!/usr/bin/env bash
# Install what `make test` and `make run` need on a fresh Debian machine (as root, or with sudo),
# skipping whatever is already there. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

pkgs=()
need_cmd() { command -v "$1" >/dev/null 2>&1 || pkgs+=("$2"); }
need_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed" || pkgs+=("$1"); }
need_cmd cc build-essential
need_cmd pkg-config pkg-config
need_cmd python3 python3
need_cmd git git
need_cmd curl curl
need_cmd node nodejs
need_cmd npm npm
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then pkgs+=(python3-venv); fi
[ -e /usr/include/zlib.h ] || pkgs+=(zlib1g-dev)
# Tauri 2 on Linux, and the end-to-end harness (Xvfb, WebKitWebDriver, screenshots, a private
# D-Bus session bus for the single-instance test).
for p in libwebkit2gtk-4.1-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev librsvg2-dev \
         libayatana-appindicator3-dev libssl-dev xvfb xauth webkit2gtk-driver imagemagick x11-utils file dbus-daemon \
         fonts-wqy-zenhei fonts-noto-color-emoji; do
  need_pkg "$p"
done
# The package test (scripts/package-test.sh): desktop-file-validate checks the .deb's desktop
# entry, and its dpkg trigger indexes MIME types on install, as on any desktop.
need_pkg desktop-file-utils
need_cmd gio libglib2.0-bin
# The torture suite's NTFS run (tests/torture/test_ntfs.py): mkntfs and ntfs-3g on a loop device.
need_pkg ntfs-3g
# Its XFS and btrfs runs (tests/torture/test_filesystems.py): mkfs.xfs and mkfs.btrfs on loop devices.
need_pkg xfsprogs
need_pkg btrfs-progs
# Windows, cross-built and tested here (scripts/windows/, make package-windows, its test under
# Wine): Debian's Rust with the std's source (-Z build-std; rustup's toolchain builds no other
# target's std here), mingw-w64 (gcc links, windres and dlltool), makensis, and Wine.
for p in rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 nsis wine64; do
  need_pkg "$p"
done

if [ "${#pkgs[@]}" -gt 0 ]; then
  echo "deps: installing ${pkgs[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "deps: cargo (Rust 1.85 or newer) is required; install it with rustup" >&2
  exit 1
fi
if ! command -v tauri-driver >/dev/null 2>&1; then
  echo "deps: installing tauri-driver (WebDriver for the end-to-end tests)"
  cargo install tauri-driver --version "^2" --locked --quiet
fi

# The interop peer, twainmq 0.2.3, and pytest, in a project-local venv.
stamp=.venv/.requirements.stamp
if [ ! -x .venv/bin/python ] || ! cmp -s tests/requirements.txt "$stamp"; then
  echo "deps: preparing .venv with twainmq 0.2.3"
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r tests/requirements.txt
  cp tests/requirements.txt "$stamp"
fi

# JavaScript dependencies of the web UI and of the end-to-end tests, from the lock files.
for dir in ui tests/e2e; do
  if [ -f "$dir/package-lock.json" ] && { [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; }; then
    echo "deps: npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done

# The Kafka-protocol broker the Kafka suites run against (scripts/nisshi.sh): built once from
# crates.io with Debian's Rust into ~/.cache/twainmq-dev, in the background from here, so that
# it is ready by the time `make test` reaches the Kafka suites (33.6 CPU-minutes; 65 min wall at nice 19 on a busy 2-core machine: see
# docs/KAFKA.md); they wait for it.
bash scripts/nisshi.sh start
