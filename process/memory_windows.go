//go:build windows

package process

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// maxJobProcesses bounds how many processes of a job Memory reads.
const maxJobProcesses = 4096

// jobProcessIDList is JOBOBJECT_BASIC_PROCESS_ID_LIST with room for
// maxJobProcesses ids.
type jobProcessIDList struct {
	assigned uint32
	listed   uint32
	ids      [maxJobProcesses]uintptr
}

// processMemoryCounters is PROCESS_MEMORY_COUNTERS.
type processMemoryCounters struct {
	cb                         uint32
	PageFaultCount             uint32
	PeakWorkingSetSize         uintptr
	WorkingSetSize             uintptr
	QuotaPeakPagedPoolUsage    uintptr
	QuotaPagedPoolUsage        uintptr
	QuotaPeakNonPagedPoolUsage uintptr
	QuotaNonPagedPoolUsage     uintptr
	PagefileUsage              uintptr
	PeakPagefileUsage          uintptr
}

// memory sums the working sets of the processes of the job, which holds
// the whole tree the program started.
func (g *group) memory() (uint64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job == 0 {
		return 0, nil
	}
	var list jobProcessIDList
	err := windows.QueryInformationJobObject(g.job, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil)
	if err != nil {
		return 0, fmt.Errorf("list the processes of the job: %w", err)
	}
	var total uint64
	for _, pid := range list.ids[:list.listed] {
		total += g.workingSet(uint32(pid)) // one that ended meanwhile counts 0
	}
	return total, nil
}

func (g *group) workingSet(pid uint32) uint64 {
	proc, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(proc)
	counters := processMemoryCounters{cb: uint32(unsafe.Sizeof(processMemoryCounters{}))}
	ok, _, _ := g.memoryInfo.Call(uintptr(proc), uintptr(unsafe.Pointer(&counters)), uintptr(counters.cb))
	if ok == 0 {
		return 0
	}
	return uint64(counters.WorkingSetSize)
}
