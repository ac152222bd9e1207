package testutil

import "golang.org/x/sys/windows/registry"

// UnderWine says whether this Windows is wine: wine keeps its own settings
// under HKLM\Software\Wine, which no Windows has.
func UnderWine() bool {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `Software\Wine`, registry.QUERY_VALUE)
	if err != nil {
		return false
	}
	k.Close()
	return true
}
