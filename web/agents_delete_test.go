package web

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/harness"
)

// Delete is a change: without the start's secret, or from another
// origin, it is refused and the agent and its conversation stay; with
// them, both go. An id that is not an agent's is 404.
func TestAgentDeleteNeedsTheSecret(t *testing.T) {
	home := t.TempDir()
	installed(t, home, fakeACPDir)
	store, err := harness.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	rec := harness.AgentRecord{ID: "agent-1", Harness: fakeACPHarness, Plugin: "dev.escouade.fake-acp", HarnessID: "fake-acp", Cwd: t.TempDir(), Title: "kept"}
	if err := store.SaveAgent(rec); err != nil {
		t.Fatal(err)
	}
	if err := store.Append("agent-1", acp.Item{Type: acp.TypeText, Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	conversation := filepath.Join(home, harness.StoreDir, "agent-1.jsonl")
	v := startView(t, home)
	for name, header := range map[string]map[string]string{
		"no secret":      nil,
		"other origin":   {SecretHeader: v.srv.Secret(), "Origin": "http://evil.example"},
		"a wrong secret": {SecretHeader: "x" + v.srv.Secret()},
	} {
		res := v.post("/agents/agent-1/delete", url.Values{}, header)
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: Delete answered %d, want 403", name, res.StatusCode)
		}
		if _, err := os.Stat(conversation); err != nil {
			t.Fatalf("%s: the conversation is gone: %v", name, err)
		}
	}
	res := v.post("/agents/no-such/delete", url.Values{}, map[string]string{SecretHeader: v.srv.Secret()})
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("Delete of an unknown agent answered %d, want 404", res.StatusCode)
	}
	res = v.post("/agents/agent-1/delete", url.Values{}, map[string]string{SecretHeader: v.srv.Secret()})
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("Delete answered %d", res.StatusCode)
	}
	if _, err := os.Stat(conversation); !os.IsNotExist(err) {
		t.Errorf("the conversation is still there: %v", err)
	}
	if _, ok, _ := store.Agent("agent-1"); ok {
		t.Error("the agent is still recorded")
	}
}
