package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRunConsoleAnswersCallsBatchesAndCommands(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := pluginDir(t, "1.0.0")
	in := strings.Join([]string{
		`{"op":"call","id":"c1","method":"test/echo","params":{"a":1}}`,
		`not json`,
		`{"op":"dance"}`,
		`{"op":"call","id":"c2","method":"test/secret"}`,
		`{"op":"call","id":"c3","method":"no/such"}`,
	}, "\n") + "\n"
	code, out, errOut := runCLI(t, in, "run", dir, "--home", t.TempDir(), "--secret", "token=s3cret")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	got := lines(t, out)
	answers := map[string]map[string]any{}
	for _, a := range byOp(got, "answer") {
		answers[a["id"].(string)] = a
	}
	if diff := cmp.Diff(map[string]any{"a": 1.0}, answers["c1"]["result"]); diff != "" {
		t.Errorf("c1 (-want +got)\n%s", diff)
	}
	if answers["c2"]["result"] != "s3cret" {
		t.Errorf("c2 = %v", answers["c2"])
	}
	if e, _ := answers["c3"]["error"].(map[string]any); e["code"] != -32601.0 {
		t.Errorf("c3 = %v", answers["c3"])
	}
	if errs := byOp(got, "error"); len(errs) != 2 {
		t.Errorf("want 2 error lines for the malformed and unknown commands, got %v", errs)
	}
}

