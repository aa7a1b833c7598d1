#!/usr/bin/env bash
# The package as a user gets it: bundle the debug build as a .deb (scripts/package.sh --debug:
# the binaries the other suites tested, no release build), install it with apt (dpkg, and apt
# resolving its Depends), check the installed command, run tests/e2e/package.test.mjs against
# the installed app under Xvfb, then purge the package and check it left none of its files.
# Idempotent: a twainmq-desktop installed before (by an earlier run or by hand) is replaced.
# Needs root or sudo, as scripts/deps.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

installed() { dpkg-query -W -f='${Status}' twainmq-desktop 2>/dev/null | grep -q "ok installed"; }
purge() { $SUDO apt-get purge -y -qq twainmq-desktop >/dev/null; }

deb=$(bash scripts/package.sh --debug | tail -n 1)
echo "package-test: $deb"
dpkg-deb -I "$deb" | sed -n 's/^ \(Package\|Version\|Depends\|Installed-Size\):/  \1:/p'

# The same version installed again would be "already the newest" to apt and not be unpacked:
# whatever is there goes first.
if installed; then
  echo "package-test: replacing the twainmq-desktop installed before"
  purge
fi
# Whatever happens below, the machine is left without the package.
trap 'if installed; then purge; fi' EXIT
$SUDO apt-get install -y -qq --no-install-recommends "$deb" >/dev/null

for f in /usr/bin/twainmq-desktop /usr/bin/twainmq /usr/share/applications/twainmq-desktop.desktop; do
  [ -e "$f" ] || { echo "package-test: $f is not installed" >&2; exit 1; }
done
# The installed command runs (its libraries resolved) and names the workspace version.
/usr/bin/twainmq --version
/usr/bin/twainmq-desktop --version

TWAINMQ_PACKAGE=1 TWAINMQ_APP=/usr/bin/twainmq-desktop TWAINMQ_BIN=/usr/bin/twainmq bash scripts/e2e.sh package.test.mjs

files=$(dpkg-query -L twainmq-desktop | while read -r p; do if [ -f "$p" ]; then echo "$p"; fi; done)
purge
trap - EXIT
if installed || dpkg-query -W -f='${Status}' twainmq-desktop 2>/dev/null | grep -qv "not-installed"; then
  echo "package-test: twainmq-desktop is still known to dpkg after the purge: $(dpkg-query -W -f='${Status}' twainmq-desktop)" >&2
  exit 1
fi
left=$(for f in $files; do if [ -e "$f" ]; then echo "$f"; fi; done)
if [ -n "$left" ]; then
  echo "package-test: the purge left files behind:" >&2
  echo "$left" >&2
  exit 1
fi
if command -v twainmq-desktop >/dev/null || command -v twainmq >/dev/null; then
  echo "package-test: a twainmq binary is still on PATH: $(command -v twainmq-desktop twainmq)" >&2
  exit 1
fi
echo "package-test: installed, ran, and purged without a trace ($(echo "$files" | wc -l) files)"
