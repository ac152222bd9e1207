package acceptance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// examplePlugin copies an example folder with an id of its own and the
// manifest changes given.
func examplePlugin(t *testing.T, name string, change func(m map[string]any)) plugin {
	t.Helper()
	src := filepath.Join(repoRoot, "examples", name)
	dir := t.TempDir()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dir, rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "escouade-plugin.json"))
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("the manifest of %s: %v", name, err)
	}
	id := fmt.Sprintf("dev.acceptance.p%d-%s", idCount.Add(1), name)
	m["id"] = id
	if change != nil {
		change(m)
	}
	writeFile(t, filepath.Join(dir, "escouade-plugin.json"), mustJSON(m))
	return plugin{dir: dir, id: id}
}

// hello-js, built with the SDK: calls, a batch, its root JSON file, a
// timer, settings, a secret kept and masked, a log, fetch through the
// guard, and a restart.
func TestJSSDKBundle(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	}))
	defer srv.Close()
	p := examplePlugin(t, "hello-js", func(m map[string]any) {
		m["permissions"].(map[string]any)["network"] = []string{"api.github.com", "local:shared"}
	})
	var g map[string]any
	b, _ := os.ReadFile(filepath.Join(p.dir, "greetings.json"))
	json.Unmarshal(b, &g)
	emoji := g["emoji"].(map[string]any)["en"]
	c := start(t, p, "", "--secret", "token=tok-5521-zq", "--shared-host", strings.TrimPrefix(srv.URL, "http://"))

	var greet map[string]any
	c.result("g1", "hello/greet", map[string]any{"name": "Ann", "delayMs": 30}, &greet)
	want := map[string]any{"text": "Hello, Ann" + g["punctuation"].(string), "emoji": emoji, "token": true, "waited": 30.0}
	if diff := cmp.Diff(want, greet); diff != "" {
		t.Errorf("hello/greet (-want +got):\n%s", diff)
	}
	c.journal("log.info greeted Ann")
	c.journal("stderr", "hello-js: greeting Ann")
	c.journal("secret", `"token"`)

	c.send(`{"op":"batch","id":"b","calls":[{"method":"hello/echo","params":{"x":1}},{"method":"hello/greet","params":{"name":"Bo"}},{"method":"hello/none"}]}`)
	if a := c.answer("b.0"); string(a.Res) != `{"x":1}` {
		t.Errorf("b.0 = %s", a.raw)
	}
	if a := c.answer("b.1"); !strings.Contains(string(a.Res), "Hello, Bo") {
		t.Errorf("b.1 = %s", a.raw)
	}
	if a := c.answer("b.2"); a.Err == nil || a.Err.Code != -32601 {
		t.Errorf("b.2 = %s", a.raw)
	}

	// Fetch: to a host it was not granted, refused; to local:shared, through.
	if a := c.call("f1", "hello/fetch", map[string]any{"url": "https://example.org/x"}); a.Err == nil || a.Err.Code != -32003 {
		t.Errorf("fetch of example.org = %s, want -32003", a.raw)
	}
	c.journal("refused net/fetch: example.org is not in permissions.network of")
	var fetched map[string]any
	c.result("f2", "hello/fetch", map[string]any{"url": srv.URL + "/data"}, &fetched)
	if diff := cmp.Diff(map[string]any{"status": 200.0, "type": "application/json", "body": `{"ok":true}`}, fetched); diff != "" {
		t.Errorf("fetch through local:shared (-want +got):\n%s", diff)
	}

	c.send(`{"op":"restart"}`)
	c.journal("start", "instance 2")
	c.result("g2", "hello/greet", map[string]any{"name": "Cy"}, &greet)
	if greet["text"] != "Hello, Cy"+g["punctuation"].(string) {
		t.Errorf("after restart: %v", greet)
	}
	if strings.Contains(c.text(), "tok-5521-zq") {
		t.Errorf("the secret's value is in the journal")
	}
}

// hand-js, written by hand: calls, a batch, rules.json.
func TestJSHandBundle(t *testing.T) {
	t.Parallel()
	c := start(t, examplePlugin(t, "hand-js", nil), "")
	var hello map[string]any
	c.result("h", "hand/hello", map[string]any{"name": "Ann"}, &hello)
	if hello["text"] != "Hello, Ann!" {
		t.Errorf("hand/hello = %v", hello)
	}
	c.send(`{"op":"batch","id":"b","calls":[{"method":"hand/check","params":{"text":"hi"}},{"method":"hand/hello","params":{}}]}`)
	if a := c.answer("b.0"); string(a.Res) != `{"ok":true,"problems":[]}` {
		t.Errorf("hand/check = %s", a.raw)
	}
	if a := c.answer("b.1"); a.Err == nil || a.Err.Code != -32602 {
		t.Errorf("hand/hello without a name = %s, want -32602", a.raw)
	}
	c.send(`{"op":"restart"}`)
	c.journal("start", "instance 2")
	c.result("h2", "hand/hello", map[string]any{"name": "Bo"}, &hello)
}

