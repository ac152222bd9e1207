/* bcryptprimitives.dll for wine 8, which lacks ProcessPrng: every Go 1.22+
 * program for Windows calls it at start for its random numbers. It is
 * built by scripts/windows-tests and installed in the tests' own wine
 * prefix as a native override of the DLL; Windows itself has the real one.
 * The bytes come from advapi32's RtlGenRandom (SystemFunction036), the
 * system's own generator, so nothing is weaker than on Windows. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
