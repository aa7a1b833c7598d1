#!/usr/bin/env bash
# The Windows installer: the release app and `twainmq.exe` cross-built here
# (scripts/windows/cargo.sh), packed by makensis with our own script,
# packaging/windows/installer.nsi (a per-user install; see its header). Tauri's own bundler is not
# used: it downloads NSIS plugins at build time, and nothing can be downloaded here.
# The web UI must be built first (`make package-windows` does: it is embedded in the app).
# Prints the installer's path on its last line:
#   target/windows/installer/twainmq-desktop_VERSION_x64-setup.exe
# TWAINMQ_WINDOWS_PROFILE=dev packs the programs of the Windows test build (scripts/windows/
# test.sh --build-only: fresh after `make test-windows`, the app linked as the GUI program a
# release build is) into target/windows/installer/dev/, for the installer test in `make test`:
# what that test checks is the installer and how the installed programs start, not their speed,
# and a build of its own cost about 7 of make test's minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [ ! -f ui/dist/index.html ]; then
  echo "package-windows: the web UI is not built (make package-windows builds it, or cd ui && npm run build)" >&2
  exit 1
fi
command -v makensis >/dev/null || { echo "package-windows: makensis is missing (apt-get install nsis, or scripts/deps.sh)" >&2; exit 1; }
command -v x86_64-w64-mingw32-strip >/dev/null || { echo "package-windows: x86_64-w64-mingw32-strip is missing (binutils-mingw-w64-x86-64)" >&2; exit 1; }

profile=${TWAINMQ_WINDOWS_PROFILE:-release}
start=$SECONDS
case "$profile" in
  release)
    bash scripts/windows/cargo.sh build --release --locked -p twainmq-desktop -p twainmq-cli >&2
    profile_dir=release
    nsis_options=()
    ;;
  dev)
    bash scripts/windows/test.sh --build-only >&2
    profile_dir=debug
    nsis_options=(-DFAST)
    ;;
  *)
    echo "package-windows: TWAINMQ_WINDOWS_PROFILE is release (the default) or dev, not '$profile'" >&2
    exit 2
    ;;
esac
echo "package-windows: cargo build ($profile, x86_64-pc-windows-gnu) took $((SECONDS - start)) s" >&2

bin="${TWAINMQ_WINDOWS_TARGET_DIR:-$root/target/windows}/x86_64-pc-windows-gnu/$profile_dir"
out="${TWAINMQ_WINDOWS_TARGET_DIR:-$root/target/windows}/installer"
[ "$profile" = release ] || out="$out/$profile"
for f in twainmq-desktop.exe twainmq.exe WebView2Loader.dll; do
  [ -f "$bin/$f" ] || { echo "package-windows: $bin/$f is missing after the build" >&2; exit 1; }
done
# tauri-build copies WebView2Loader.dll only if webview2-com-sys's build ran first; a loader for
# another architecture would fail at start on Windows, so both are checked here.
# (objdump's output is read whole: grep -q stopping early would fail the pipe under pipefail.)
for f in twainmq-desktop.exe twainmq.exe WebView2Loader.dll; do
  [[ "$(x86_64-w64-mingw32-objdump -f "$bin/$f")" == *"file format pei-x86-64"* ]] || {
    echo "package-windows: $bin/$f is not a 64-bit Windows file" >&2
    exit 1
  }
done
# A release app is a GUI program (no console window): main.rs's windows_subsystem.
[[ "$(x86_64-w64-mingw32-objdump -p "$bin/twainmq-desktop.exe")" == *"(Windows GUI)"* ]] || {
  echo "package-windows: $bin/twainmq-desktop.exe is not a GUI-subsystem program" >&2
  exit 1
}

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "package-windows: workspace version '$version' is not X.Y.Z" >&2; exit 1; }

stage="$out/stage"
rm -rf "$stage"
mkdir -p "$stage"
# The symbols are for debuggers, which nothing installed uses: about 2/5 of the app's size.
x86_64-w64-mingw32-strip -o "$stage/twainmq-desktop.exe" "$bin/twainmq-desktop.exe"
x86_64-w64-mingw32-strip -o "$stage/twainmq.exe" "$bin/twainmq.exe"
cp "$bin/WebView2Loader.dll" "$stage/"
# What is shipped holds no development tool, recording or test hook (scripts/check-bundle.sh).
bash scripts/check-bundle.sh --bin "$stage/twainmq-desktop.exe" --bin "$stage/twainmq.exe" >&2
cp icons/icon.ico "$stage/twainmq-desktop.ico"
size_kb=$(du -sk "$stage" | cut -f1)

installer="$out/twainmq-desktop_${version}_x64-setup.exe"
start=$SECONDS
makensis -V2 -INPUTCHARSET UTF8 -NOCD \
  "${nsis_options[@]}" "-DVERSION=$version" "-DVERSION4=$version.0" "-DSTAGE=$stage" "-DOUTFILE=$installer" "-DSIZE_KB=$size_kb" \
  packaging/windows/installer.nsi >&2
echo "package-windows: makensis took $((SECONDS - start)) s; $(du -h "$installer" | cut -f1) installer, ${size_kb} KiB installed" >&2
echo "$installer"
