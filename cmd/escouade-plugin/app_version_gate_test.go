package main

import (
	"strings"
	"testing"
)

// The reference's sentence for modules and bundles: "It needs Escouade
// 2.2.0 or later".
const needs220 = "needs Escouade 2.2.0 or later"

func TestABundleIsNotStartedUnderEscouadeBelow220(t *testing.T) {
	in := `{"op":"call","id":"c1","method":"hand/hello","params":{"name":"Ada"}}` + "\n" + `{"op":"journal","n":20}` + "\n"
	code, out, errOut := runCLI(t, in, "run", handJS, "--home", t.TempDir(), "--app-version", "2.1.9")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	list := lines(t, out)
	answers := byOp(list, "answer")
	if len(answers) != 1 || answers[0]["result"] != nil || !strings.Contains(answers[0]["reason"].(string), needs220) {
		t.Fatalf("answer = %v, want a default naming %q; stdout %s", answers, needs220, out)
	}
	journal := byOp(list, "journal")
	if len(journal) != 1 || !strings.Contains(strings.Join(toStrings(journal[0]["lines"]), "\n"), needs220) {
		t.Errorf("the journal does not say %q: %v", needs220, journal)
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

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
