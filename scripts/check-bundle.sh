#!/usr/bin/env bash
# Development tools stay out of the product.
# - The app's bundle (ui/dist, embedded in the binary) must not contain the UI's test backend
#   (ui/src/backend/mock.ts and mock/) or the answers it replays (ui/fixtures/recorded-store.json):
#   they load only in tests, the dev server and the preview build (`npm run build:preview` ->
#   ui/dist-preview). Fails when any of their markers, or a chunk of the mock, is in the bundle.
# - The app's binaries (target/debug and, when built, target/release) must not contain the
#   fixture recorder or the bindings generator (the xtask crate), nor the recorded data: fails
#   when a string only those hold is in a binary.
# Usage: scripts/check-bundle.sh [--build] [DIST]
#   DIST defaults to ui/dist; it is built first with --build, or when it is missing.
#   TWAINMQ_APP names one binary to check instead of target/{debug,release}/twainmq-desktop.
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
  [__TWAINMQ_TEST_BACKEND__]=ui/src/backend/mock.ts
  [__TWAINMQ_RECORDED_DATA__]=ui/fixtures/recorded-store.json
  [twainmq-record-]=xtask/src/record/scene.rs
  ["Answers of the real backend, replayed"]=xtask/src/record/mod.rs
  [createMockBackend]=ui/src/backend/mock.ts
)
status=0
for marker in "${!source[@]}"; do
  if ! grep -qF -- "$marker" "${source[$marker]}"; then
    echo "check-bundle: the marker \"$marker\" is no longer in ${source[$marker]}: update scripts/check-bundle.sh" >&2
    status=1
  fi
done

# The markers, the mock's entry point, and the recording's text.
for needle in __TWAINMQ_TEST_BACKEND__ __TWAINMQ_RECORDED_DATA__ createMockBackend "Answers of the real backend, replayed"; do
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

# The binaries: the recorder's marker and temporary folders, the recording's text, and the
# developer options the app once had.
if [ -n "${TWAINMQ_APP:-}" ]; then
  binaries=("$TWAINMQ_APP")
else
  binaries=()
  for b in target/debug/twainmq-desktop target/release/twainmq-desktop; do
    if [ -f "$b" ]; then binaries+=("$b"); fi
  done
fi
if [ ${#binaries[@]} -eq 0 ]; then
  echo "check-bundle: no app binary to check: build it first (make app)" >&2
  status=1
fi
for bin in "${binaries[@]}"; do
  for needle in __TWAINMQ_RECORDED_DATA__ __TWAINMQ_TEST_BACKEND__ twainmq-record- "Answers of the real backend, replayed" --record-ui-fixture --export-bindings; do
    if grep -qaF -- "$needle" "$bin"; then
      echo "check-bundle: $bin contains \"$needle\" (a development tool or its recording)" >&2
      status=1
    fi
  done
done

if [ "$status" = 0 ]; then
  echo "check-bundle: $dist has no test backend and no recorded data ($(find "$dist" -type f | wc -l) files); ${binaries[*]} hold no recorder, generator or recording"
fi
exit "$status"