// A bundle written by hand reads its root JSON file both ways (a URL
// against the bundle, a bare path), other files through files/read, and
// its secret is masked in what it logs and writes on stderr.
func TestJSFilesAndSecrets(t *testing.T) {
	t.Parallel()
	rules := `{"max":3}`
	p := jsPlugin(t, "faults.mjs", map[string]any{"permissions": map[string]any{"secrets": []string{"token"}}},
		map[string]string{"rules.json": rules, "data/words.txt": "alpha\nbeta\n"})
	c := start(t, p, "", "--secret", "token=js-secret-0042")
	var read map[string]any
	c.result("r", "js/read", nil, &read)
	if diff := cmp.Diff(map[string]any{"url": map[string]any{"max": 3.0}, "bare": map[string]any{"max": 3.0}}, read); diff != "" {
		t.Errorf("js/read (-want +got):\n%s", diff)
	}
	var words string
	c.result("w", "js/readfile", []string{"data/words.txt"}, &words)
	if words != "alpha\nbeta\n" {
		t.Errorf("files/read = %q", words)
	}
	var found bool
	c.result("s", "js/secret", nil, &found)
	c.journal("log.info the token is ••••")
	c.journal("stderr", "stderr says the token is ••••")
	if !found || strings.Contains(c.text(), "js-secret-0042") {
		t.Errorf("secret found %v; the value in the journal: %v", found, strings.Contains(c.text(), "js-secret-0042"))
	}
}

func TestJSRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ bundle, reason string }{
		{"child_process.mjs", "node:child_process"},
		{"url_import.mjs", "https://example.com/evil.mjs"},
		{"export_default.mjs", "export"},
		{"sdk02.mjs", "built with @escouade-dev/plugin 0.2: rebuild it with @escouade-dev/plugin 0.3 or later"},
	} {
		t.Run(tc.bundle, func(t *testing.T) {
			t.Parallel()
			c := start(t, jsPlugin(t, tc.bundle, nil, nil), "")
			if a := c.call("c", "any/thing", nil); a.Default == "" {
				t.Errorf("a refused bundle answered: %s", a.raw)
			}
			st := c.waitState("stopped")
			if !strings.Contains(st.Reason, tc.reason) {
				t.Errorf("state = %s, want a reason naming %q", st.raw, tc.reason)
			}
			c.journal("stop", tc.reason)
		})
	}
}

// Each fault ends the instance with its text, within the turn's limit
// plus 100 ms of the timer that started it, while the host keeps
// answering; a new instance then answers.
func TestJSFaults(t *testing.T) {
	t.Parallel()
	other := start(t, examplePlugin(t, "hand-js", nil), "")
	other.result("warm", "hand/hello", map[string]any{"name": "x"}, nil)
	for _, tc := range []struct{ fault, text string }{
		{"loop", "a turn ran past 2000 ms: Escouade stopped its instance"},
		{"regex", "a turn ran past 2000 ms: Escouade stopped its instance"},
		{"recurse", "its instance crashed: InternalError: stack overflow"},
		{"grow", "its instance ran out of its 64 MB of memory"},
		{"throw", "its instance crashed: Error: boom"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			c := start(t, jsPlugin(t, "faults.mjs", nil, nil), "")
			c.call("arm", "js/arm", []string{tc.fault})
			armed := c.journal("log.info armed " + tc.fault)
			// The host answers while the instance runs its fault: the
			// console's state and another plugin's call.
			_, stateAt := c.stateAt()
			other.result("during-"+tc.fault, "hand/hello", map[string]any{"name": tc.fault}, nil)
			ended := c.journal("crash", tc.text)
			// Each fault acts within its turn of 2 s (a loop by the turn
			// limit, whose sentence is asserted above); the upper bound
			// allows a loaded machine, whose timer and journal may both be
			// late by a second.
			if d := stamp(t, ended).Sub(stamp(t, armed)); d > 3010*time.Millisecond {
				t.Errorf("%s ended its instance %s after it was armed, want within 2 s of its 10 ms timer, 3 s on a loaded machine", tc.fault, d)
			}
			if crashAt := c.index(func(l line) bool { return l.Line == ended }); (tc.fault == "loop" || tc.fault == "regex") && stateAt > crashAt {
				t.Errorf("the console answered a state request only after the instance's end")
			}
			c.journal("start", "instance 2")
			if a := c.call("after", "js/echo", []string{"again"}); string(a.Res) != `["again"]` {
				t.Errorf("after the fault: %s", a.raw)
			}
		})
	}
}
