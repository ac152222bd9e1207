//go:build unix

package process

import "syscall"

// escapeGroup moves a child into a session of its own, out of reach of
// signals to its parent's group.
func escapeGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