func TestRunConsoleBatchIdsAndDefaults(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := pluginDir(t, "1.0.0")
	in := `{"op":"batch","id":"b1","calls":[{"method":"test/echo","params":[1]},{"method":"test/echo","params":[2],"notify":true},{"method":"test/echo","params":[3]}]}` + "\n" +
		`{"op":"attach","agent":"a1","params":{"mode":"plan"}}` + "\n"
	code, out, _ := runCLI(t, in, "run", dir, "--home", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	ids := map[string]any{}
	for _, a := range byOp(lines(t, out), "answer") {
		ids[a["id"].(string)] = a["result"]
	}
	want := map[string]any{
		"b1.0": []any{1.0}, "b1.2": []any{3.0},
		"a1": map[string]any{"agent": "a1", "mode": "plan"},
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestRunConsoleStatesAndUserChanges(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := pluginDir(t, "1.0.0")
	dir2 := pluginDir(t, "1.1.0")
	home := t.TempDir()
	steps := []string{
		`{"op":"state"}`,
		`{"op":"disable"}`,
		`{"op":"call","id":"off","method":"test/echo","params":[1]}`,
		`{"op":"enable"}`,
		`{"op":"revoke","permissions":{"secrets":["token"]}}`,
		`{"op":"update","dir":"` + dir2 + `"}`,
		`{"op":"journal","n":5}`,
		`{"op":"close"}`,
		`{"op":"state"}`,
	}
	code, out, errOut := runCLI(t, strings.Join(steps, "\n")+"\n", "run", dir, "--home", home)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := lines(t, out)
	var states []string
	for _, s := range byOp(got, "state") {
		states = append(states, fmt.Sprint(s["state"]))
	}
	if diff := cmp.Diff([]string{"idle", "disabled", "idle", "idle", "idle"}, states); diff != "" {
		t.Errorf("states (-want +got)\n%s", diff)
	}
	off := byOp(got, "answer")[0]
	if off["default"] != "stopped" || off["reason"] != "disabled" {
		t.Errorf("call while disabled = %v", off)
	}
	if j := byOp(got, "journal"); len(j) != 1 {
		t.Errorf("journal lines = %v", j)
	}
}

func TestRunFollowWritesJournalLinesAndStates(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := pluginDir(t, "1.0.0")
	code, out, _ := runCLI(t, `{"op":"call","id":"c1","method":"test/echo","params":[1]}`+"\n", "run", "--follow", dir, "--home", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	got := lines(t, out)
	var journal []string
	for _, l := range byOp(got, "journal-line") {
		journal = append(journal, l["line"].(string))
	}
	if len(journal) < 2 || !strings.Contains(journal[0], " start started, pid ") {
		t.Errorf("journal lines = %q", journal)
	}
	var states []string
	for _, s := range byOp(got, "state") {
		states = append(states, s["state"].(string))
	}
	if len(states) == 0 || states[0] != "starting" || !contains(states, "ready") {
		t.Errorf("states = %v", states)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestUsageAndRefusals(t *testing.T) {
	bad := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no command", nil, 2, ""},
		{"unknown command", []string{"fly"}, 2, `unknown command "fly"`},
		{"run without folder", []string{"run"}, 2, "want one plugin folder"},
		{"bad memory limit", []string{"run", bad, "--memory-limit", "lots"}, 2, "--memory-limit"},
		{"bad delay", []string{"run", bad, "--delay", "x=soon"}, 2, "--delay x=soon"},
		{"no manifest", []string{"run", bad}, 1, "escouade-plugin.json"},
		{"unknown flag", []string{"list", "--nope"}, 2, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "", tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, tt.code, tt.msg)
			}
			if strings.Contains(errOut, "goroutine") {
				t.Errorf("a stack trace for a user mistake: %s", errOut)
			}
		})
	}
}

func TestInstallListSwitchAndJournal(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := pluginDir(t, "1.0.0")
	home := t.TempDir()
	code, out, errOut := runCLI(t, "", "install", dir, "--home", home)
	if code != 0 || !strings.Contains(out, "runs a program on your computer, with your rights") || !strings.Contains(out, "It asks for secrets: token") {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "list", "--home", home)
	if code != 0 || !strings.Contains(out, "dev.test.cli") || !strings.Contains(out, "enabled") {
		t.Errorf("list: %d %q", code, out)
	}
	if code, _, _ := runCLI(t, "", "disable", "dev.test.cli", "--home", home); code != 0 {
		t.Errorf("disable: %d", code)
	}
	_, out, _ = runCLI(t, "", "list", "--json", "--home", home)
	if !strings.Contains(out, `"disabled": true`) {
		t.Errorf("list --json after disable: %s", out)
	}
	if code, _, errOut := runCLI(t, "", "enable", "dev.none", "--home", home); code != 1 || !strings.Contains(errOut, "no installed plugin dev.none") {
		t.Errorf("enable unknown: %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, `{"op":"call","id":"c","method":"test/crash"}`+"\n", "run", dir, "--home", home)
	if code != 0 || !strings.Contains(errOut, "dev.test.cli is installed and disabled") {
		t.Errorf("run of a disabled plugin's folder: %d %q, want it to say the plugin is disabled", code, errOut)
	}
	if code, _, _ := runCLI(t, "", "enable", "dev.test.cli", "--home", home); code != 0 {
		t.Errorf("enable: %d", code)
	}
	runCLI(t, `{"op":"call","id":"c","method":"test/crash"}`+"\n", "run", dir, "--home", home)
	code, out, _ = runCLI(t, "", "journal", "dev.test.cli", "-n", "50", "--home", home)
	if code != 0 || !strings.Contains(out, "crash crashed: exit code 3; last line of stderr:") || !strings.Contains(out, "crash | crashing now") {
		t.Errorf("journal: %d\n%s", code, out)
	}
}

func TestHelpListsTheFlagsAndExitsZero(t *testing.T) {
	for _, args := range [][]string{{"run", "-h"}, {"list", "--help"}, {"--help"}} {
		code, out, errOut := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(out, "usage: escouade-plugin") || errOut != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	_, out, _ := runCLI(t, "", "run", "-h")
	if !strings.Contains(out, "-memory-limit") {
		t.Errorf("run -h does not list its flags: %s", out)
	}
}

func TestDurationsInBothForms(t *testing.T) {
	tests := map[string]string{"300ms": "300ms", "300 ms": "300ms", "5 s": "5s", "1 min": "1m0s", "2min": "2m0s", "1m30s": "1m30s"}
	for in, want := range tests {
		d, err := parseDuration(in)
		if err != nil || d.String() != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %s", in, d, err, want)
		}
	}
	if _, err := parseDuration("soon"); err == nil {
		t.Error("parseDuration(soon) gave no error")
	}
}

func TestManageRefusals(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	home := t.TempDir()
	dir := pluginDir(t, "1.0.0")
	runCLI(t, "", "install", dir, "--home", home)
	runCLI(t, "", "disable", "dev.test.cli", "--home", home)
	if code, _, errOut := runCLI(t, "", "restart", "dev.test.cli", "--home", home); code != 1 || !strings.Contains(errOut, "enable it first") {
		t.Errorf("restart of a disabled plugin: %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "journal", "dev.none", "--home", home); code != 1 || !strings.Contains(errOut, "no journal for dev.none") {
		t.Errorf("journal of an unknown id: %d %q", code, errOut)
	}
	if code, _, _ := runCLI(t, "", "journal", "dev.test.cli", "-n", "-3", "--home", home); code != 2 {
		t.Errorf("journal -n -3: exit %d, want 2", code)
	}
	// An update keeps it disabled.
	runCLI(t, "", "install", pluginDir(t, "1.1.0"), "--home", home)
	if _, out, _ := runCLI(t, "", "list", "--json", "--home", home); !strings.Contains(out, `"disabled": true`) || !strings.Contains(out, `"1.1.0"`) {
		t.Errorf("after the update: %s", out)
	}
}
