//go:build !unix && !windows

package process

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// softStop is false: there is no process group to signal here.
const softStop = false

// group stands in where plugin programs cannot run (js, wasip1, plan9).
type group struct{}

func sysProcAttr() *syscall.SysProcAttr { return nil }

func prepareStart(env []string) ([]string, string) { return env, "" }

func startOnKeptThread(start func() error) error { return start() }

// table stands in for the process table a launcher reads elsewhere.
type table struct{}

func newTable() *table { return &table{} }

func newGroup(_ *table, leader *os.Process, _ string, _ func() bool) (*group, error) {
	_ = leader.Kill()
	return nil, fmt.Errorf("process groups on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

func (*group) noteExit()  {}
func (*group) terminate() {}
func (*group) kill()      {}
func (*group) release()   {}

func (*group) exitOf(state *os.ProcessState) Exit { return Exit{Code: state.ExitCode()} }

func shellCode(state *os.ProcessState) int { return state.ExitCode() }

func (*group) memory() (uint64, error) { return 0, errors.ErrUnsupported }
