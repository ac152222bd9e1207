//go:build linux

package hardening

import (
	"encoding/json"
	"strings"
	"testing"
)

// The protocol page's own lines, to the letter: a call whose params are an
// object, and a batch whose call sends "params": 1 beside a log
// notification (docs/protocol.md#3-messages).
const (
	referenceCall  = `{"jsonrpc":"2.0","id":7,"method":"echo","params":{"a":1}}`
	referenceBatch = `[{"jsonrpc":"2.0","id":8,"method":"echo","params":1},{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"ready"}}]`
)

// Typed into the console as written, the reference's lines reach the
// plugin, params 1 included, and each call is answered under its own id.
func TestReferenceLinesThroughTheConsole(t *testing.T) {
	dir := plugin{fixture: "puppet"}.write(t)
	s := run(t, dir)
	defer s.close()
	s.send(referenceBatch)
	s.send(referenceCall)
	byID := map[string]line{}
	for len(byID) < 2 {
		l := nextReply(s)
		if l.str("op") == "error" {
			t.Fatalf("the console refused a reference line: %v", l)
		}
		id, _ := json.Marshal(l["id"])
		byID[string(id)] = l
	}
	if got := byID["8"]; got["result"] != float64(1) {
		t.Errorf("answer of id 8 = %v, want the plugin's echo of params 1", got)
	}
	if got, _ := json.Marshal(byID["7"]["result"]); string(got) != `{"a":1}` {
		t.Errorf("answer of id 7 = %v, want the echo of {\"a\":1}", byID["7"])
	}
}

// Sent by a plugin, the reference's batch is served: the call to a method
// the host does not have is answered -32601 (not -32600 for its params),
// and the log notification is journaled.
func TestReferenceBatchFromAPlugin(t *testing.T) {
	dir := plugin{fixture: "puppet"}.write(t)
	s := run(t, dir)
	defer s.close()
	a := s.call("b", "do", []any{map[string]any{"exchange": referenceBatch}})
	results, _ := a["result"].([]any)
	if len(results) != 1 {
		t.Fatalf("answer = %v, want the host's answer to the batch", a)
	}
	answers, _ := results[0].([]any)
	if len(answers) != 1 {
		t.Fatalf("the host answered %v, want an array of one answer (the notification gets none)", results[0])
	}
	got, _ := answers[0].(map[string]any)
	errObj, _ := got["error"].(map[string]any)
	if got["id"] != float64(8) || errObj["code"] != float64(-32601) {
		t.Errorf("answer to the call = %v, want id 8 and -32601 (no such method echo)", got)
	}
	var ready bool
	for _, l := range s.journalOp(50) {
		ready = ready || strings.HasSuffix(l, " log.info ready")
	}
	if !ready {
		t.Errorf("journal lacks the log notification's line: %q", s.journalOp(50))
	}
}
