#!/usr/bin/env bash
# The app's bundle (ui/dist, embedded in the binary) must not contain the UI's test
# backend (ui/src/lib/mockBackend.ts) or the answers it replays
# (ui/src/lib/recorded/store.json): they load only in tests, the dev server and the
# preview build (`npm run build:preview` -> ui/dist-preview). Fails when any of their
# markers, or a chunk of the mock, is in the bundle.
# Usage: scripts/check-bundle.sh [--build] [DIST]
#   DIST defaults to ui/dist; it is built first with --build, or when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

build=0
if [ "${1:-}" = "--build" ]; then
  build=1
  shift
fi
dist="${1:-ui/dist}"
if [ "$build" = 1 ] || [ ! -f "$dist/index.html" ]; then
  (cd ui && npm run build >/dev/null)
fi

# Each marker must still be where it is looked for, or this check would pass for nothing.
declare -A source=(
  [__TWAINMQ_TEST_BACKEND__]=ui/src/lib/mockBackend.ts
  [__TWAINMQ_RECORDED_DATA__]=ui/src/lib/recorded/store.json
)
status=0
for marker in "${!source[@]}"; do
  if ! grep -qF "$marker" "${source[$marker]}"; then
    echo "check-bundle: the marker $marker is no longer in ${source[$marker]}: update scripts/check-bundle.sh" >&2
    status=1
  fi
done

# The markers, the module's import path, and the recording's text.
for needle in __TWAINMQ_TEST_BACKEND__ __TWAINMQ_RECORDED_DATA__ mockBackend "Answers of the real backend, replayed"; do
  if hits=$(grep -rlF -- "$needle" "$dist"); then
    echo "check-bundle: $dist contains \"$needle\" (the test backend or its recording) in:" >&2
    echo "$hits" | sed 's/^/  /' >&2
    status=1
  fi
done
if chunks=$(find "$dist" -iname '*mock*' -o -iname '*recorded*' | grep .); then
  echo "check-bundle: $dist has chunks of the test backend:" >&2
  echo "$chunks" | sed 's/^/  /' >&2
  status=1
fi

if [ "$status" = 0 ]; then
  echo "check-bundle: $dist has no test backend and no recorded data ($(find "$dist" -type f | wc -l) files)"
fi
exit "$status"
