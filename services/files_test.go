package services

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Marker texts of files files/read must never hand out.
const (
	hiddenText   = "HIDDEN-CONTENT"
	manifestText = "MANIFEST-CONTENT"
	outsideText  = "OUTSIDE-CONTENT"
)

// pluginFolder builds a plugin folder beside a folder outside it and
// returns the plugin folder.
func pluginFolder(t testing.TB) string {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "plugin")
	files := map[string]string{
		"plugin/escouade-plugin.json": manifestText,
		"plugin/.env":                 hiddenText,
		"plugin/.git/config":          hiddenText,
		"plugin/data/.secret":         hiddenText,
		"plugin/data/words.txt":       "un\ndeux\n",
		"plugin/notes.md":             "notes é",
		"plugin/empty.txt":            "",
		"plugin/exact.txt":            strings.Repeat("a", MaxFileBytes),
		"plugin/big.txt":              strings.Repeat("a", MaxFileBytes+1),
		"plugin/latin1.txt":           "\xe9t\xe9",
		"plugin/sub/deep/file.txt":    "deep",
		"outside/secret.txt":          outsideText,
	}
	for name, text := range files {
		path := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type fileCase struct {
	path     string
	want     string
	wantCode int64
	// wantReason, when set, is the exact reason of the refusal.
	wantReason string
}

func checkFileCases(t *testing.T, dir string, tests []fileCase) {
	t.Helper()
	for _, tt := range tests {
		got, err := ReadPluginFile(dir, tt.path)
		var code int64
		var reason string
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("ReadPluginFile(%q) error %v is not an *Error", tt.path, err)
				continue
			}
			code, reason = e.Code, e.Reason
		}
		if code != tt.wantCode || got != tt.want {
			t.Errorf("ReadPluginFile(%q) = %.40q, code %d (%s); want %.40q, code %d", tt.path, got, code, reason, tt.want, tt.wantCode)
		}
		if tt.wantReason != "" && reason != tt.wantReason {
			t.Errorf("ReadPluginFile(%q) reason = %q, want %q", tt.path, reason, tt.wantReason)
		}
	}
}

func TestReadPluginFile(t *testing.T) {
	checkFileCases(t, pluginFolder(t), []fileCase{
		{path: "data/words.txt", want: "un\ndeux\n"},
		{path: "notes.md", want: "notes é"},
		{path: "empty.txt", want: ""},
		{path: "sub/deep/file.txt", want: "deep"},
		{path: "exact.txt", want: strings.Repeat("a", MaxFileBytes)},
		{path: "big.txt", wantCode: CodeFailed, wantReason: `"big.txt": over the limit of 262144 bytes (256 KB)`},
		{path: "latin1.txt", wantCode: CodeFailed, wantReason: `"latin1.txt": not valid UTF-8`},
		{path: "data", wantCode: CodeFailed, wantReason: `"data": not a regular file (d---------)`},
		{path: "gone.txt", wantCode: CodeMissing, wantReason: `"gone.txt": no such file`},
		{path: "nodir/gone.txt", wantCode: CodeMissing},
		{path: "notes.md/under", wantCode: CodeMissing},
	})
}

func TestReadPluginFileRefusesPaths(t *testing.T) {
	dir := pluginFolder(t)
	tests := []struct{ path, reason string }{
		{"", "an empty path"},
		{"/etc/passwd", "an absolute path"},
		{"//server/share/x", "an absolute path"},
		{`\\server\share\x`, "a UNC path"},
		{`data\words.txt`, "a backslash in the path (use /)"},
		{"C:", "a drive form"},
		{"c:/windows/win.ini", "a drive form"},
		{"C:words.txt", "a drive form"},
		{"notes.md:stream", "a colon in the path (a drive or stream form)"},
		{"data/words.txt\x00.png", "a NUL in the path"},
		{"data/words.txt\n", "a control character in the path"},
		{"tab\there", "a control character in the path"},
		{"../outside/secret.txt", `a ".." segment`},
		{"data/../notes.md", `a ".." segment`},
		{"data/..", `a ".." segment`},
		{"data//words.txt", "an empty segment (// or a trailing /)"},
		{"data//", "an empty segment (// or a trailing /)"},
		{"./.env", "a hidden name (starting with .)"},
		{".env", "a hidden name (starting with .)"},
		{".git/config", "a hidden name (starting with .)"},
		{"data/.secret", "a hidden name (starting with .)"},
		{"...", "a hidden name (starting with .)"},
		{"escouade-plugin.json", "the manifest"},
		{"ESCOUADE-PLUGIN.JSON", "the manifest"},
		{"Escouade-Plugin.Json", "the manifest"},
		{"escouade-plugin.json.", "the manifest"},
		{"escouade-plugin.json ", "the manifest"},
		{"eſcouade-plugin.json", "the manifest"},
		{"sub/escouade-plugin.json", "the manifest"},
		{"CON", "a Windows device name"},
		{"con", "a Windows device name"},
		{"nul.txt", "a Windows device name"},
		{"data/NUL", "a Windows device name"},
		{"Aux.tar.gz", "a Windows device name"},
		{"prn", "a Windows device name"},
		{"COM1", "a Windows device name"},
		{"com0.log", "a Windows device name"},
		{"LPT9", "a Windows device name"},
		{"lpt1.txt", "a Windows device name"},
		{"COM¹", "a Windows device name"},
		{"CON .txt", "a Windows device name"},
		{"conin$", "a Windows device name"},
		{"CONOUT$.txt", "a Windows device name"},
		{"ESCOUA~1.JSO", "a Windows short name (~ and a digit), which may alias a hidden file or the manifest"},
		{"ENV~1", "a Windows short name (~ and a digit), which may alias a hidden file or the manifest"},
	}
	for _, tt := range tests {
		_, err := ReadPluginFile(dir, tt.path)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeForbidden || e.Message != "The plugin may not read this file." {
			t.Errorf("ReadPluginFile(%q) = %v, want a -32003 refusal", tt.path, err)
			continue
		}
		if want := `"` + strings.ReplaceAll(tt.path, `\`, `\\`) + `": ` + tt.reason; !strings.Contains(e.Reason, tt.reason) {
			t.Errorf("ReadPluginFile(%q) reason = %q, want %q", tt.path, e.Reason, want)
		}
	}
}

