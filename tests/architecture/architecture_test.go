package architecture

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// moduleRoot is the folder of go.mod, two levels up from this package.
const moduleRoot = "../.."

// systems are the GOOS values whose imports are drawn: an import made on
// any of them is an arrow.
var systems = []string{"linux", "darwin", "windows"}

// TestArchitectureDrawsEveryImport holds the list under docs/ARCHITECTURE.md's
// drawing against the imports of the module's non-test code. Test files
// are not drawn: a test may reach across the layers for its fixtures (the
// tests of host/wasm run jsrt's bundles, the hardening tests build the
// CLI), and nothing of the product links them.
func TestArchitectureDrawsEveryImport(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	imports := moduleImports(t)
	if problems := mismatches(parseDrawing(string(page)), imports); len(problems) > 0 {
		t.Errorf("docs/ARCHITECTURE.md (%q) does not match the imports; fix the page:\n- %s", sectionHeading, strings.Join(problems, "\n- "))
	}
}

// listed is the part of `go list -json` this test reads.
type listed struct {
	ImportPath string
	Imports    []string
}

// moduleImports gives every package of the module, named by its path in
// the module, with the module's packages its non-test code imports on any
// of the systems.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	module := goOutput(t, nil, "list", "-m", "-f", "{{.Path}}")
	module = strings.TrimSpace(module)
	all := map[string][]string{}
	for _, goos := range systems {
		out := goOutput(t, []string{"GOOS=" + goos}, "list", "-e", "-json=ImportPath,Imports", "./...")
		dec := json.NewDecoder(strings.NewReader(out))
		for {
			var p listed
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("go list -json: %v", err)
			}
			addImports(all, module, p)
		}
	}
	return all
}

// addImports records p's imports that are packages of module.
func addImports(all map[string][]string, module string, p listed) {
	pkg, ok := inModule(module, p.ImportPath)
	if !ok {
		return
	}
	if _, seen := all[pkg]; !seen {
		all[pkg] = []string{}
	}
	for _, imp := range p.Imports {
		if to, ok := inModule(module, imp); ok && !slices.Contains(all[pkg], to) {
			all[pkg] = append(all[pkg], to)
		}
	}
}

// inModule names path by its folder in module, if it is one of module's.
func inModule(module, path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, module+"/")
	return rest, ok && rest != ""
}

// goOutput runs the go command at the module's root and returns its stdout.
func goOutput(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
