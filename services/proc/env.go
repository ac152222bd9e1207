package procsvc

import (
	"os"
	"runtime"
	"strings"
)

// passedNames are the host's variables a program of proc/run gets, where
// the host has them: what finds programs (PATH; on Windows what runs
// them), the user's folder (HOME, which git and ssh read their settings
// from) and the language and time zone of what it writes. Nothing else
// of the host's reaches it: no token, key or secret the app or its
// shell holds.
func passedNames() []string {
	if runtime.GOOS == "windows" {
		return []string{"PATH", "PATHEXT", "SYSTEMROOT", "WINDIR", "COMSPEC", "USERPROFILE", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "LANG", "TZ"}
	}
	return []string{"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ"}
}

// tempNames are the variables that name the call's temporary folder.
func tempNames() []string {
	if runtime.GOOS == "windows" {
		return []string{"TEMP", "TMP"}
	}
	return []string{"TMPDIR"}
}

// MinimalEnv is the environment of a program of proc/run, made from
// lookup (os.LookupEnv: the host's): the passed names the host has. The
// call adds its temporary folder (TMPDIR; TEMP and TMP on Windows) and,
// on Linux, the instance token that finds what the program leaves
// behind.
func MinimalEnv(lookup func(string) (string, bool)) []string {
	var env []string
	for _, name := range passedNames() {
		if v, ok := lookup(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
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
