//go:build !unix

package process

import "syscall"

// escapeGroup has no meaning without process groups.
func escapeGroup() *syscall.SysProcAttr { return nil }
