package services

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadPluginFileDotSegments reads through a lone "." segment, the
// folder itself, which is not a hidden name (docs/protocol.md#filesread).
func TestReadPluginFileDotSegments(t *testing.T) {
	checkFileCases(t, pluginFolder(t), []fileCase{
		{path: "./notes.md", want: "notes é"},
		{path: "./data/words.txt", want: "un\ndeux\n"},
		{path: "data/./words.txt", want: "un\ndeux\n"},
		{path: "././sub/./deep/file.txt", want: "deep"},
		{path: "./.env", wantCode: CodeForbidden, wantReason: `"./.env": a hidden name (starting with .)`},
		{path: "./escouade-plugin.json", wantCode: CodeForbidden},
		{path: "...", wantCode: CodeForbidden},
		{path: "./gone.txt", wantCode: CodeMissing},
	})
}

// TestReadPluginFileFolders answers a folder as not a regular file, however
// the path names it, and a file named as a folder as missing, as the
// system does.
func TestReadPluginFileFolders(t *testing.T) {
	checkFileCases(t, pluginFolder(t), []fileCase{
		{path: "data", wantCode: CodeFailed, wantReason: `"data": not a regular file (d---------)`},
		{path: "data/", wantCode: CodeFailed, wantReason: `"data/": not a regular file (d---------)`},
		{path: "sub/deep/", wantCode: CodeFailed},
		{path: ".", wantCode: CodeFailed, wantReason: `".": not a regular file (d---------)`},
		{path: "./", wantCode: CodeFailed},
		{path: "data/.", wantCode: CodeFailed},
		{path: "notes.md/", wantCode: CodeMissing, wantReason: `"notes.md/": no such file`},
		{path: "gone/", wantCode: CodeMissing},
		{path: "data//", wantCode: CodeForbidden},
	})
}

// TestReadPluginFileTooLong never answers "missing" for a path the system
// cannot even look up.
func TestReadPluginFileTooLong(t *testing.T) {
	long := strings.Repeat("a", maxNameBytes+1)
	deep := strings.Repeat("sub/", maxPathBytes/4) + "file.txt"
	checkFileCases(t, pluginFolder(t), []fileCase{
		{path: long, wantCode: CodeForbidden, wantReason: `"` + long + `": a name too long (over 255 bytes)`},
		{path: "data/" + long + "/x", wantCode: CodeForbidden},
		{path: deep, wantCode: CodeForbidden, wantReason: `"` + deep + `": a path too long (over 4096 bytes)`},
		{path: strings.Repeat("a", maxNameBytes), wantCode: CodeMissing},
	})
}

// TestReadPluginFileAcceptsLongestName reads a name of exactly the bound.
func TestReadPluginFileAcceptsLongestName(t *testing.T) {
	dir := pluginFolder(t)
	name := strings.Repeat("n", maxNameBytes)
	if err := os.WriteFile(filepath.Join(dir, name), []byte("ok"), 0o600); err != nil {
		t.Skipf("this file system takes no %d-byte name: %v", maxNameBytes, err)
	}
	checkFileCases(t, dir, []fileCase{{path: name, want: "ok"}, {path: "./" + name, want: "ok"}})
}
