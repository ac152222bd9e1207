//go:build !unix && !windows

package procsvc

import (
	"os"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

// group is the program alone where the system has no groups.
type group struct{ p *os.Process }

func newGroup(leader *os.Process) (*group, error) { return &group{p: leader}, nil }

func (g *group) kill()    { g.p.Kill() }
func (g *group) release() {}

func exitCode(state *os.ProcessState) int { return state.ExitCode() }
