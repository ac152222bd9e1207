//go:build !unix

package registry

import "os/exec"

// setGroup leaves git in the host's process group where there are no
// process groups to end at once; the context still ends git itself.
func setGroup(*exec.Cmd) {}
