//go:build linux

package hardening

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// planted are credentials of the app's environment: none reaches a plugin.
var planted = map[string]string{
	"ANTHROPIC_API_KEY":        "sk-ant-planted-1",
	"OPENAI_API_KEY":           "sk-planted-2",
	"AWS_ACCESS_KEY_ID":        "AKIAPLANTED3",
	"AWS_SECRET_ACCESS_KEY":    "planted-4",
	"GITHUB_TOKEN":             "ghp_planted5",
	"GH_TOKEN":                 "gho_planted6",
	"MY_APP_SETTING":           "planted-7",
	"SSH_AUTH_SOCK":            "/tmp/ssh-planted/agent.8",
	"DBUS_SESSION_BUS_ADDRESS": "unix:path=/tmp/planted-9/bus",
	"HTTPS_PROXY":              "http://user:planted-10@proxy.invalid:3128",
	"ESCOUADE_HOME_PLANTED":    "planted-11",
}

// linuxNames are the variables docs/protocol.md#plugin-env lets through on
// Linux (LC_ names by their prefix), the host's own, and the instance token.
var linuxNames = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TMPDIR": true,
	"LANG": true, "LANGUAGE": true, "TZ": true,
	"XDG_CONFIG_HOME": true, "XDG_CACHE_HOME": true, "XDG_DATA_HOME": true, "XDG_STATE_HOME": true,
	"XDG_CONFIG_DIRS": true, "XDG_DATA_DIRS": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "NO_PROXY": true,
	"http_proxy": true, "https_proxy": true, "all_proxy": true, "no_proxy": true,
	"ESCOUADE_PLUGIN_ID": true, "ESCOUADE_PLUGIN_API": true, "ESCOUADE_VERSION": true, "ESCOUADE_LANG": true,
	"ESCOUADE_INSTANCE_TOKEN": true,
}

// plantCredentials sets the planted variables, and LC_TIME and NO_PROXY,
// which pass, in the environment the command inherits.
func plantCredentials(t *testing.T) {
	for name, value := range planted {
		t.Setenv(name, value)
	}
	t.Setenv("LC_TIME", "C")
	t.Setenv("NO_PROXY", "localhost")
}

// checkEnvironment fails when env holds a planted name or value, a name
// the documented list does not give, or lacks what it must keep.
func checkEnvironment(t *testing.T, who string, env []string, must map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		got[name] = value
		if !linuxNames[name] && !strings.HasPrefix(name, "LC_") {
			t.Errorf("%s got %s, which the documented list does not give", who, name)
		}
		for pname, pvalue := range planted {
			if strings.Contains(value, pvalue) {
				t.Errorf("%s got the value of %s in %s", who, pname, name)
			}
		}
	}
	for name, want := range must {
		if value, ok := got[name]; !ok || want != "" && value != want {
			t.Errorf("%s got %s=%q (set: %v), want %q", who, name, value, ok, want)
		}
	}
}

// TestProcessPluginEnvironment: a process plugin started by
// escouade-plugin run gets PATH, HOME, the language and the host's
// ESCOUADE_ variables of the command's environment, and none of the API
// keys, tokens, agent socket, session bus or proxy credentials it holds.
func TestProcessPluginEnvironment(t *testing.T) {
	plantCredentials(t)
	dir := plugin{fixture: "puppet", id: "dev.escouade.hardening.env"}.write(t)
	s := run(t, dir)
	a := s.call("env", "do", []any{map[string]any{"env": true}})
	raw, _ := json.Marshal(a["result"])
	var results [][]string
	if err := json.Unmarshal(raw, &results); err != nil || len(results) != 1 {
		t.Fatalf("the answer %s is not one environment: %v", raw, err)
	}
	checkEnvironment(t, "the plugin", results[0], map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "LC_TIME": "C", "NO_PROXY": "localhost",
		"ESCOUADE_PLUGIN_ID": "dev.escouade.hardening.env", "ESCOUADE_PLUGIN_API": "1",
		"ESCOUADE_VERSION": "", "ESCOUADE_LANG": "", "ESCOUADE_INSTANCE_TOKEN": "",
	})
	s.close()
}
