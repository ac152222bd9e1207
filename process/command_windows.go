package process

import "os/exec"

// programFile is the file a ./ command names: on Windows a program's file
// has an extension the command may leave out (./bin/tool is bin\tool.exe),
// found as a PATH lookup finds it, by the extensions PATHEXT lists. The
// path itself when no such file is there, for the refusal to name.
func programFile(path string) string {
	if found, err := exec.LookPath(path); err == nil {
		return found
	}
	return path
}
