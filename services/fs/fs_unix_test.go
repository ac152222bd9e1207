//go:build unix

package fs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/escouade-dev/escouade-plugin/vocab/proto"
	"github.com/google/go-cmp/cmp"
)

// TestLinks: a link within the root is followed, one that leaves it or
// (under temp) names a hidden file is refused, and fs/remove takes the
// link itself.
func TestLinks(t *testing.T) {
	f := newFixture(t)
	links := map[string]string{
		filepath.Join(f.agent, "inside"):     "notes.md",
		filepath.Join(f.agent, "up"):         "../outside.txt",
		filepath.Join(f.agent, "abs"):        filepath.Join(filepath.Dir(f.agent), "outside.txt"),
		filepath.Join(f.agent, "dir"):        ".git",
		filepath.Join(f.agent, "loop"):       "loop",
		filepath.Join(f.agent, "dangling"):   "made-later.txt",
		filepath.Join(f.temp, "to-hidden"):   ".secret",
		filepath.Join(f.temp, "via-outside"): "../agent/notes.md",
	}
	mustWrite(t, filepath.Join(f.temp, ".secret"), "s")
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		method string
		params any
		want   any
	}{
		{"fs/read", at("agent", "inside"), "# notes"},
		{"fs/read", at("agent", "dir/config"), "[core]"},
		{"fs/read", at("agent", "up"), refusal{-32003, `agent "up": a link whose target leaves the root`}},
		{"fs/read", at("agent", "abs"), refusal{-32003, `agent "abs": a link whose target leaves the root`}},
		{"fs/read", at("agent", "loop"), refusal{-32003, `agent "loop": too many links`}},
		{"fs/write", proto.FsWriteParams{Root: "agent", Path: "up", Agent: "a1", Text: "x"}, refusal{-32003, `agent "up": a link whose target leaves the root`}},
		{"fs/write", proto.FsWriteParams{Root: "agent", Path: "dangling", Agent: "a1", Text: "made"}, nil},
		{"fs/read", at("agent", "made-later.txt"), "made"},
		{"fs/read", proto.FsPathParams{Root: "temp", Path: "to-hidden"}, refusal{-32003, `temp "to-hidden": a link whose target is a hidden name (starting with .)`}},
		{"fs/read", proto.FsPathParams{Root: "temp", Path: "via-outside"}, refusal{-32003, `temp "via-outside": a link whose target leaves the root`}},
		{"fs/list", at("agent", "dir"), proto.FsListResult{{Name: "config", Size: 6}}},
		{"fs/remove", at("agent", "up"), nil},
		{"fs/stat", at("agent", "inside"), nil}, // checked below
	}
	for _, tt := range tests {
		got, err := f.call(t, tt.method, tt.params)
		if r, isRefusal := tt.want.(refusal); isRefusal {
			got = nil
			if diff := cmp.Diff(r, refusalOf(err)); diff != "" {
				t.Errorf("%s %+v (-want +got):\n%s", tt.method, tt.params, diff)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %+v: %v", tt.method, tt.params, err)
			continue
		}
		if tt.method == "fs/stat" {
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %+v (-want +got):\n%s", tt.method, tt.params, diff)
		}
	}
	if _, err := os.Lstat(filepath.Join(f.agent, "up")); !os.IsNotExist(err) {
		t.Errorf("fs/remove left the link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(f.agent), "outside.txt")); err != nil {
		t.Errorf("fs/remove of a link removed its target: %v", err)
	}
}

// TestFIFO: a FIFO is never opened for reading or writing.
func TestFIFO(t *testing.T) {
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.agent, "pipe"), 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	for _, method := range []string{"fs/read", "fs/write"} {
		params := any(at("agent", "pipe"))
		if method == "fs/write" {
			params = proto.FsWriteParams{Root: "agent", Path: "pipe", Agent: "a1", Text: "x"}
		}
		_, err := f.call(t, method, params)
		want := refusal{-32004, `agent "pipe": not a regular file (p---------)`}
		if diff := cmp.Diff(want, refusalOf(err)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", method, diff)
		}
	}
}
