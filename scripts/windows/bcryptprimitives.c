/* A stand-in for Windows' bcryptprimitives.dll, which Wine 8 lacks: Rust's std (1.78 and
 * later) imports ProcessPrng from it to seed HashMap keys, so without this every Rust .exe
 * fails to start under Wine (c0000135, DLL not found). It is installed only into the Wine
 * prefix the Windows suite uses (scripts/windows.sh), never shipped: real Windows has the DLL. */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
