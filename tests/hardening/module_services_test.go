//go:build linux

package hardening

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// relayPlugin is a run.js plugin whose bundle relays requests to the host
// (testdata/relay.mjs), with the permissions given.
func relayPlugin(t *testing.T, permissions map[string]any, limits map[string]any) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "relay.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{"name": "relay", "run": map[string]any{"js": "dist/plugin.mjs"}, "permissions": permissions}
	if limits != nil {
		m["limits"] = limits
	}
	return plugin{id: "dev.escouade.hardening.relay", manifest: m, files: map[string]string{"dist/plugin.mjs": string(src)}}.write(t)
}

// relayed is one answer of the host the bundle relayed.
type relayed struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
		Data struct {
			Reason string `json:"reason"`
		} `json:"data"`
	} `json:"error"`
}

// ask has the bundle send n copies of one request to the host at once and
// returns the host's answers.
func (s *session) ask(id, method string, params any, n int) []relayed {
	s.t.Helper()
	a := s.call(id, "relay/ask", map[string]any{"method": method, "params": params, "n": n})
	raw, _ := json.Marshal(a["result"])
	var out []relayed
	if err := json.Unmarshal(raw, &out); err != nil || len(out) != n {
		s.t.Fatalf("relay/ask %s: %v: %s", method, err, raw)
	}
	return out
}

// strays leaves behind, in every way a program can, a process that would
// outlive it: a setsid'ed child, setsid -f, a double fork. It writes its
// instance token to the file its first argument names, then runs what
// its second says.
const strays = `echo "$ESCOUADE_INSTANCE_TOKEN" > "$1.part" && mv "$1.part" "$1"
setsid sleep 1000 </dev/null >/dev/null 2>&1 &
setsid -f sleep 1000 </dev/null >/dev/null 2>&1
(sh -c 'sleep 1000 </dev/null >/dev/null 2>&1 &' &)
$2`

// tokenHolders lists the processes whose environment holds the token.
func tokenHolders(token string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && strings.Contains(string(env), "ESCOUADE_INSTANCE_TOKEN="+token+"\x00") {
			cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			found = append(found, e.Name()+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return found
}

// readToken waits for the token the strays script writes.
func readToken(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(waitLong(t))
	for {
		if b, err := os.ReadFile(path); err == nil {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program wrote no token to %s", path)
		}
		runtime.Gosched()
	}
}

// noneHold fails unless no process holds token. The host waited for all
// it killed before it answered (or exited), so none should; the bound is
// generous for the reaping of a loaded machine.
func noneHold(t *testing.T, token, after string) {
	t.Helper()
	if len(token) != 32 {
		t.Fatalf("%s: token %q, the program got no instance token", after, token)
	}
	deadline := time.Now().Add(waitLong(t))
	for left := tokenHolders(token); len(left) > 0; left = tokenHolders(token) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: survivors %q", after, left)
		}
		runtime.Gosched()
	}
}

// TestProcRunChildrenDie: what a program of proc/run leaves behind
// (setsid, setsid -f, a double fork) dies at the end of the call, at the
// plugin's disable and at the host's exit.
func TestProcRunChildrenDie(t *testing.T) {
	dir := relayPlugin(t, map[string]any{"programs": []string{"sh"}, "files": []string{"temp"}}, nil)
	tokens := t.TempDir()
	runArgs := func(name, then string) map[string]any {
		return map[string]any{"program": "sh", "args": []string{"-c", strays, "sh", filepath.Join(tokens, name), then},
			"cwd": map[string]any{"root": "temp", "path": "."}}
	}
	s := run(t, dir, "--delay", "relay/ask=120s")
	if a := s.ask("end", "proc/run", runArgs("end", ""), 1); a[0].Error != nil {
		t.Fatalf("proc/run: %+v", a[0].Error)
	}
	noneHold(t, readToken(t, filepath.Join(tokens, "end")), "the call's end")

	for _, stop := range []string{"disable", "close"} {
		if stop == "close" {
			s.send(`{"op":"enable"}`)
		}
		s.sendJSON(map[string]any{"op": "call", "id": stop, "method": "relay/ask",
			"params": map[string]any{"method": "proc/run", "params": runArgs(stop, "sleep 1000"), "n": 1}})
		token := readToken(t, filepath.Join(tokens, stop))
		if stop == "close" {
			s.close()
		} else {
			s.send(`{"op":"disable"}`)
			s.answer(stop)
		}
		noneHold(t, token, stop)
	}
}

