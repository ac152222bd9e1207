package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// TestReviewFSOffAdvertisesNoFS: with "fs": false the client offers no fs
// capability and refuses the agent's fs requests.
func TestReviewFSOffAdvertisesNoFS(t *testing.T) {
	w := newWorld(t)
	writeFile(t, filepath.Join(w.dir, "a.txt"), "text")
	m := fakeManifest(t, func(h *manifest.Harness) { h.ACP.ClientFS = ptr(false) })
	script := reviewScript(t, `{"scenes":[{"steps":[{"read":{"path":"{cwd}/a.txt"}},{"write":{"path":"{cwd}/b.txt","content":"x"}}]}]}`)
	r := start(t, script, Options{Cwd: w.dir, Manifest: m})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("files"))
	items := r.untilType(acp.TypeTurn)
	diff(t, "agent got", []string{
		"fs/read_text_file error: method not found: fs/read_text_file",
		"fs/write_text_file error: method not found: fs/write_text_file",
	}, texts(items, acp.TypeText))
	var init struct {
		Params struct {
			ClientCapabilities struct {
				FS       map[string]bool `json:"fs"`
				Terminal bool            `json:"terminal"`
			} `json:"clientCapabilities"`
			ClientInfo      struct{ Name string } `json:"clientInfo"`
			ProtocolVersion int                   `json:"protocolVersion"`
		} `json:"params"`
	}
	b, _ := json.Marshal(r.received()[0])
	if err := json.Unmarshal(b, &init); err != nil {
		t.Fatal(err)
	}
	diff(t, "fs advertised", false, init.Params.ClientCapabilities.FS["readTextFile"] || init.Params.ClientCapabilities.FS["writeTextFile"])
	diff(t, "client", "escouade", init.Params.ClientInfo.Name)
	diff(t, "version", 1, init.Params.ProtocolVersion)
	if _, err := os.Stat(filepath.Join(w.dir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("the host wrote for an fs:false agent: %v", err)
	}
}
