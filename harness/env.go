package harness

import (
	"slices"
	"sort"
	"strings"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// agentEnv builds the agent's environment: the app's minus removeEnv, plus
// the harness's env, plus accountVar=<account folder> when there is one.
func agentEnv(app []string, h *manifest.Harness, accountDir string) []string {
	a := h.ACP
	out := make([]string, 0, len(app)+len(a.Env)+1)
	for _, kv := range app {
		name, _, _ := strings.Cut(kv, "=")
		_, replaced := a.Env[name]
		if slices.Contains(a.RemoveEnv, name) || replaced || name == h.AccountVar && accountDir != "" {
			continue
		}
		out = append(out, kv)
	}
	names := make([]string, 0, len(a.Env))
	for name := range a.Env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		out = append(out, name+"="+a.Env[name])
	}
	if h.AccountVar != "" && accountDir != "" {
		out = append(out, h.AccountVar+"="+accountDir)
	}
	return out
}

// lookupEnv gives the last value of name in env, as the OS does.
func lookupEnv(env []string, name string) string {
	value := ""
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			value = v
		}
	}
	return value
}
