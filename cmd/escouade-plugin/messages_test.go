package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goWords are what a user must never read: Go's types, the parser's
// words, a stack.
var goWords = []string{"Go value", "Go struct", "json: cannot", "json: unknown field", "unexpected EOF", "parse error", "strconv.", "goroutine", "panic:", "map[string]"}

func noGoWords(t *testing.T, what, text string) {
	t.Helper()
	for _, w := range goWords {
		if strings.Contains(text, w) {
			t.Errorf("%s shows %q: %s", what, w, text)
		}
	}
}

func TestUsageLinesNameArguments(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string // a part of stdout
		err  string // a part of stderr
	}{
		{[]string{"help", "run"}, 0, "usage: escouade-plugin run DIR [flags]\n", ""},
		{[]string{"run", "-h"}, 0, "usage: escouade-plugin run DIR [flags]\n", ""},
		{[]string{"journal", "--help"}, 0, "usage: escouade-plugin journal ID [-n N] [-f] [--json]\n", ""},
		{[]string{"help", "disable"}, 0, "usage: escouade-plugin disable ID\n", ""},
		{[]string{"help"}, 0, "  journal ID", ""},
		{[]string{"--version"}, 0, "escouade-plugin 2.2.0 (plugin protocol 1, go", ""},
		{[]string{"version"}, 0, "escouade-plugin 2.2.0", ""},
		{[]string{"help", "nope"}, 2, "", `unknown command "nope"`},
		{[]string{"tset", "x"}, 2, "", `unknown command "tset": did you mean test?`},
		{[]string{"run"}, 2, "", "want one plugin folder: escouade-plugin run DIR (escouade-plugin help run)"},
		{[]string{"journal"}, 2, "", "want a plugin id: escouade-plugin journal ID"},
		{[]string{}, 2, "", "usage: escouade-plugin COMMAND"},
	}
	for _, tt := range tests {
		code, out, errOut := runCLI(t, "", tt.args...)
		if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.err) {
			t.Errorf("%q: exit %d\nstdout %q\nstderr %q\nwant exit %d, stdout holding %q, stderr holding %q",
				tt.args, code, out, errOut, tt.code, tt.out, tt.err)
		}
	}
}

// TestHelpListsOnlyTheFlagsUsed: -h lists the flags the command reads, and
// no flag it would ignore.
func TestHelpListsOnlyTheFlagsUsed(t *testing.T) {
	tests := []struct {
		command     string
		has, hasNot []string
	}{
		{"run", []string{"-keychain", "-secret", "-settings", "-follow"}, nil},
		{"test", []string{"-secret", "-settings", "-json", "-delay"}, []string{"-keychain", "-follow"}},
		{"harness", []string{"-cwd", "-fence", "-home", "-lang"}, []string{"-secret", "-settings", "-delay", "-keychain", "-memory-limit"}},
		{"list", []string{"-home", "-json"}, []string{"-secret", "-lang"}},
		{"install", []string{"-home", "-lang"}, []string{"-secret", "-settings"}},
	}
	for _, tt := range tests {
		_, out, _ := runCLI(t, "", "help", tt.command)
		for _, f := range tt.has {
			if !strings.Contains(out, "  -"+f+" ") && !strings.Contains(out, "  -"+f+"\n") {
				t.Errorf("help %s lacks %s:\n%s", tt.command, f, out)
			}
		}
		for _, f := range tt.hasNot {
			if strings.Contains(out, "  -"+f+" ") || strings.Contains(out, "  -"+f+"\n") {
				t.Errorf("help %s lists %s, which it does not use:\n%s", tt.command, f, out)
			}
		}
	}
}

