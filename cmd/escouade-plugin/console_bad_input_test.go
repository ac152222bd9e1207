package main

import (
	"strings"
	"testing"
)

// Bad input of every kind on the console: each gets one error line, the
// host keeps going and still answers.
func TestReviewConsoleBadInput(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := pluginDir(t, "1.0.0")
	bad := []string{
		`not json`, `[]`, `123`, `"call"`, `null`, `{}`, `{"op":1}`, `{"op":"dance"}`,
		`{"op":"call","method":"test/echo"}`, `{"op":"call","id":"x"}`, `{"op":"call","id":7,"method":"m"}`,
		`{"op":"batch","id":"b"}`, `{"op":"batch","id":"b","calls":[]}`, `{"op":"batch","id":"b","calls":[{}]}`,
		`{"op":"notify"}`, `{"op":"fact"}`, `{"op":"attach"}`, `{"op":"update"}`,
		`{"op":"journal","n":"x"}`, "{\"op\":\"call\",\"id\":\"c\xff\",", `{"op":"call"} trailing`,
	}
	in := strings.Join(bad, "\n") + "\n\n" + `{"op":"call","id":"ok","method":"test/echo","params":[1]}` + "\n"
	code, out, errOut := runCLI(t, in, "run", dir, "--home", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := lines(t, out)
	if n := len(byOp(got, "error")); n != len(bad) {
		t.Errorf("%d error lines for %d bad lines: %v", n, len(bad), got)
	}
	answers := byOp(got, "answer")
	if len(answers) != 1 || answers[0]["id"] != "ok" {
		t.Errorf("answers = %v", answers)
	}
}
