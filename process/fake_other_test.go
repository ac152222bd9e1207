//go:build !unix && !windows

package process

import "syscall"

// escapeGroup has no meaning without process groups.
func escapeGroup() *syscall.SysProcAttr { return nil }

func runPlatformFake(string, []string) (int, bool) { return 0, false }
