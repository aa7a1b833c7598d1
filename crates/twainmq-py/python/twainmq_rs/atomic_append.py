"""0.2.3's ``twainmq.atomic_append``: append bytes to a file in one write.

Our producers do not use it: the engine appends through a handle it keeps,
checks the file is still in the store, and agrees the day's rollover with
the other producers (docs/FORMAT.md). This is 0.2.3's helper (MIT-licensed)
for programs that call it, made stricter on POSIX: never through a symbolic
link. Each function raises OSError on a failed or short write."""

import ctypes
import errno
import os

# Win32 constants (0.2.3's names)
FILE_APPEND_DATA = 0x0004
FILE_SHARE_READ = 0x00000001
FILE_SHARE_WRITE = 0x00000002
OPEN_ALWAYS = 4
FILE_ATTRIBUTE_NORMAL = 0x80
INVALID_HANDLE_VALUE = ctypes.c_void_p(-1).value  # as 0.2.3's: (HANDLE)-1 as an unsigned value


def atomic_append_win(path, data: bytes) -> None:
    """Windows: one ``WriteFile`` through a handle opened with
    ``FILE_APPEND_DATA`` only, which places each write at the end of the file
    atomically among writers (Python's ``O_APPEND`` is a seek, then a write)."""
    import ctypes
    from ctypes import wintypes

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    kernel32.CreateFileW.restype = wintypes.HANDLE
    handle = kernel32.CreateFileW(
        wintypes.LPCWSTR(os.fspath(path)), FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE,
        None, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, None,
    )
    if handle == INVALID_HANDLE_VALUE:
        raise OSError(ctypes.get_last_error(), f"CreateFileW failed for {os.fspath(path)}")
    try:
        written = wintypes.DWORD(0)
        ok = kernel32.WriteFile(handle, data, len(data), ctypes.byref(written), None)
        if not ok or written.value != len(data):
            raise OSError(ctypes.get_last_error(), f"WriteFile wrote {written.value} of {len(data)} bytes to {os.fspath(path)}")
    finally:
        kernel32.CloseHandle(handle)


def atomic_append_posix(path, data: bytes, mode: int = 0o644) -> None:
    """POSIX: one ``write`` through ``O_APPEND`` (never through a link)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(os.fspath(path), flags, mode)
    try:
        n = os.write(fd, data)
        if n != len(data):
            raise OSError(errno.EIO, f"short write: wrote {n} of {len(data)} bytes to {os.fspath(path)}")
    finally:
        os.close(fd)


def atomic_append(path, data: bytes, mode: int = 0o644) -> None:
    """Append ``data`` to ``path`` (created if missing) in one write, placed
    at the end of the file atomically among writers."""
    if os.name == "nt":
        atomic_append_win(path, data)
    else:
        atomic_append_posix(path, data, mode)