func TestReadPluginFileAcceptsNearMisses(t *testing.T) {
	dir := pluginFolder(t)
	names := []string{"console.txt", "COM10", "LPT", "nul-ish.txt", "auxiliary", "a.b.c", "escouade-plugin.json5", "my-escouade-plugin.json", "x~a", "tilde~", "data..txt", "é.txt"}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadPluginFile(dir, name); err != nil || got != name {
			t.Errorf("ReadPluginFile(%q) = %q, %v; want its text", name, got, err)
		}
	}
}

func TestReadPluginFileMissingFolder(t *testing.T) {
	_, err := ReadPluginFile(filepath.Join(t.TempDir(), "gone"), "a.txt")
	if !errors.Is(err, &Error{Code: CodeFailed}) {
		t.Errorf("ReadPluginFile in a missing folder = %v, want -32004", err)
	}
}

// FuzzFilePath checks the file policy on any path: an accepted path is
// local, names nothing hidden nor the manifest, and no text read through
// it is one of a hidden file, the manifest or a file outside the folder.
func FuzzFilePath(f *testing.F) {
	for _, seed := range []string{
		"data/words.txt", ".env", "../outside/secret.txt", "escouade-plugin.json", "ESCOUADE-PLUGIN.JSON.",
		"link-outside", "link-hidden", "link-gitdir/config", "link-chain-hidden", "data/link-escape", "link-self/.env",
		"link-up-in", "C:x", `\\s\x`, "nul.txt", "a//b", "data/./words.txt", "link-loop-a", "fifo",
		"./notes.md", "./", "data/", "notes.md/", "./.env",
	} {
		f.Add(seed)
	}
	dir := pluginFolder(f)
	addLinks(f, dir)
	f.Fuzz(func(t *testing.T, path string) {
		text, err := ReadPluginFile(dir, path)
		if checkPath(path) != "" {
			if err == nil {
				t.Fatalf("%q refused by checkPath but read", path)
			}
			return
		}
		if !filepath.IsLocal(path) || hasDotDotSegment(path) {
			t.Fatalf("accepted %q is not local", path)
		}
		for segment := range strings.SplitSeq(path, "/") {
			if segment == "." {
				continue // the folder itself
			}
			if strings.HasPrefix(segment, ".") || strings.EqualFold(strings.TrimRight(segment, ". "), "escouade-plugin.json") {
				t.Fatalf("accepted %q names a hidden file or the manifest", path)
			}
		}
		if err == nil && (strings.Contains(text, hiddenText) || strings.Contains(text, manifestText) || strings.Contains(text, outsideText)) {
			t.Fatalf("ReadPluginFile(%q) handed out %q", path, text)
		}
	})
}

func hasDotDotSegment(path string) bool {
	for segment := range strings.SplitSeq(path, "/") {
		if segment == ".." {
			return true
		}
	}
	return false
}

// TestReadPluginFileCatchesSwap stands for a link swapped in between the
// walk and the open: the file opened is not the one the path names after
// the open, and the read is refused.
func TestReadPluginFileCatchesSwap(t *testing.T) {
	dir := pluginFolder(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	opened, err := root.Stat("notes.md")
	if err != nil {
		t.Fatal(err)
	}
	r := fileReader{root: root, path: "data/words.txt"}
	refusal := r.checkStillNamed(opened)
	want := `"data/words.txt": the folder changed while the file was opened`
	if refusal == nil || refusal.Code != CodeForbidden || refusal.Reason != want {
		t.Errorf("checkStillNamed = %v, want -32003 %q", refusal, want)
	}
}
