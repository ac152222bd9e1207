package host

import "golang.org/x/sys/windows"

// processRuns reports whether the process pid still runs: its handle is
// not yet signalled.
func processRuns(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false // gone, its pid no longer known
	}
	defer windows.CloseHandle(h)
	event, err := windows.WaitForSingleObject(h, 0)
	return err == nil && event == uint32(windows.WAIT_TIMEOUT)
}