// settingsPluginDir is pluginDir with a declared setting and a secret one.
func settingsPluginDir(t *testing.T) string {
	t.Helper()
	dir := pluginDir(t, "1.0.0")
	path := filepath.Join(dir, "escouade-plugin.json")
	var m map[string]any
	data, _ := os.ReadFile(path)
	json.Unmarshal(data, &m)
	m["contributes"] = map[string]any{"settings": map[string]any{
		"greeting": map[string]any{"type": "string", "default": "Hello", "label": "Greeting"},
		"apiKey":   map[string]any{"type": "secret", "label": "API key"},
	}}
	data, _ = json.Marshal(m)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMistakesNameTheFieldAndTheFix plays a newcomer's mistakes on the
// command line: each message names the flag, file or field, and the fix.
func TestMistakesNameTheFieldAndTheFix(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := settingsPluginDir(t)
	home := t.TempDir()
	missingCwd := filepath.Join(t.TempDir(), "no-such-folder")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a count that is not a number", []string{"journal", "dev.x", "-n", "abc"}, 2, `-n "abc": want a whole number`},
		{"a flag typo", []string{"run", dir, "--secrte", "a=b"}, 2, "unknown flag -secrte: did you mean --secret?"},
		{"a flag of another command", []string{"test", dir, "--keychain", "memory"}, 2, "test takes no flag --keychain"},
		{"a secret key in the wrong case", []string{"run", dir, "--secret", "Token=x"}, 2,
			`--secret Token: permissions.secrets of ` + filepath.Join(dir, "escouade-plugin.json") +
				` does not grant "Token", so the plugin could never read it (fix: did you mean --secret token=…? (keys are case-sensitive))`},
		{"a secret the bench would never serve", []string{"test", dir, "--secret", "tokn=x"}, 2, "did you mean --secret token=…?"},
		{"a settings file that is an array", []string{"run", dir, "--settings", writeFile(t, `[1]`)}, 2, "holds an array, not a JSON object (fix: write one JSON object"},
		{"a settings file that is not JSON", []string{"run", dir, "--settings", writeFile(t, "{\n  \"greeting\": }")}, 2, "not JSON at line 2, column 15"},
		{"a settings file that is missing", []string{"run", dir, "--settings", filepath.Join(home, "none.json")}, 2, "none.json: no such file"},
		{"a settings key typo", []string{"run", dir, "--settings", writeFile(t, `{"greting":"Salut"}`)}, 2,
			`"greting" is not a setting of dev.test.cli, so the host would drop it (fix: did you mean "greeting"?)`},
		{"a secret setting in the settings file", []string{"run", dir, "--settings", writeFile(t, `{"apiKey":"k"}`)}, 2,
			`"apiKey" is a secret setting: settings/get never carries it (fix: give it with --secret apiKey=VALUE`},
		{"a missing agent folder", []string{"harness", fakeACPDir, "--cwd", missingCwd, "--home", home}, 2,
			"--cwd " + missingCwd + ": no such folder (fix: give the agent's folder, an existing folder)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "", append(tt.args, "--home", home)...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q\nwant exit %d and %q", code, errOut, tt.code, tt.want)
			}
			noGoWords(t, "stderr", errOut)
		})
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("mistakes left files under the home: %v", entries)
	}
}

// TestHarnessFailingAtOnceLeavesNothing: an agent that cannot start (its
// program is not in PATH) leaves no folder under the home.
func TestHarnessFailingAtOnceLeavesNothing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	home := filepath.Join(t.TempDir(), "home")
	code, _, errOut := runCLI(t, "", "harness", fakeACPDir, "--cwd", t.TempDir(), "--home", home, "--json")
	if code == 0 {
		t.Fatalf("harness without its agent program: exit 0")
	}
	noGoWords(t, "stderr", errOut)
	if _, err := os.Stat(home); err == nil {
		var found []string
		filepath.WalkDir(home, func(p string, _ os.DirEntry, _ error) error { found = append(found, p); return nil })
		t.Errorf("a failed harness run left %v under the home (stderr %q)", found, errOut)
	}
}

// noActivationDir is pluginDir without activation.
func noActivationDir(t *testing.T) string {
	t.Helper()
	dir := pluginDir(t, "1.0.0")
	path := filepath.Join(dir, "escouade-plugin.json")
	var m map[string]any
	data, _ := os.ReadFile(path)
	json.Unmarshal(data, &m)
	delete(m, "activation")
	data, _ = json.Marshal(m)
	os.WriteFile(path, data, 0o644)
	return dir
}

