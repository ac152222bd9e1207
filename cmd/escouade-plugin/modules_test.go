package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// handJS is a run.js plugin whose bundle is committed: it runs in WASM
// with nothing to build.
var handJS = filepath.Join("..", "..", "examples", "hand-js")

func TestRunDrivesARunJSPluginInWASM(t *testing.T) {
	in := `{"op":"call","id":"c1","method":"hand/hello","params":{"name":"Ada"}}` + "\n" +
		`{"op":"call","id":"c2","method":"hand/check","params":{"text":"hello"}}` + "\n"
	code, out, errOut := runCLI(t, in, "run", handJS, "--home", t.TempDir())
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	answers := map[string]map[string]any{}
	for _, l := range lines(t, out) {
		if l["op"] == "answer" {
			answers[l["id"].(string)] = l
		}
	}
	if got := answers["c1"]["result"]; got == nil || got.(map[string]any)["text"] != "Hello, Ada!" {
		t.Errorf("c1 = %v; stdout %s", answers["c1"], out)
	}
	if got := answers["c2"]["result"]; got == nil {
		t.Errorf("c2 = %v; stdout %s", answers["c2"], out)
	}
}

func TestTheBenchPassesARunJSPlugin(t *testing.T) {
	code, out, errOut := runCLI(t, "", "test", handJS, "--home", t.TempDir())
	if code != exitOK || !strings.Contains(out, "15 passed, 0 failed") {
		t.Fatalf("exit %d\n%s\nstderr %s", code, out, errOut)
	}
}
