#!/usr/bin/env bash
# Bundle the already-built app and `twainmq` command as a Debian package, with the Tauri CLI
# (ui/node_modules, `@tauri-apps/cli`): `tauri bundle` packs the binaries cargo built, so the
# bundle holds exactly what the tests ran, and nothing is compiled a second time.
# Usage: scripts/package.sh [--debug]     (release binaries by default; `make package` builds them)
# Prints the .deb's path on its last line.
#
# The package's Depends are computed from the two binaries' shared libraries by dpkg-shlibdeps
# (the versions Debian's symbols files require), not kept by hand: a new library linked in is a
# new dependency the day it appears.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

profile=release
bundle_flags=()
# The release package is xz-compressed as Debian's are; the debug one, made for the test, fast.
compress=(-Zxz)
if [ "${1:-}" = "--debug" ]; then
  profile=debug
  bundle_flags+=(--debug)
  compress=(-Zgzip -z1)
fi

target_dir=$(cargo metadata --format-version 1 --no-deps --locked | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
bin="$target_dir/$profile"
for b in twainmq-desktop twainmq; do
  if [ ! -x "$bin/$b" ]; then
    echo "package: $bin/$b is not built (make package builds it, or cargo build --$profile -p twainmq-desktop -p twainmq-cli)" >&2
    exit 1
  fi
done
# What is packed holds no development tool, recording or test hook (scripts/check-bundle.sh):
# `make package` checks the release binaries, `make test`'s package-test the debug ones.
bash scripts/check-bundle.sh --bin "$bin/twainmq-desktop" --bin "$bin/twainmq" >&2
tauri="$root/ui/node_modules/.bin/tauri"
if [ ! -x "$tauri" ]; then
  echo "package: the Tauri CLI is missing: run scripts/deps.sh (npm ci in ui/)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# dpkg-shlibdeps reads a source package's control file; a minimal one is enough.
mkdir -p "$work/debian"
printf 'Source: twainmq-desktop\n\nPackage: twainmq-desktop\nArchitecture: any\n' >"$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O "$bin/twainmq-desktop" "$bin/twainmq" 2>"$work/shlibdeps.log") || {
  cat "$work/shlibdeps.log" >&2
  exit 1
}
depends=${shlibs#shlibs:Depends=}
if [ -z "$depends" ] || [ "$depends" = "$shlibs" ]; then
  echo "package: dpkg-shlibdeps gave no dependencies: $shlibs" >&2
  exit 1
fi

# The profile's `twainmq` goes in as /usr/bin/twainmq, beside the app's /usr/bin/twainmq-desktop.
config=$(CLI="$bin/twainmq" python3 -c 'import json, os; print(json.dumps({"bundle": {"linux": {"deb": {"files": {"/usr/bin/twainmq": os.environ["CLI"]}}}}}))')

rm -rf "$bin/bundle/deb"
# --no-binary-patching: the bundle-type marker is for Tauri's updater, which the app does not
# use, and patching would rewrite the binary cargo and the tests know.
CI=true "$tauri" bundle "${bundle_flags[@]}" --bundles deb --no-sign --no-binary-patching --config "$config" >&2
tauri_deb=$(ls "$bin"/bundle/deb/*.deb)

# Tauri's .deb is finished by hand where its bundler has no setting: the package is named
# twainmq-desktop (Tauri derives "twain-mq-desktop" from the product name), the desktop entry is
# twainmq-desktop.desktop (not "TwainMQ Desktop.desktop"), Depends is exactly dpkg-shlibdeps'
# list (Tauri appends unversioned copies of two of them), the binaries lose their debug info
# (about 4/5 of their size; nothing reads it from a package), and Debian's copyright file is there.
stage="$work/stage"
dpkg-deb -R "$tauri_deb" "$stage"
apps="$stage/usr/share/applications"
desktop=("$apps"/*.desktop)
if [ ${#desktop[@]} -ne 1 ]; then
  echo "package: expected one desktop entry in Tauri's bundle, found ${#desktop[@]}" >&2
  exit 1
fi
if [ "${desktop[0]}" != "$apps/twainmq-desktop.desktop" ]; then mv "${desktop[0]}" "$apps/twainmq-desktop.desktop"; fi
desktop-file-validate "$apps/twainmq-desktop.desktop" >&2
strip --strip-debug "$stage/usr/bin/twainmq-desktop" "$stage/usr/bin/twainmq"
install -D -m 644 packaging/deb/copyright "$stage/usr/share/doc/twainmq-desktop/copyright"
installed_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
DEPENDS="$depends" SIZE="$installed_kb" python3 - "$stage/DEBIAN/control" <<'PY'
import os, sys, textwrap
path = sys.argv[1]
fields, order, last = {}, [], None
for line in open(path, encoding="utf-8").read().splitlines():
    if line.startswith((" ", "\t")) and last:
        fields[last] += "\n" + line.strip()
    elif ":" in line:
        last, value = line.split(":", 1)
        fields[last] = value.strip()
        order.append(last)
fields["Package"] = "twainmq-desktop"
fields["Depends"] = os.environ["DEPENDS"]
fields["Installed-Size"] = os.environ["SIZE"]
summary, _, body = fields["Description"].partition("\n")
# A long description is lines of at most ~80 columns, each indented by one space.
body = "\n".join(" " + l for l in textwrap.wrap(" ".join(body.split()), 76))
fields["Description"] = summary + ("\n" + body if body.strip() else "")
with open(path, "w", encoding="utf-8") as f:
    for k in order:
        f.write(f"{k}: {fields[k]}\n")
PY
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
version=$(sed -n 's/^Version: //p' "$stage/DEBIAN/control")
arch=$(sed -n 's/^Architecture: //p' "$stage/DEBIAN/control")
deb="$bin/bundle/deb/twainmq-desktop_${version}_${arch}.deb"
rm -f "$tauri_deb"
rm -rf "$bin/bundle/deb/"*/
dpkg-deb --root-owner-group "${compress[@]}" --build "$stage" "$deb" >&2
echo "$deb"
