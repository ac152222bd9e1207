//go:build linux

package hardening

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// nextReply waits for the line that answers a console command: an error,
// or an answer.
func nextReply(s *session) line {
	s.t.Helper()
	return s.next("an error or answer line", func(l line) bool { return l.str("op") == "error" || l.str("op") == "answer" })
}

// Attach params that are not an object, JSON-RPC lines that are answers
// or not messages, and ids that decoding would change, are refused from
// the console and never sent.
func TestConsoleRefusals(t *testing.T) {
	dir := plugin{fixture: "puppet"}.write(t)
	s := run(t, dir)
	defer s.close()
	refused := []string{
		`{"op":"attach","agent":"a1","params":[1]}`,
		`{"op":"attach","agent":"a1","params":7}`,
		`[{"jsonrpc":"2.0","id":1,"result":null}]`,
		`{"jsonrpc":"2.0","id":1,"method":"do","id":2}`,
		"{\"op\":\"call\",\"id\":\"bad\xff\",\"method\":\"do\"}",
		`{"op":"call","id":"bad\ud800","method":"do"}`,
		"{\"op\":\"call\",\"id\":\"c\",\"method\":\"do\xfe\"}",
		`{"op":"attach","agent":"a\udc00","params":{}}`,
	}
	for i, cmd := range refused {
		s.send(cmd)
		// A call after each proves the host kept going and tells where the
		// reply of the refused line would be.
		probe := "probe" + string(rune('a'+i))
		s.sendJSON(map[string]any{"op": "call", "id": probe, "method": "do", "params": []any{}})
		got := nextReply(s)
		if got.str("op") != "error" {
			t.Errorf("sent %q: got %v, want an error line", cmd, got)
		}
		if got.str("id") != probe {
			s.answer(probe)
		}
	}
	if a := s.call("null", "ping", nil); a.str("op") != "answer" || a["default"] != nil { // null params are absent
		t.Errorf("params null: got %v", a)
	}
}

// A broken or ill-typed .escouade.yml is reported without its content.
func TestProjectFileErrorsNeverEchoIt(t *testing.T) {
	const marker = "YmlContentQzx"
	files := map[string]string{
		"broken": "plugins:\n  dev.escouade.hardening.puppet: [ " + marker + "\n  other: {",
		"typed":  "plugins:\n  dev.escouade.hardening.puppet:\n    count: " + marker + "\n",
		"binary": "plugins: \x00\x01" + marker + "\n",
	}
	for name, text := range files {
		t.Run(name, func(t *testing.T) {
			proj := t.TempDir()
			writeFile(t, filepath.Join(proj, ".escouade.yml"), []byte(text))
			dir := plugin{fixture: "puppet", manifest: map[string]any{"contributes": map[string]any{
				"settings": map[string]any{"count": map[string]any{"type": "integer", "default": 1}},
			}}}.write(t)
			s := run(t, dir, "--project", "p1="+proj, "--follow")
			a := s.call("s", "do", []any{map[string]any{"rpc": map[string]any{"method": "settings/get", "params": map[string]any{"project": "p1"}}}})
			s.close()
			b, _ := json.Marshal(a)
			var all strings.Builder
			all.Write(b)
			for _, raw := range s.output() {
				all.Write(raw)
			}
			all.WriteString(s.stderrText())
			all.WriteString(journalFiles(t, s.home, "dev.escouade.hardening.puppet"))
			if i := strings.Index(all.String(), marker[:6]); i >= 0 {
				t.Errorf(".escouade.yml %s: its content reached the output: …%q…", name, all.String()[max(0, i-120):min(all.Len(), i+40)])
			}
		})
	}
}
