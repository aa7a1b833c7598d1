#!/usr/bin/env bash
# Install what `make test` and `make run` need on a fresh Debian machine (as root, or with sudo),
# skipping whatever is already there. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need cc build-essential
need pkg-config pkg-config
need python3 python3
need git git
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  missing+=(python3-venv)
fi
if [ ! -e /usr/include/zlib.h ]; then missing+=(zlib1g-dev); fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "deps: cargo (Rust 1.80 or newer) is required; install it with rustup" >&2
  exit 1
fi

# The interop peer, twainmq 0.2.3, and pytest, in a project-local venv.
stamp=.venv/.requirements.stamp
if [ ! -x .venv/bin/python ] || ! cmp -s tests/requirements.txt "$stamp"; then
  echo "deps: preparing .venv with twainmq 0.2.3"
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r tests/requirements.txt
  cp tests/requirements.txt "$stamp"
fi
