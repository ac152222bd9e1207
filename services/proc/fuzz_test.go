package proc

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"slices"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/services"
	fssvc "github.com/escouade-dev/escouade-plugin/services/fs"
)

// FuzzParams: whatever the params, only a granted name is ever looked up
// (and here found nowhere, so nothing runs), and every refusal has a code
// the schema lists.
func FuzzParams(f *testing.F) {
	for _, seed := range []string{
		`{"program":"git","args":["status"],"cwd":{"root":"agent","path":"."},"agent":"a1"}`,
		`{"program":"sh","args":["-c","id"],"cwd":{"root":"agent","path":"."}}`,
		`{"program":"/bin/sh","args":[],"cwd":{"root":"temp","path":"."}}`,
		`{"program":"git","args":[],"cwd":{"root":"agent","path":"../.."},"agent":"a1"}`, `null`, `[]`,
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, params string) {
		s := New(Config{PluginID: pluginID, Granted: manifest.Permissions{Programs: []string{"git"}, Files: []string{"agent"}},
			Roots: func(string) (fssvc.AgentRoots, bool) { return fssvc.AgentRoots{Agent: dir}, true },
			LookPath: func(name string) (string, error) {
				if name != "git" {
					t.Fatalf("%q was looked up", name)
				}
				return "", exec.ErrNotFound
			}})
		defer s.Close()
		_, err := services.Call(context.Background(), s.Methods()["proc/run"], json.RawMessage(params))
		var se *services.Error
		if err == nil || !errors.As(err, &se) || !slices.Contains([]int64{-32602, -32003, -32004}, se.Code) {
			t.Fatalf("%q: %v", params, err)
		}
	})
}
