//go:build linux

package hardening

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serveAgents starts the built view over home with the fake agent in
// PATH playing script.
func serveAgents(t *testing.T, home, script string) *view {
	t.Helper()
	return serveHomeEnv(t, home, []string{"PATH=" + fakeACPPath(t) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"FAKE_ACP_SCRIPT=" + script, "HOME=" + t.TempDir()})
}

// events opens an agent's event stream as its page does.
func (v *view) events(t *testing.T, agent string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, v.base+"/agents/"+agent+"/events", nil)
	req.Header.Set("X-Escouade-Secret", v.secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// An agent that floods its page — 40,000 chunks of 1 KiB in one turn —
// while one page follows it and another stalls without reading: the
// stalled page's stream is cut at its buffer (it ends before the flood
// does), the following page gets the whole turn, a page opened after it
// reads the conversation's end only, and the view's memory stays below
// what the agent wrote.
func TestViewAgentFloodingItsPages(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if _, errText, code := cli(t, "install", "../fixtures/plugins/fake-acp", "--home", home); code != 0 {
		t.Fatalf("install: %s", errText)
	}
	chunk := `{"text":"` + strings.Repeat("x", 1024) + `"}`
	steps := strings.TrimSuffix(strings.Repeat(chunk+",", 40000), ",")
	script := filepath.Join(t.TempDir(), "flood.json")
	writeFile(t, script, []byte(`{"scenes":[{"steps":[`+steps+`,{"text":"the end of the flood"}]}]}`))
	v := serveAgents(t, home, script)

	code, body := v.do(t, http.MethodPost, "/agents", url.Values{"harness": {"plugin:dev.escouade.fake-acp:fake-acp"}, "cwd": {cwd}})
	if code != http.StatusOK || !strings.Contains(body, "/agents/agent-1") {
		t.Fatalf("New agent: %d %s", code, body)
	}
	stalled := v.events(t, "agent-1")
	following := v.events(t, "agent-1")
	br := bufio.NewReaderSize(following.Body, 1<<20)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "retry:") {
		t.Fatalf("the stream: %q %v", line, err)
	}
	if code, body := v.do(t, http.MethodPost, "/agents/agent-1/prompt", url.Values{"text": {"flood me"}}); code != http.StatusOK {
		t.Fatalf("prompt: %d %s", code, body)
	}
	// A page that falls behind has its stream cut too and connects again,
	// as EventSource does; the stream it reads afresh carries the end.
	reconnects := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			reconnects++
			br = bufio.NewReaderSize(v.events(t, "agent-1").Body, 1<<20)
			continue
		}
		if strings.Contains(line, "the end of the flood") {
			break
		}
	}
	t.Logf("the following page connected again %d times", reconnects)
	// The stalled page now reads what the view kept for it: its stream
	// was ended, short of the flood's end.
	rest, err := io.ReadAll(stalled.Body)
	if err != nil {
		t.Fatalf("reading the stalled stream: %v", err)
	}
	if strings.Contains(string(rest), "the end of the flood") {
		t.Errorf("the stalled page's stream was not cut: it holds the whole flood (%d bytes)", len(rest))
	}
	// A page opened now reads the conversation's end only, and says so.
	fresh := bufio.NewReaderSize(v.events(t, "agent-1").Body, 1<<20)
	for {
		line, err := fresh.ReadString('\n')
		if err != nil {
			t.Fatalf("a new page's stream: %v", err)
		}
		if strings.HasPrefix(line, "data: [") { // the reset: the conversation so far
			if !strings.Contains(line, "earlier items are not shown") || !strings.Contains(line, "the end of the flood") || len(line) > 5<<20 {
				t.Errorf("a new page's first read: %d bytes, %.200q", len(line), line)
			}
			break
		}
	}
	// The bound is generous for a loaded machine: the point is that the
	// view's memory does not follow what the agent wrote.
	peak := livePeakRSS(t, v.cmd.Process.Pid)
	t.Logf("the view's peak memory: %d MB; the stalled page read %d bytes", peak>>20, len(rest))
	if peak > 150<<20 {
		t.Errorf("the view's peak memory: %d MB, want under 150 MB", peak>>20)
	}
}
