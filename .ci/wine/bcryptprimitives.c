/* A stand-in for bcryptprimitives.dll, which Wine 8 (Debian 12's) lacks and
   Go's runtime loads at start for ProcessPrng: without it no Go program
   starts under that Wine. It forwards to RtlGenRandom (SystemFunction036
   of advapi32), which Wine has. Built by .ci/wine.sh with MinGW-w64; used
   only to run the Windows build under Wine in CI, never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
