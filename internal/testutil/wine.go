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

// WineLinks is why a test of symbolic links is skipped under wine: wine 8
// makes a link a Unix one whose target is the Windows path's text
// (backslashes, a drive), which leads nowhere, where Windows makes a
// reparse point to the target.
const WineLinks = "wine 8 makes a symbolic link a Unix one to the Windows path's text, which leads nowhere"
