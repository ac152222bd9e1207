//go:build windows

package process

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// softStop is false: Windows has no SIGTERM for a group, so Stop goes from
// the stdin grace straight to terminating the job.
const softStop = false

// jobKilledExitCode is the exit code TerminateJobObject gives the processes
// it ends: 137, as shells report a SIGKILL.
const jobKilledExitCode = 137

// group is the Job object the program and all it starts run in.
type group struct {
	memoryInfo *windows.LazyProc // K32GetProcessMemoryInfo

	mu     sync.Mutex
	job    windows.Handle // zero once released
	killed bool           // TerminateJobObject was called
}

// sysProcAttr keeps the console's Ctrl+C, meant for the host, away from
// the program: the host stops it its own way. The program starts
// suspended: newGroup puts it in its job, then lets it run, so nothing it
// starts can be outside the job.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED}
}

// ntResumeProcess resumes a process started suspended: os/exec closes the
// handle of its first thread, so the process is resumed as a whole.
var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// table stands in for the process table a launcher reads on Unix: a job
// object knows its processes itself.
type table struct{}

func newTable() *table { return &table{} }

// newGroup puts the leader, started suspended, in a new job that kills its
// processes when its last handle closes, so they die with the host even
// when it crashes, then lets the leader run: all it starts is in the job.
func newGroup(_ *table, leader *os.Process, _ string, _ func() bool) (*group, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create job object: %w", err)
	}
	if err := setKillOnClose(job); err != nil {
		_ = windows.CloseHandle(job)
		return nil, err
	}
	if err := joinAndResume(job, leader.Pid); err != nil {
		_ = windows.CloseHandle(job)
		return nil, err
	}
	kernel32 := windows.NewLazySystemDLL("kernel32.dll")
	return &group{job: job, memoryInfo: kernel32.NewProc("K32GetProcessMemoryInfo")}, nil
}

func setKillOnClose(job windows.Handle) error {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	_, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err != nil {
		return fmt.Errorf("set job object kill-on-close: %w", err)
	}
	return nil
}

// joinAndResume assigns the suspended process pid to job and resumes it.
func joinAndResume(job windows.Handle, pid int) error {
	const access = windows.PROCESS_SET_QUOTA | windows.PROCESS_TERMINATE | windows.PROCESS_SUSPEND_RESUME
	proc, err := windows.OpenProcess(access, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		return fmt.Errorf("assign process %d to its job object: %w", pid, err)
	}
	if status, _, _ := ntResumeProcess.Call(uintptr(proc)); status != 0 {
		return fmt.Errorf("resume process %d: %w", pid, windows.NTStatus(status))
	}
	return nil
}

// prepareStart adds nothing: the job holds every process of the program.
func prepareStart(env []string) ([]string, string) { return env, "" }

func startOnKeptThread(start func() error) error { return start() }

// noteExit does nothing: the job is asked at each read.
func (g *group) noteExit() {}

// terminate does nothing: there is no gentler stop than kill for a job.
func (g *group) terminate() {}

// kill terminates every process of the job.
func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job == 0 {
		return
	}
	g.killed = true
	_ = windows.TerminateJobObject(g.job, jobKilledExitCode)
}

// release closes the job; kill-on-close ends anything still in it.
func (g *group) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.CloseHandle(g.job)
		g.job = 0
	}
}

// shellCode is the exit code of state's process; one the job ended has
// 137 (jobKilledExitCode), as a shell reports a SIGKILL.
func shellCode(state *os.ProcessState) int { return state.ExitCode() }

// exitOf reports a program the job ended as killed, the way a SIGKILL
// reads on Unix.
func (g *group) exitOf(state *os.ProcessState) Exit {
	g.mu.Lock()
	killed := g.killed
	g.mu.Unlock()
	if killed && state.ExitCode() == jobKilledExitCode {
		return Exit{Code: signalledCode, Signal: syscall.SIGKILL.String()}
	}
	return Exit{Code: state.ExitCode()}
}
