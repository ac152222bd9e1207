package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/registry"
)

func TestReattach(t *testing.T) {
	tests := []struct {
		script  string
		attach  string
		notices []string
	}{
		{fixtureScript("load.json"), acp.AttachLoad, nil},
		{"resume.json", acp.AttachResume, nil},
		{"updates.json", acp.AttachNew, []string{"new session (context cleared)"}},
	}
	for _, tt := range tests {
		t.Run(tt.attach, func(t *testing.T) {
			w := newWorld(t)
			script := tt.script
			if !filepath.IsAbs(script) {
				script = w.script(t, script)
			}
			store, err := OpenStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Cwd: w.dir, Store: store, Agent: "a1"}
			first := start(t, script, opts)
			first.untilType(acp.TypeSession)
			first.must(first.s.Close(t.Context()))
			second := start(t, script, opts)
			items := second.untilType(acp.TypeSession)
			diff(t, "attach", tt.attach, items[len(items)-1].Attach)
			diff(t, "notices", tt.notices, texts(items, acp.TypeNotice))
			second.must(second.s.Close(t.Context()))
			rec, ok, err := store.Agent("a1")
			if err != nil || !ok {
				t.Fatalf("agent record: %v %v", ok, err)
			}
			diff(t, "record", AgentRecord{ID: "a1", Harness: "plugin:dev.escouade.fake-acp:fake-acp", Plugin: "dev.escouade.fake-acp",
				HarnessID: "fake-acp", Cwd: second.s.fence.own, Mode: "default", SessionID: "fake-session-1"}, rec)
			conv, err := store.Conversation("a1")
			if err != nil {
				t.Fatal(err)
			}
			diff(t, "sessions kept", 2, len(ofType(conv, acp.TypeSession)))
			diff(t, "closed kept", 2, len(ofType(conv, acp.TypeClosed)))
		})
	}
}

func TestLoadReplaysHistory(t *testing.T) {
	w := newWorld(t)
	r := start(t, fixtureScript("load.json"), Options{Cwd: w.dir, SessionID: "old-1"})
	items := r.untilType(acp.TypeSession)
	var history []string
	for _, it := range items {
		if it.History {
			history = append(history, it.Type+": "+it.Text)
		}
	}
	diff(t, "history", []string{"user: an old question", "text: an old answer"}, history)
}

func TestStoreListsAbsentHarnesses(t *testing.T) {
	home := t.TempDir()
	store, err := OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	fake, _ := filepath.Abs(fakeDir)
	for _, r := range []AgentRecord{
		{ID: "installed", Plugin: "dev.escouade.fake-acp", HarnessID: "fake-acp"},
		{ID: "disabled", Plugin: "dev.escouade.off", HarnessID: "fake-acp"},
		{ID: "gone", Plugin: "dev.escouade.gone", HarnessID: "goose"},
		{ID: "renamed", Plugin: "dev.escouade.fake-acp", HarnessID: "old-name"},
	} {
		if err := store.SaveAgent(r); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := registry.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	reg.Put(registry.Entry{ID: "dev.escouade.fake-acp", Dir: fake})
	reg.Put(registry.Entry{ID: "dev.escouade.off", Dir: fake, Disabled: true})
	status := func(acpOn bool) map[string]string {
		list, err := store.List(reg, acpOn)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, l := range list {
			out[l.ID] = l.Status()
		}
		return out
	}
	diff(t, "with the ACP harness on", map[string]string{"installed": "", "disabled": Absent, "gone": Absent, "renamed": Absent}, status(true))
	diff(t, "with it off", map[string]string{"installed": Absent, "disabled": Absent, "gone": Absent, "renamed": Absent}, status(false))
	reg.Put(registry.Entry{ID: "dev.escouade.off", Dir: fake})
	diff(t, "back when enabled", "", status(true)["disabled"])
}

func TestStoreConversation(t *testing.T) {
	store, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	items := []acp.Item{{Type: acp.TypeUser, Text: "<hi>"}, {Type: acp.TypeText, Text: "line\nbreak"}}
	if err := store.Append("a-1", items...); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(filepath.Join(store.dir, "a-1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"text","te`) // a write cut by a crash
	f.Close()
	got, err := store.Conversation("a-1")
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "items", items, got)
	for _, bad := range []string{"", "../x", "a/b", ".hidden", strings.Repeat("a", 129)} {
		if err := store.Append(bad, items...); err == nil {
			t.Errorf("agent id %q accepted", bad)
		}
	}
}

// fakeMCP stands for the host's MCP server.
type fakeMCP struct {
	mu      sync.Mutex
	tokens  []string
	revoked []string
}

func (f *fakeMCP) NewToken(agent string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens = append(f.tokens, agent)
	return "token-" + agent
}

func (f *fakeMCP) Revoke(agent string) {
	f.mu.Lock()
	f.revoked = append(f.revoked, agent)
	f.mu.Unlock()
}

func (f *fakeMCP) HTTPEntry(agent string) json.RawMessage {
	return json.RawMessage(`{"type":"http","name":"escouade","url":"http://127.0.0.1:1/mcp","headers":[{"name":"Authorization","value":"Bearer token-` + agent + `"}]}`)
}

func (f *fakeMCP) StdioEntry(agent, exe string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"name": "escouade", "command": exe, "args": []string{"mcp-stdio"}, "env": []string{}})
	return b
}

func TestMCPServerGivenToTheSession(t *testing.T) {
	tests := []struct {
		script string
		want   string
	}{
		{"mcp.json", `"mcpServers":[{"type":"http","name":"escouade","url":"http://127.0.0.1:1/mcp","headers":[{"name":"Authorization","value":"Bearer token-a7"}]}]`},
		{"resume.json", `"mcpServers":[{"args":["mcp-stdio"],"command":"/bin/escouade-plugin","env":[],"name":"escouade"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			w := newWorld(t)
			mcp := &fakeMCP{}
			r := start(t, w.script(t, tt.script), Options{Cwd: w.dir, MCP: mcp, Agent: "a7", Executable: "/bin/escouade-plugin"})
			r.untilType(acp.TypeSession)
			r.must(r.s.Close(t.Context()))
			var params string
			for _, m := range r.received() {
				if string(m["method"]) == `"session/new"` {
					params = string(m["params"])
				}
			}
			if !strings.Contains(params, tt.want) {
				t.Errorf("session/new params %s\nwant them to hold %s", params, tt.want)
			}
			diff(t, "tokens", []string{"a7"}, mcp.tokens)
			diff(t, "revoked", []string{"a7"}, mcp.revoked)
		})
	}
}
