package main

import (
	"strings"
	"testing"
)

// The reference's sentence for modules and bundles: "It needs Escouade
// 2.2.0 or later".
const needs220 = "needs Escouade 2.2.0 or later"

func TestABundleIsNotStartedUnderEscouadeBelow220(t *testing.T) {
	in := `{"op":"call","id":"c1","method":"hand/hello","params":{"name":"Ada"}}` + "\n"
	home := t.TempDir()
	code, out, errOut := runCLI(t, in, "run", handJS, "--home", home, "--app-version", "2.1.9")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	list := lines(t, out)
	answers := byOp(list, "answer")
	if len(answers) != 1 || answers[0]["result"] != nil || !strings.Contains(answers[0]["reason"].(string), needs220) {
		t.Fatalf("answer = %v, want a default naming %q; stdout %s", answers, needs220, out)
	}
	// Read once run has ended, when every line of the start is written.
	if _, journal, _ := runCLI(t, "", "journal", "dev.escouade.example.hand-js", "--home", home); !strings.Contains(journal, needs220) {
		t.Errorf("the journal does not say %q:\n%s", needs220, journal)
	}
}

func TestTheBenchSaysABundleNeedsEscouade220(t *testing.T) {
	code, out, _ := runCLI(t, "", "test", handJS, "--home", t.TempDir(), "--app-version", "2.0.0")
	if code != exitFail || !strings.Contains(out, needs220) {
		t.Fatalf("exit %d, want %d and %q:\n%s", code, exitFail, needs220, out)
	}
}

func TestAProcessStartsUnderEscouadeBelow220(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	in := `{"op":"call","id":"c1","method":"test/echo","params":{"x":1}}` + "\n"
	code, out, errOut := runCLI(t, in, "run", pluginDir(t, "1.0.0"), "--home", t.TempDir(), "--app-version", "2.0.0")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	answers := byOp(lines(t, out), "answer")
	if len(answers) != 1 || answers[0]["result"] == nil {
		t.Fatalf("a process is not gated by the app version; got %v", answers)
	}
}
