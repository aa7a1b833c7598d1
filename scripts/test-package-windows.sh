#!/usr/bin/env bash
# The Windows installer as a user gets it, under Wine: in a fresh copy of the project's Wine
# prefix (scripts/windows/prefix.sh), install silently to the default per-user folder, install
# again with /D= elsewhere (the first install must move there), check the files, the Start-menu
# entry and the registry (Open-with verbs, App Paths, Add/Remove Programs), run the installed
# twainmq.exe (--version, and a topic created, a message produced and consumed back) and the
# installed app's --version, --help and a command-line error (a GUI-subsystem program: its output
# must still reach a pipe, and a console it was started from), then uninstall silently and check that nothing it installed is left:
# no file and no registry key that was not there before. Fails loudly on any miss.
#
# Usage: scripts/test-package-windows.sh [INSTALLER.exe]
# By default the installer `make package-windows` built (target/windows/installer/); nothing is
# built here. The Tauri window itself cannot run under Wine (no WebView2 runtime).
set -euo pipefail
cd "$(dirname "$0")/.."
# Nothing here reads input, and Wine fails when standard input is closed (as it may be under CI:
# its server socket then takes fd 0).
exec </dev/null

fail() {
  echo "test-package-windows: FAIL: $*" >&2
  exit 1
}
t0=$SECONDS
lap=$SECONDS
step() {
  echo "test-package-windows: $1 ($((SECONDS - lap)) s)"
  lap=$SECONDS
}

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
installer=${1:-${TWAINMQ_WINDOWS_TARGET_DIR:-target/windows}/installer/twainmq-desktop_${version}_x64-setup.exe}
[ -f "$installer" ] || fail "no installer at $installer: make package-windows builds it"
installer=$(realpath "$installer")
echo "test-package-windows: $installer: $(stat -c %s "$installer") bytes ($(du -h "$installer" | cut -f1))"

