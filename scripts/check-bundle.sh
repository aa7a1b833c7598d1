#!/usr/bin/env bash
# Development tools stay out of the product.
# - The app's bundle (ui/dist, embedded in the binary) must not contain the UI's test backend
#   (ui/src/backend/mock.ts and mock/) or the answers it replays (ui/fixtures/recorded-store.json):
#   they load only in tests, the dev server and the preview build (`npm run build:preview` ->
#   ui/dist-preview). Fails when any of their markers, or a chunk of the mock, is in the bundle.
# - The shipped binaries (the app and `twainmq`, in target/debug and, when built, target/release)
#   must not contain the fixture recorder or the bindings generator (the xtask crate), the
#   recorded data, or a test hook (the commands of twainmq-dev: benchmark steps, assign-stdin,
#   seed-demo): fails when a string only those hold is in a binary. The hooks' names are looked
#   for in a built twainmq-dev too, where they must be found, or this check would look for nothing.
# The release builds are checked where they are made: scripts/package-windows.sh checks the
# binaries it packs (in `make test`, those of the Windows debug build).
# Usage: scripts/check-bundle.sh [--build] [--bin FILE]... [DIST]
#   DIST defaults to ui/dist; it is built first with --build, or when it is missing.
#   --bin names a binary to check (repeatable) instead of target/{debug,release}/{twainmq-desktop,twainmq};
#   TWAINMQ_APP names one app binary, as before.
set -euo pipefail
cd "$(dirname "$0")/.."

build=0
given=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=1; shift ;;
    --bin) given+=("$2"); shift 2 ;;
    *) break ;;
  esac
done
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

# The test hooks: the commands of twainmq-dev (clap keeps each command's name in the binary).
# (`bench-follow` stays in `twainmq`: it is the second process of the user's `twainmq bench`.)
hooks=(assign-stdin seed-demo bench-transfer bench-search bench-large bench-mirror)
for dev in target/debug/twainmq-dev target/release/twainmq-dev; do
  [ -f "$dev" ] || continue
  for needle in "${hooks[@]}"; do
    if ! grep -qaF -- "$needle" "$dev"; then
      echo "check-bundle: $dev lacks \"$needle\": the hooks' names changed, update scripts/check-bundle.sh" >&2
      status=1
    fi
  done
done

# The binaries: the recorder's marker and temporary folders, the recording's text, the
# developer options the app once had, and the test hooks.
if [ ${#given[@]} -gt 0 ]; then
  binaries=("${given[@]}")
elif [ -n "${TWAINMQ_APP:-}" ]; then
  binaries=("$TWAINMQ_APP")
else
  binaries=()
  for b in target/debug/twainmq-desktop target/release/twainmq-desktop target/debug/twainmq target/release/twainmq; do
    if [ -f "$b" ]; then binaries+=("$b"); fi
  done
fi
if [ ${#binaries[@]} -eq 0 ]; then
  echo "check-bundle: no app binary to check: build it first (make app)" >&2
  status=1
fi
for bin in "${binaries[@]}"; do
  if [ ! -f "$bin" ]; then
    echo "check-bundle: $bin is missing" >&2
    status=1
    continue
  fi
  for needle in __TWAINMQ_RECORDED_DATA__ __TWAINMQ_TEST_BACKEND__ twainmq-record- "Answers of the real backend, replayed" --record-ui-fixture --export-bindings "${hooks[@]}"; do
    if grep -qaF -- "$needle" "$bin"; then
      echo "check-bundle: $bin contains \"$needle\" (a development tool, its recording or a test hook)" >&2
      status=1
    fi
  done
done

if [ "$status" = 0 ]; then
  echo "check-bundle: $dist has no test backend and no recorded data ($(find "$dist" -type f | wc -l) files); ${binaries[*]} hold no recorder, generator, recording or test hook"
fi
exit "$status"
