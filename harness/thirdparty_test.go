package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"github.com/escouade-dev/escouade-plugin/registry"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// exampleAgent is the offline example agent of the ACP Go SDK, a third
// party's agent the harness must run (docs/harness.md#cursors-extensions).
const exampleAgent = "github.com/coder/acp-go-sdk/example/agent"

// exampleManifest describes the example agent as a plugin would.
func exampleManifest(t *testing.T) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Parse([]byte(`{
		"id": "dev.example.acp-go", "name": "ACP Go example", "version": "1.0.0",
		"escouade": {"api": "1"},
		"contributes": {"harnesses": [{"id": "example", "name": "Example", "locate": {"names": ["example-agent"]},
			"versionArgs": [], "acp": {}}]}
	}`), manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestThirdPartyAgent plays the SDK's example agent through the real
// launch path: its tool calls, its permission card answered by kind, end_turn;
// then a cancel mid-turn.
func TestThirdPartyAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a third-party agent for about 10 s")
	}
	dir := t.TempDir()
	if err := testutil.GoBuild(exampleAgent, filepath.Join(dir, "example-agent")); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	opts := Options{Cwd: w.dir, Manifest: exampleManifest(t), Admit: registry.AnyFolder, Env: []string{"PATH=" + dir, "HOME=" + os.TempDir()}}
	r := start(t, "", opts)
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("hello"))
	card := r.untilType(acp.TypePermission)
	tools := ofType(card, acp.TypeTool)
	if len(tools) == 0 || tools[0].Name != "Read" {
		t.Errorf("tool calls before the card: %s", brief(tools))
	}
	last := card[len(card)-1]
	diff(t, "card", []string{"Edit", "allow_once", "reject_once"}, []string{last.Name, last.Options[0].Kind, last.Options[1].Kind})
	r.must(r.s.Answer(last.Request, KindAllowOnce))
	items := r.untilType(acp.TypeTurn)
	diff(t, "answered", "allow", ofType(items, acp.TypeAnswered)[0].Option)
	diff(t, "stop reason", "end_turn", items[len(items)-1].StopReason)

	r.must(r.s.Prompt("again"))
	r.untilType(acp.TypeTool)
	r.must(r.s.Cancel())
	items = r.untilType(acp.TypeTurn)
	diff(t, "cancelled", acp.OutcomeCancelled, items[len(items)-1].StopReason)
}
