//go:build !windows

package testutil

// UnderWine is false outside Windows: wine runs Windows programs only.
func UnderWine() bool { return false }
