//go:build linux

package hardening

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// relayBundle is a run.js plugin that relays a host method for the
// test: t/rpc {method, params} sends that request to the host and answers
// with the host's answer, {result} or {error}.
const relayBundle = `import { createInterface } from "node:readline";
const rl = createInterface({ input: process.stdin });
const waiting = new Map();
let next = 1;
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1 } });
  if (m.method === "t/rpc") {
    const id = "h" + next++;
    waiting.set(id, m.id);
    return send({ jsonrpc: "2.0", id, method: m.params.method, params: m.params.params });
  }
  if (m.method === undefined && waiting.has(m.id)) {
    const back = waiting.get(m.id);
    waiting.delete(m.id);
    return send({ jsonrpc: "2.0", id: back, result: { result: m.result === undefined ? null : m.result, error: m.error || null } });
  }
  if (m.id !== undefined) send({ jsonrpc: "2.0", id: m.id, result: null });
});
`

// relay asks the plugin to call method of the host and returns the host's
// error code, 0 when it answered a result.
func relay(t *testing.T, s *session, id, method string, params map[string]any) (code int, result any) {
	t.Helper()
	a := s.call(id, "t/rpc", map[string]any{"method": method, "params": params})
	var r struct {
		Result struct {
			Result any
			Error  *struct{ Code int }
		}
	}
	b, _ := json.Marshal(a)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Result.Error != nil {
		return r.Result.Error.Code, nil
	}
	return 0, r.Result.Result
}

// ownFolderRelayPlugin writes the relay plugin in a folder "me" inside agent, the
// folder an agent will work in, asking for that root.
func ownFolderRelayPlugin(t *testing.T, agent string) string {
	t.Helper()
	dir := filepath.Join(agent, "plugins", "me")
	m := map[string]any{
		"id": "dev.escouade.hardening.relay", "name": "relay", "version": "1.0.0",
		"escouade": map[string]any{"api": "1"}, "run": map[string]any{"js": "dist/plugin.mjs"},
		"activation": []string{"onCall"}, "permissions": map[string]any{"files": []string{"agent"}},
	}
	b, _ := json.Marshal(m)
	writeFile(t, filepath.Join(dir, "escouade-plugin.json"), b)
	writeFile(t, filepath.Join(dir, "dist", "plugin.mjs"), []byte(relayBundle))
	return dir
}

// A module granted a root that holds its own folder cannot change that
// folder through fs/* (the second way of issue 17 item 1), however the
// path spells it; a hard link inside the root to a file outside is
// neither read nor written (item 10).
func TestModuleCannotRewriteItsOwnFolder(t *testing.T) {
	base := t.TempDir()
	agent := filepath.Join(base, "work")
	dir := ownFolderRelayPlugin(t, agent)
	before, _ := os.ReadFile(filepath.Join(dir, "escouade-plugin.json"))
	if err := os.Symlink("plugins/me", filepath.Join(agent, "alias")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside.txt")
	writeFile(t, outside, []byte("SECRET"))
	if err := os.Link(outside, filepath.Join(agent, "linked.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	s := run(t, dir)
	defer s.close()
	s.sendJSON(map[string]any{"op": "attach", "agent": "a1", "params": map[string]any{"cwd": agent}})
	s.answer("a1")
	evil := `{"id":"dev.escouade.hardening.relay","name":"x","version":"1.0.0","escouade":{"api":"1"},"run":{"command":["sh","-c","id > marker"]},"activation":["onCall"]}`
	refused := []struct {
		method string
		params map[string]any
	}{
		{"fs/write", at("plugins/me/escouade-plugin.json", evil)},
		{"fs/write", at("alias/escouade-plugin.json", evil)},
		{"fs/write", at("alias/dist/plugin.mjs", "")},
		{"fs/mkdir", at("plugins/me/bin")},
		{"fs/remove", at("alias/dist/plugin.mjs")},
		{"fs/read", at("linked.txt")},
		{"fs/write", at("linked.txt", "overwritten")},
	}
	for i, c := range refused {
		if code, _ := relay(t, s, "r"+itoa(i), c.method, c.params); code != -32003 {
			t.Errorf("%s %v: code %d, want -32003", c.method, c.params["path"], code)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "escouade-plugin.json")); string(after) != string(before) {
		t.Errorf("its manifest was rewritten: %s", after)
	}
	if b, _ := os.ReadFile(outside); string(b) != "SECRET" {
		t.Errorf("the file outside the root is now %q", b)
	}
	journal := strings.Join(s.journalOp(200), "\n")
	for _, want := range []string{"inside the plugin's own folder, which fs/* never changes", "2 hard links"} {
		if !strings.Contains(journal, want) {
			t.Errorf("the journal lacks %q:\n%s", want, tail(journal, 3000))
		}
	}
	// What the grant gives stays given: its own files read, the root
	// written beside the folder.
	if code, got := relay(t, s, "ok1", "fs/read", at("alias/escouade-plugin.json")); code != 0 || got != string(before) {
		t.Errorf("read of its own manifest: code %d, %v", code, got)
	}
	if code, _ := relay(t, s, "ok2", "fs/write", at("notes.md", "ok")); code != 0 {
		t.Errorf("write beside its folder: code %d", code)
	}
}

// at is the params of an fs/* call on path of the root agent of agent a1,
// with the text to write when one is given.
func at(path string, text ...string) map[string]any {
	p := map[string]any{"root": "agent", "agent": "a1", "path": path}
	if len(text) > 0 {
		p["text"] = text[0]
	}
	return p
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
