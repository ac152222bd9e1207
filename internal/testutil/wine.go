package testutil

import "testing"

// SkipUnderWine skips the test where it runs under wine (the Windows test
// binaries run by scripts/windows-tests), saying why: what wine does not
// do as Windows does. On Windows itself and everywhere else the test runs.
func SkipUnderWine(t testing.TB, why string) {
	t.Helper()
	if UnderWine() {
		t.Skip("under wine, not Windows: " + why)
	}
}
