#!/usr/bin/env bash
# A Wine prefix that runs the Rust .exe files built here, made once and reused (idempotent).
#
#   source scripts/windows/prefix.sh    exports WINEPREFIX, WINEDEBUG=-all, WINE and WINESERVER
#   bash scripts/windows/prefix.sh      prints the prefix's path
#
# The prefix is $TWAINMQ_WINEPREFIX, by default ~/.cache/twainmq/wineprefix (a WINEPREFIX already
# in the environment is not used: it may be a prefix of your own, and this one gets a stand-in DLL).
# Run a program with "$WINE" prog.exe ARGS (Linux paths work as arguments: Wine maps / to Z:).
#
# Wine 8 (Debian 12) lacks bcryptprimitives.dll, whose ProcessPrng every Rust .exe imports (std
# seeds HashMap keys with it): without it they fail to start with c0000135. A stand-in built
# from bcryptprimitives.c beside this file (over RtlGenRandom) is put in the prefix's system32;
# it is rebuilt when its source changes. Needs wine64 and gcc-mingw-w64-x86-64 (scripts/deps.sh).
# Two callers at once wait for each other (flock), so the prefix is made once.
#
# Drive N: is typed "network" (HKLM\Software\Wine\Drives), over a folder of the prefix's own:
# GetDriveTypeW answers DRIVE_REMOTE for it, as for a network drive mapped to a letter, so the
# engine's network-store tests (TWAINMQ_TEST_NETWORK_DRIVE=N:) run here. Drive types are read
# when the wineserver starts, so it is restarted once after the key is added.

_twainmq_wineprefix() (
  set -euo pipefail
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  prefix=${TWAINMQ_WINEPREFIX:-$HOME/.cache/twainmq/wineprefix}
  wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
  if [ ! -x "$wine" ]; then
    echo "prefix.sh: wine64 is missing (apt-get install wine64, or scripts/deps.sh)" >&2
    exit 1
  fi
  mkdir -p "$(dirname "$prefix")"
  exec 9>"$prefix.lock"
  flock 9
  export WINEPREFIX=$prefix WINEDEBUG=-all
  # No display and no Mono or Gecko: nothing here needs them, and their installers would ask.
  if [ ! -f "$prefix/system.reg" ]; then
    echo "prefix.sh: making the Wine prefix $prefix" >&2
    # (Input from /dev/null: Wine fails when standard input is closed, as it may be under CI.)
    DISPLAY='' WINEDLLOVERRIDES='mscoree,mshtml=;winemenubuilder.exe=d' "$wine" wineboot --init </dev/null >/dev/null 2>&1
    "$(_twainmq_wineserver "$wine")" -w </dev/null
    [ -f "$prefix/system.reg" ] || { echo "prefix.sh: wineboot made no prefix in $prefix" >&2; exit 1; }
  fi
  if [ ! -L "$prefix/dosdevices/n:" ]; then
    mkdir -p "$prefix/network-drive"
    ln -sfn "$prefix/network-drive" "$prefix/dosdevices/n:"
    "$wine" reg add 'HKLM\Software\Wine\Drives' /v 'n:' /t REG_SZ /d network /f </dev/null >/dev/null 2>&1
    "$(_twainmq_wineserver "$wine")" -k </dev/null 2>/dev/null || true
    "$(_twainmq_wineserver "$wine")" -w </dev/null 2>/dev/null || true
  fi
  dll=$prefix/drive_c/windows/system32/bcryptprimitives.dll
  if [ ! -f "$dll" ] || [ "$here/bcryptprimitives.c" -nt "$dll" ] || [ "$here/bcryptprimitives.def" -nt "$dll" ]; then
    command -v x86_64-w64-mingw32-gcc >/dev/null || {
      echo "prefix.sh: x86_64-w64-mingw32-gcc is missing (apt-get install gcc-mingw-w64-x86-64)" >&2
      exit 1
    }
    x86_64-w64-mingw32-gcc -shared -O2 -o "$dll.new" "$here/bcryptprimitives.c" "$here/bcryptprimitives.def" -ladvapi32
    mv "$dll.new" "$dll"
  fi
  echo "$prefix"
)

# Debian's wine64 package has wineserver64 beside wine64; the wine package links wineserver.
_twainmq_wineserver() {
  local dir
  dir=$(dirname "$1")
  for s in "$dir/wineserver64" "$dir/wineserver" /usr/lib/wine/wineserver64; do
    if [ -x "$s" ]; then
      echo "$s"
      return
    fi
  done
  command -v wineserver || echo wineserver
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  _twainmq_wineprefix
else
  if _twainmq_prefix_path=$(_twainmq_wineprefix); then
    export WINEPREFIX=$_twainmq_prefix_path WINEDEBUG=-all
    WINE=$(command -v wine64 || echo /usr/lib/wine/wine64)
    WINESERVER=$(_twainmq_wineserver "$WINE")
    export WINE WINESERVER
    unset _twainmq_prefix_path
  else
    unset _twainmq_prefix_path
    return 1
  fi
fi
