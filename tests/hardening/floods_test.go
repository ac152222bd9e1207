//go:build linux

package hardening

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// peakLimitKB bounds the command's peak resident memory under a flood: far
// above what a bounded host needs, far below what holding a flood takes.
const peakLimitKB = 1 << 20 // 1 GB

// peakKB is VmHWM of pid, the peak resident memory, in kB.
func peakKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, ln := range strings.Split(string(b), "\n") {
		if f := strings.Fields(ln); len(f) >= 2 && f[0] == "VmHWM:" {
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

func checkPeak(t *testing.T, s *session, flood string) {
	t.Helper()
	if kb := peakKB(t, s.cmd.Process.Pid); kb >= peakLimitKB {
		t.Errorf("%s: the command's peak memory is %d MB, want under %d MB", flood, kb>>10, peakLimitKB>>10)
	} else {
		t.Logf("%s: peak memory %d MB", flood, kb>>10)
	}
}

// One line holding 2,000 files/read of a 250 KB file: the answers would
// take 500 MB; the host holds a bounded part and keeps answering state.
func TestFloodFilesReadBatch(t *testing.T) {
	dir := plugin{fixture: "puppet", files: map[string]string{"big.txt": strings.Repeat("abcdefghij", 25_000)}}.write(t)
	s := run(t, dir, "--delay", "do=5m")
	s.sendJSON(map[string]any{"op": "call", "id": "flood", "method": "do", "params": []any{
		map[string]any{"batch": map[string]any{"n": 2000, "method": "files/read", "params": map[string]any{"path": "big.txt"}}},
	}})
	s.state() // answered while the flood is served
	s.answer("flood")
	st := s.state()
	if st.str("state") != "ready" {
		t.Errorf("after the flood: state %v, want ready", st)
	}
	if a := s.call("after", "do", []any{}); a["result"] == nil {
		t.Errorf("a call after the flood got %v", a)
	}
	checkPeak(t, s, "2,000 files/read of 250 KB")
	s.close()
}

// A million log notifications: the journal drops what it cannot hold and
// says so; the host's memory stays bounded and state answers.
func TestFloodLogNotifications(t *testing.T) {
	dir := plugin{fixture: "puppet"}.write(t)
	s := run(t, dir, "--delay", "do=5m")
	s.sendJSON(map[string]any{"op": "call", "id": "flood", "method": "do", "params": []any{
		map[string]any{"logFlood": 1_000_000},
	}})
	s.state()
	s.answer("flood")
	if st := s.state(); st.str("state") != "ready" {
		t.Errorf("after the flood: state %v, want ready", st)
	}
	checkPeak(t, s, "a million log notifications")
	lines := s.journalOp(5)
	if len(lines) == 0 {
		t.Errorf("the journal op gave no line after the flood")
	}
	s.close()
}

// Ten batches of 8 MiB of requests to a program that never reads its
// stdin: the host's memory stays bounded, state answers, and every call
// still ends with exactly one answer line.
func TestFloodRequestsToADeafProgram(t *testing.T) {
	dir := plugin{fixture: "puppet", files: map[string]string{"puppet.json": `{"deafAfterInit":true}`}}.write(t)
	s := run(t, dir, "--delay", "big/x=2s", "--delay", "first=2s")
	if a := s.call("first", "first", nil); a.str("default") != "timeout" {
		t.Errorf("a call to a program that reads nothing: got %v, want the timeout default", a)
	}
	payload := strings.Repeat("p", 1<<20-200)
	var ids []string
	for b := 0; b < 10; b++ {
		var calls []any
		for c := 0; c < 8; c++ {
			calls = append(calls, map[string]any{"method": "big/x", "params": map[string]any{"p": payload}})
			ids = append(ids, fmt.Sprintf("b%d.%d", b, c))
		}
		s.sendJSON(map[string]any{"op": "batch", "id": fmt.Sprintf("b%d", b), "calls": calls})
	}
	t0 := time.Now()
	s.state()
	t.Logf("state answered %v after the batches were written", time.Since(t0))
	checkPeak(t, s, "10 batches of 8 MiB to a deaf program")
	t0 = time.Now()
	s.close()
	t.Logf("close took %v", time.Since(t0))
	count, kinds := map[string]int{}, map[string]int{}
	for _, raw := range s.output() {
		if l := decode(raw); l.str("op") == "answer" {
			count[l.str("id")]++
			kinds[l.str("default")+errorText(l)]++
		}
	}
	t.Logf("the answers: %v", kinds)
	for _, id := range ids {
		if count[id] != 1 {
			t.Errorf("call %s got %d answer lines, want 1", id, count[id])
		}
	}
}

func errorText(l line) string {
	if e, ok := l["error"].(map[string]any); ok {
		return fmt.Sprintf("error %v %v", e["code"], e["message"])
	}
	return ""
}
