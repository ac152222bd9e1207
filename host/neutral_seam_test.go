package host

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// osWords are the words of one kind of program that the supervisor and
// the seam must not know: they speak of programs, their ends and their
// ids in words any transport can mean (docs/ARCHITECTURE.md, the seam).
var osWords = regexp.MustCompile(`(?i)process|signal|pid|sigterm|sigkill`)

// statusFile is the one file of the host that names what only a system
// process has: the app's Status gives its pid (docs/embedding.md), read
// through an optional interface the process transport implements.
const statusFile = "status.go"

// The supervisor (package host) and the seam (transport) name no
// process, signal or pid, in code or comments (the host's status file
// aside), and host does not import the process transport: its callers
// give it (package modules).
func TestTheSeamSpeaksNoProcessWords(t *testing.T) {
	for _, dir := range []string{".", filepath.Join("..", "transport")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no Go file in %s: the test reads nothing there", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || dir == "." && f == statusFile {
				continue
			}
			checkNoOSWords(t, f)
		}
	}
}

func checkNoOSWords(t *testing.T, file string) {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for n, line := range strings.Split(string(src), "\n") {
		if w := osWords.FindString(line); w != "" {
			t.Errorf("%s:%d says %q: %s", file, n+1, w, strings.TrimSpace(line))
		}
	}
	parsed, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range parsed.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); strings.HasSuffix(path, "/process") {
			t.Errorf("%s imports %s: the host is given its transports", file, path)
		}
	}
}