# shellcheck source=windows/prefix.sh
source scripts/windows/prefix.sh
work=$(mktemp -d)
cleanup() {
  "$WINESERVER" -k >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
cp -a "$WINEPREFIX" "$work/prefix"
export WINEPREFIX="$work/prefix"
# No menus or .desktop files on this machine for the Start-menu entry; no caches in the prefix.
export WINEDLLOVERRIDES="winemenubuilder.exe=d"
export TWAINMQ_INDEX_CACHE=off
drive_c="$WINEPREFIX/drive_c"
step "fresh Wine prefix $WINEPREFIX"

# Wine's programs end lines with CR LF.
wine() { "$WINE" "$@" | tr -d '\r'; }
# Wine keeps the registry in memory and writes it when its server exits: wait for that.
settle() { "$WINESERVER" -w; }
unix_path() { wine winepath -u "$1"; }
# The files under drive_c (Wine's own temporary folders aside) and the keys of the registry.
snapshot() {
  (cd "$drive_c" && find . \( -ipath './windows/temp' -o -ipath './users/*/temp' -o -ipath './users/*/appdata/local/temp' \) -prune -o -print | sort) >"$1.files"
  cat "$WINEPREFIX"/*.reg | sed -n 's/^\(\[[^]]*\]\).*/\1/p' | sort >"$1.keys"
}
# `reg query KEY /v NAME` (or /ve: the default value) -> the value's data.
reg_value() {
  local out
  if [ "$2" = "" ]; then out=$(wine reg query "$1" /ve 2>/dev/null) || return 1; else out=$(wine reg query "$1" /v "$2" 2>/dev/null) || return 1; fi
  sed -n 's/^    [^ ].*    REG_[A-Z_]*    //p' <<<"$out" | head -n 1
}
expect_value() {
  local got
  got=$(reg_value "$1" "$2") || fail "registry value ${2:-(default)} of $1 is missing"
  [ "$got" = "$3" ] || fail "registry $1 ${2:-(default)}: expected [$3], got [$got]"
}

# The user's own PATH before the install: longer than the 1024 characters an NSIS string holds,
# with a %VAR% entry (REG_EXPAND_SZ), so that an install that cut or expanded it shows.
user_path='%USERPROFILE%\bin'
for i in $(seq 1 50); do user_path="$user_path;C:\Tools\tool number $i\bin"; done
wine reg add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d "$user_path" /f >/dev/null || fail "could not set the user's PATH"
settle
path_value() { reg_value 'HKCU\Environment' Path; }
path_type() { wine reg query 'HKCU\Environment' /v Path 2>/dev/null | grep -o 'REG_[A-Z_]*' | head -n 1; }
[ "$(path_value)" = "$user_path" ] || fail "the user's PATH was not set before the install"

snapshot "$work/before"
user_profile=$(unix_path 'C:\users\'"$(wine cmd /c 'echo %USERNAME%')")
[ -d "$user_profile" ] || fail "no Wine user profile at $user_profile"

# 1. The default: per user, no /D=.
wine "$installer" /S || fail "the silent install exited $?"
settle
default_dir="$user_profile/AppData/Local/Programs/TwainMQ Desktop"
[ -f "$default_dir/twainmq-desktop.exe" ] || fail "the default install is not in $default_dir"
default_win=$(reg_value 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\TwainMQDesktop' InstallLocation) || fail "no InstallLocation"
# The option is on by default: the folder is added at the end of the user's PATH, which is kept
# whole and keeps its type; a new console then finds `twainmq` by name.
[ "$(path_value)" = "$user_path;$default_win" ] || fail "the user's PATH after the install is [$(path_value)], not the old one and [$default_win]"
[ "$(path_type)" = REG_EXPAND_SZ ] || fail "the user's PATH is $(path_type) after the install, not REG_EXPAND_SZ"
expect_value 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\TwainMQDesktop' AddedToPath 0x1
# `twainmq` by name in a new console, from the folder the install put on PATH. Wine 8 builds a new
# process's PATH from the registry through a buffer of 1,024 characters: with the long user PATH
# above, a new console's PATH is cut there (measured: 1,118 characters, Wine's own 94 and the
# user's first 1,024), and a program in a folder appended after them is not found (exit 49, the
# same with Wine's own hostname.exe copied into such a folder, no installer involved). Windows
# takes the whole value (up to 32,767 characters). So the registry's value, whole, is checked
# above, and the by-name start with the user's PATH for a moment only the entry the install
# added (what a new console finds at the end of a PATH Windows reads whole).
wine reg add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d "$default_win" /f >/dev/null || fail "could not shorten the user's PATH"
settle
out=$(wine cmd /c "twainmq --version") || fail "twainmq by name in a new console exited $?"
[[ "$out" == "twainmq $version "* ]] || fail "twainmq by name in a new console said [$out]"
wine reg add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d "$user_path;$default_win" /f >/dev/null || fail "could not set the user's PATH back"
settle
[ "$(path_value)" = "$user_path;$default_win" ] || fail "the user's PATH was not set back"
step "silent install to the default folder, on PATH"

# 2. Again with /D= (a folder with a space: through cmd, as a user types it, since Wine would
# quote the argument and NSIS takes /D= unquoted).
inst_win='C:\TwainMQ Test\App'
cp "$installer" "$drive_c/setup.exe"
wine cmd /c "C:\\setup.exe /S /D=$inst_win" || fail "the silent install with /D= exited $?"
settle
rm "$drive_c/setup.exe"
inst=$(unix_path "$inst_win")
step "silent install again with /D=$inst_win"
[ ! -e "$default_dir" ] || fail "the install moved to $inst_win but left $default_dir: $(ls -A "$default_dir")"
# The moved install's folder replaces the old one on PATH (the old install's uninstaller took its
# entry out).
[ "$(path_value)" = "$user_path;$inst_win" ] || fail "the user's PATH after the move is [$(path_value)]"

for f in twainmq-desktop.exe twainmq.exe WebView2Loader.dll twainmq-desktop.ico uninstall.exe; do
  [ -s "$inst/$f" ] || fail "$inst_win\\$f is not installed"
done
lnk="$user_profile/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/TwainMQ Desktop.lnk"
[ -s "$lnk" ] || fail "no Start-menu entry at $lnk"
grep -qa 'twainmq-desktop.exe' "$lnk" || fail "the Start-menu entry does not point at twainmq-desktop.exe"

uninstall_key='HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\TwainMQDesktop'
expect_value "$uninstall_key" DisplayName "TwainMQ Desktop"
expect_value "$uninstall_key" DisplayVersion "$version"
expect_value "$uninstall_key" Publisher "TwainMQ"
expect_value "$uninstall_key" InstallLocation "$inst_win"
expect_value "$uninstall_key" UninstallString "\"$inst_win\\uninstall.exe\""
expect_value "$uninstall_key" QuietUninstallString "\"$inst_win\\uninstall.exe\" /S"
expect_value "$uninstall_key" DisplayIcon "$inst_win\\twainmq-desktop.ico"
expect_value 'HKCU\Software\Classes\Directory\shell\TwainMQDesktop' "" "Open with TwainMQ Desktop"
expect_value 'HKCU\Software\Classes\Directory\shell\TwainMQDesktop\command' "" "\"$inst_win\\twainmq-desktop.exe\" \"%1\""
expect_value 'HKCU\Software\Microsoft\Windows\CurrentVersion\App Paths\twainmq-desktop.exe' "" "$inst_win\\twainmq-desktop.exe"
size=$(reg_value "$uninstall_key" EstimatedSize) || fail "no EstimatedSize"
[ $((size)) -gt 1000 ] || fail "EstimatedSize is $size KiB"
step "files, Start-menu entry and registry checked"

# The installed command: its version, and a message there and back in a store on this machine.
cli="$inst/twainmq.exe"
out=$(wine "$cli" --version) || fail "twainmq.exe --version exited $?"
[[ "$out" == "twainmq $version "* ]] || fail "twainmq.exe --version said [$out]"
echo "  $out"
store="$work/store"
mkdir "$store"
wine "$cli" --store "$store" topics create t --key-type u32 --partitions 2 >/dev/null || fail "topics create exited $?"
msg="hello from Windows $$"
wine "$cli" --store "$store" produce t "$msg" --key 7 >/dev/null || fail "produce exited $?"
out=$(wine "$cli" --store "$store" consume t --max 1 --json) || fail "consume exited $?"
[[ "$out" == *"$msg"* ]] || fail "consume did not give back the message: [$out]"
ls "$store"/t* >/dev/null 2>&1 || fail "the store on the Linux side has no topic t: $(ls -A "$store")"
step "installed twainmq.exe: --version and a produce/consume round trip"

# The installed app: a GUI-subsystem program whose --version, --help and errors reach a pipe.
app="$inst/twainmq-desktop.exe"
out=$(wine "$app" --version) || fail "twainmq-desktop.exe --version exited $?"
[[ "$out" == "twainmq-desktop $version "* ]] || fail "twainmq-desktop.exe --version said [$out]"
echo "  $out"
out=$(wine "$app" --help) || fail "twainmq-desktop.exe --help exited $?"
[[ "$out" == "Usage: twainmq-desktop [STORE]"* ]] || fail "twainmq-desktop.exe --help said [$out]"
rc=0
err=$("$WINE" "$app" --no-such-option 2>&1 >/dev/null) || rc=$?
[ "$rc" = 2 ] || fail "a command-line error exited $rc, not 2"
[[ "$err" == *"unknown option"*"--no-such-option"* ]] || fail "a command-line error said [$err] on stderr"
# Started as from cmd on Windows: a GUI program gets no standard handles, and prints only by
# attaching to its parent's console (main.rs). Wine hands a GUI program the handles it was
# started with, so the test above never needs the console; `start /wait /unix` in a
# pseudo-terminal (script) starts it with none, beside a console to attach to (measured: a
# GUI program that does not attach prints nothing there).
# (script's own input is /dev/null: with none at all, as under CI, it prints nothing.)
out=$(script -qec "'$WINE' start /wait /unix '$app' --version" /dev/null </dev/null) || fail "twainmq-desktop.exe --version from a console exited $?"
[[ "$out" == *"twainmq-desktop $version ("* ]] || fail "twainmq-desktop.exe --version did not reach the console it was started from: [$out]"
step "installed twainmq-desktop.exe: --version, --help and a command-line error, to a pipe and to a console"

# 3. Uninstall silently. The uninstaller copies itself to the temporary folder and runs from there;
# settle waits for that copy too.
wine "$inst/uninstall.exe" /S || fail "the silent uninstall exited $?"
settle
step "silent uninstall"
[ ! -e "$inst" ] || fail "the uninstall left $inst_win: $(ls -A "$inst")"
[ "$(path_value)" = "$user_path" ] || fail "the uninstall left the user's PATH as [$(path_value)], not as it was"
[ "$(path_type)" = REG_EXPAND_SZ ] || fail "the user's PATH is $(path_type) after the uninstall, not REG_EXPAND_SZ"
[ ! -e "$lnk" ] || fail "the uninstall left the Start-menu entry"
for key in "$uninstall_key" 'HKCU\Software\Classes\Directory\shell\TwainMQDesktop' \
  'HKCU\Software\Microsoft\Windows\CurrentVersion\App Paths\twainmq-desktop.exe'; do
  if wine reg query "$key" >/dev/null 2>&1; then fail "the uninstall left the registry key $key"; fi
done
# Nothing else either: every file and registry key now was there before the install, but for the
# parents of the install folders, which the uninstaller does not remove (they may hold other
# things): the /D= folder's, and %LOCALAPPDATA%\Programs, the usual home of per-user programs,
# which a new Wine prefix lacks. The temporary folders are Windows' (the uninstaller runs from a
# copy there, which stays until the next reboot's clean-up).
snapshot "$work/after"
left_files=$(comm -13 "$work/before.files" "$work/after.files" | grep -vx -e './TwainMQ Test' -e './users/[^/]*/AppData/Local/Programs' || true)
[ -z "$left_files" ] || fail "files left after the uninstall:"$'\n'"$left_files"
# Likewise the standard registry keys a new Wine prefix lacks and every Windows has, which hold
# the per-user file classes, App Paths and Add/Remove Programs entries of all programs.
left_keys=$(comm -13 "$work/before.keys" "$work/after.keys" | grep -vxF \
  -e '[Software\\Classes]' \
  -e '[Software\\Microsoft\\Windows\\CurrentVersion\\App Paths]' \
  -e '[Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall]' || true)
[ -z "$left_keys" ] || fail "registry keys left after the uninstall:"$'\n'"$left_keys"
if grep -il twainmq "$WINEPREFIX"/*.reg; then fail "the registry still names twainmq"; fi

# 4. Without the option (/NOPATH), into a folder already on the user's PATH in another spelling:
# PATH is not touched by the install nor by the uninstall.
nopath_win='C:\TwainMQ NoPath'
wine reg add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d "$user_path;c:\twainmq nopath" /f >/dev/null
settle
cp "$installer" "$drive_c/setup.exe"
wine cmd /c "C:\setup.exe /S /NOPATH /D=$nopath_win" || fail "the silent install with /NOPATH exited $?"
settle
[ "$(path_value)" = "$user_path;c:\twainmq nopath" ] || fail "the install with /NOPATH changed the user's PATH to [$(path_value)]"
if reg_value 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\TwainMQDesktop' AddedToPath >/dev/null; then fail "the install with /NOPATH says it added to PATH"; fi
wine "$(unix_path "$nopath_win")/uninstall.exe" /S || fail "the silent uninstall exited $?"
settle
rm "$drive_c/setup.exe"
[ "$(path_value)" = "$user_path;c:\twainmq nopath" ] || fail "the uninstall took out a PATH entry it had not put in: [$(path_value)]"
step "install and uninstall with /NOPATH leave PATH alone"
echo "test-package-windows: installed, ran and uninstalled without a trace ($(stat -c %s "$installer") bytes installer, $((SECONDS - t0)) s)"
