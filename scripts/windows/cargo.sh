#!/usr/bin/env bash
# cargo for Windows (x86_64-pc-windows-gnu), cross-built here with mingw-w64:
#
#   scripts/windows/cargo.sh build --release --locked -p twainmq-desktop -p twainmq-cli
#   scripts/windows/cargo.sh test -p twainmq        (tests run under Wine: scripts/windows/run.sh)
#
# Output goes to target/windows/x86_64-pc-windows-gnu/{debug,release}/ ($TWAINMQ_WINDOWS_TARGET_DIR
# to put it elsewhere); a target dir of its own, since the std is not the Linux builds'.
#
# Why each setting:
# - Debian's Rust (/usr/bin/cargo and rustc, packages cargo-web, rustc-web, rust-web-src): rustup
#   fetches no other target here, and the rustup toolchain cannot build std from source for one;
#   Debian's ships std's source, so -Z build-std (RUSTC_BOOTSTRAP=1 on this stable rustc) builds
#   the Windows std with the program.
# - mingw-w64 (gcc-mingw-w64-x86-64): gcc links; windres compiles the app's resources (icon,
#   version, manifest: tauri-build through embed-resource, which finds
#   x86_64-w64-mingw32-windres itself); dlltool makes the import libraries of crates that link
#   with raw-dylib (rustc calls x86_64-w64-mingw32-dlltool itself when cross-compiling).
# - The app also needs WebView2Loader.dll beside it: tauri-build copies the one in the
#   webview2-com-sys crate into the profile's folder.
# - The release profile is the workspace's, without debug info (CARGO_PROFILE_RELEASE_DEBUG=0):
#   nothing here reads DWARF from a Windows .exe, and it only makes the build slower and the
#   .exe larger. The installer strips the symbols too.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
target=x86_64-pc-windows-gnu

missing=()
for tool in /usr/bin/cargo /usr/bin/rustc x86_64-w64-mingw32-gcc x86_64-w64-mingw32-windres x86_64-w64-mingw32-dlltool; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
sysroot_src=$(/usr/bin/rustc --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library
[ -d "$sysroot_src" ] || missing+=("$sysroot_src")
if [ "${#missing[@]}" -gt 0 ]; then
  echo "windows/cargo.sh: missing ${missing[*]} (scripts/deps.sh installs rustc-web, cargo-web, rust-web-src and gcc-mingw-w64-x86-64)" >&2
  exit 1
fi

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/windows/cargo.sh COMMAND [ARGS...]   (build, test, check, clippy, ...)" >&2
  exit 2
fi
command=$1
shift

export RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$root/scripts/windows/run.sh"
export CARGO_PROFILE_RELEASE_DEBUG=0
cd "$root"
exec /usr/bin/cargo "$command" -Z build-std=std,panic_abort --target "$target" \
  --target-dir "${TWAINMQ_WINDOWS_TARGET_DIR:-$root/target/windows}" "$@"
