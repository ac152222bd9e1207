package fs

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRootsFromAttach(t *testing.T) {
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	params := map[string]json.RawMessage{
		"a1": mustJSON(t, map[string]any{"agent": "a1", "cwd": abs("work"), "repo": abs("repo") + "/", "home": "relative", "mode": "code"}),
		"a2": json.RawMessage(`[1]`),
	}
	roots := RootsFromAttach(func(id string) (json.RawMessage, bool) { raw, ok := params[id]; return raw, ok })
	got, ok := roots("a1")
	if diff := cmp.Diff(AgentRoots{Agent: abs("work"), Repo: abs("repo")}, got); !ok || diff != "" {
		t.Errorf("a1 (-want +got):\n%s", diff)
	}
	if _, ok := roots("a2"); ok {
		t.Error("params that are not an object gave roots")
	}
	if _, ok := roots("zz"); ok {
		t.Error("an agent never attached gave roots")
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
