//go:build unix

package registry

import (
	"os/exec"
	"syscall"
)

// setGroup runs git in its own process group and ends the whole group
// when its context ends: git starts upload-pack, index-pack and the https
// helper, which must not outlive a clone given up.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
