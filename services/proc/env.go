package proc

import (
	"os"
	"runtime"
	"strings"
)

// tempNames are the variables that name the call's temporary folder.
func tempNames() []string {
	if runtime.GOOS == "windows" {
		return []string{"TEMP", "TMP"}
	}
	return []string{"TMPDIR"}
}

// withTemp is env with the temporary folder dir, in place of any the env
// names.
func withTemp(env []string, dir string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !namesTemp(kv) {
			out = append(out, kv)
		}
	}
	for _, name := range tempNames() {
		out = append(out, name+"="+dir)
	}
	return out
}

func namesTemp(kv string) bool {
	for _, name := range tempNames() {
		if len(kv) > len(name) && kv[len(name)] == '=' && strings.EqualFold(kv[:len(name)], name) {
			return true
		}
	}
	return false
}

// callTemp makes the temporary folder of one call, under the plugin's
// temporary folder when there is one, else the system's.
func callTemp(pluginTemp string) (string, error) {
	if pluginTemp != "" {
		if err := os.MkdirAll(pluginTemp, 0o700); err == nil {
			if dir, err := os.MkdirTemp(pluginTemp, "proc-"); err == nil {
				return dir, nil
			}
		}
	}
	return os.MkdirTemp("", "escouade-proc-")
}