// TestNoActivationIsFlagged: a program nothing starts passes validation
// but is flagged by install (a warning) and failed by the bench.
func TestNoActivationIsFlagged(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := noActivationDir(t)
	code, out, errOut := runCLI(t, "", "install", dir, "--home", t.TempDir())
	want := "warning: " + filepath.Join(dir, "escouade-plugin.json") +
		`: /activation: missing: "run" names a program but nothing starts it, so it never runs (fix: add "activation": ["onCall"])`
	if code != 0 || !strings.Contains(errOut, want) || !strings.Contains(out, "Installed.") {
		t.Errorf("install: exit %d, stderr %q; want it installed with %q", code, errOut, want)
	}
	code, out, _ = runCLI(t, "", "test", dir, "--json")
	var report struct {
		Checks []struct{ Check, Status, Fix string } `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("test --json: %v\n%s", err, out)
	}
	for _, c := range report.Checks {
		if c.Check == "activation" {
			if c.Status != "fail" || !strings.Contains(c.Fix, `add "activation": ["onCall"]`) || code != 1 {
				t.Errorf("activation row %+v, exit %d", c, code)
			}
			return
		}
	}
	t.Errorf("no activation row:\n%s", out)
}

// TestConsoleMistakes: the console answers a mistyped command with what it
// expected, and a grant or revoke of what the manifest never asks with the
// key named.
func TestConsoleMistakes(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := pluginDir(t, "1.0.0")
	in := strings.Join([]string{
		`{"op":"call","id":1,"method":"test/echo"}`,
		`{"op":"grant","permissions":{"secrets":["tokn"]}}`,
		`{"op":"grant","permissions":{"secret":["token"]}}`,
		`{"op":"revoke","permissions":{"secrets":["other"]}}`,
		`{"op":"grant","permissions":{"secrets":"token"}}`,
		`{op:"state"}`,
	}, "\n") + "\n"
	code, out, _ := runCLI(t, in, "run", dir, "--home", t.TempDir())
	if code != 0 {
		t.Fatalf("run: exit %d", code)
	}
	var messages []string
	for _, l := range byOp(lines(t, out), "error") {
		messages = append(messages, l["message"].(string))
	}
	want := []string{
		`not a command: "id" must be a string, not a number`,
		`grant: permissions.secrets "tokn" is not asked by the manifest of dev.test.cli, so it is not granted (did you mean "token"?)`,
		`grant: permissions: unknown kind "secret": did you mean "secrets"?`,
		`revoke: permissions.secrets "other" is not granted to dev.test.cli: nothing to take back (granted: token)`,
		`not a command: "permissions.secrets" must be an array of strings, not a string`,
		`not a command: not JSON`,
	}
	if len(messages) != len(want) {
		t.Fatalf("error lines:\n%s\nwant %d", strings.Join(messages, "\n"), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(messages[i], w) {
			t.Errorf("error line %d:\n got %s\nwant %s…", i, messages[i], w)
		}
		noGoWords(t, "an error line", messages[i])
	}
}

// TestBenchFileRefusalSaysWhere: a broken escouade-bench.json is refused
// in the scenarios row with its line, column, scenario and the docs page.
func TestBenchFileRefusalSaysWhere(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := pluginDir(t, "1.0.0")
	bench := "{\"scenarios\": [\n  {\"name\": \"echo\", \"method\": \"test/echo\"}\n]}\n"
	if err := os.WriteFile(filepath.Join(dir, "escouade-bench.json"), []byte(bench), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "", "test", dir)
	want := filepath.Join(dir, "escouade-bench.json") + `: line 2, column 20: scenario 0 ("echo"): /scenarios/0/method: ` +
		`unknown member "method" (fix: write "call"; the format: docs/CLI.md, "Scenarios: escouade-bench.json")`
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("exit %d, report:\n%s\nwant it to hold %s", code, out, want)
	}
	noGoWords(t, "the report", out)
}
