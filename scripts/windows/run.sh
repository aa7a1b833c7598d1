#!/usr/bin/env bash
# Run a Windows program under Wine in the project's prefix (scripts/windows/prefix.sh):
#   scripts/windows/run.sh prog.exe ARGS...
# cargo uses it as the runner of scripts/windows/cargo.sh (cargo test, cargo run).
set -euo pipefail
# shellcheck source=prefix.sh
source "$(dirname "${BASH_SOURCE[0]}")/prefix.sh"
# A test program (target/.../debug/deps/*.exe) of the app needs WebView2Loader.dll, which
# tauri-build puts in the profile's folder, beside the app: that folder is searched too.
if [ "$#" -gt 0 ] && [ "$(basename "$(dirname "$1")")" = deps ]; then
  profile_dir=$(dirname "$(dirname "$(realpath "$1")")")
  export WINEPATH="Z:${profile_dir//\//\\}${WINEPATH:+;$WINEPATH}"
fi
exec "$WINE" "$@"