// TestProcRunEnvironment: a program of proc/run gets what a process plugin
// gets of the host's environment, and its own temporary folder; the
// planted credentials do not reach it.
func TestProcRunEnvironment(t *testing.T) {
	plantCredentials(t)
	dir := relayPlugin(t, map[string]any{"programs": []string{"env"}, "files": []string{"temp"}}, nil)
	s := run(t, dir)
	a := s.ask("env", "proc/run", map[string]any{"program": "env", "args": []string{}, "cwd": map[string]any{"root": "temp", "path": "."}}, 1)
	var got struct{ Stdout string }
	if a[0].Error != nil || json.Unmarshal(a[0].Result, &got) != nil {
		t.Fatalf("proc/run env: %+v %s", a[0].Error, a[0].Result)
	}
	env := strings.Split(strings.TrimSuffix(got.Stdout, "\n"), "\n")
	checkEnvironment(t, "the program", env, map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "LC_TIME": "C", "TMPDIR": "", "ESCOUADE_INSTANCE_TOKEN": "",
	})
	s.close()
}

// TestNetStreamLimit: 17 streams at once: 16 open, the 17th is refused
// with the sentence of the limit.
func TestNetStreamLimit(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-release
	}))
	defer srv.Close()
	defer close(release)
	dir := relayPlugin(t, map[string]any{"network": []string{"local:shared"}}, nil)
	s := run(t, dir, "--shared-host", strings.TrimPrefix(srv.URL, "http://"), "--delay", "relay/ask=120s")
	answers := s.ask("streams", "net/stream", map[string]any{"url": srv.URL + "/s"}, 17)
	var open, refused int
	for _, a := range answers {
		switch {
		case a.Error == nil:
			open++
		case a.Error.Code == -32003 && a.Error.Data.Reason == "16 streams are open, the most a plugin may hold":
			refused++
		default:
			t.Errorf("unexpected answer: %+v", a.Error)
		}
	}
	if open != 16 || refused != 1 {
		t.Errorf("%d streams open, %d refused; want 16 and 1", open, refused)
	}
	s.close()
}

// TestNetFetchBounded: 16 fetches at once of a 64 MiB body, with
// limits.netMaxBytes at 64 MiB: each is refused with the sentence that
// sends it to net/stream (an answer carries 4 MiB of body at most), and
// the host's memory stays far from the 4 GB this once took.
func TestNetFetchBounded(t *testing.T) {
	body := make([]byte, 64<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	defer srv.Close()
	dir := relayPlugin(t, map[string]any{"network": []string{"local:shared"}}, map[string]any{"netMaxBytes": 64 << 20, "netTimeoutMs": 120000})
	s := run(t, dir, "--shared-host", strings.TrimPrefix(srv.URL, "http://"), "--delay", "relay/ask=300s")
	answers := s.ask("fetches", "net/fetch", map[string]any{"url": srv.URL + "/big"}, 16)
	tooLarge := fmt.Sprintf("%s/big: the body is over the 4194304 bytes a net/fetch answer carries (limits.netMaxBytes 67108864 holds for net/stream): read it through net/stream", srv.URL)
	for i, a := range answers {
		if a.Error == nil || a.Error.Code != -32004 || (a.Error.Data.Reason != tooLarge && !strings.Contains(a.Error.Data.Reason, "the fetches under way hold 16 MiB")) {
			t.Errorf("fetch %d: %+v", i, a.Error)
		}
	}
	// The peak resident memory of the host: the bodies in flight are
	// bounded to 16 MiB; 400 MB is generous for the engine and the race
	// of 16 requests on a loaded machine, and ten times below the 4.2 GB.
	peak := livePeakRSS(t, s.cmd.Process.Pid)
	t.Logf("the host peaked at %d MiB", peak>>20)
	if peak > 400<<20 {
		t.Errorf("the host peaked at %d MiB", peak>>20)
	}
	s.close()
}

// livePeakRSS reads VmHWM of pid, in bytes.
func livePeakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
