package architecture

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
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
	problems := mismatches(parseDrawing(string(page)), imports)
	for _, name := range stalePictureNames(string(page), imports) {
		problems = append(problems, fmt.Sprintf("the picture names %s, which is no package of the module: redraw it where the package is now", name))
	}
	if len(problems) > 0 {
		t.Errorf("docs/ARCHITECTURE.md (%q) does not match the imports; fix the page:\n- %s", sectionHeading, strings.Join(problems, "\n- "))
	}
}

// moduleImports gives every package of the module, named by its folder
// in the module, with the module's packages its non-test code imports on
// any of the systems. It reads the sources with go/build in this process,
// so that the test cache sees every file it read and runs the test again
// when one changes.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	module := modulePath(t)
	all := map[string][]string{}
	err := filepath.WalkDir(moduleRoot, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if dir != moduleRoot && skipped(dir, d.Name()) {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(moduleRoot, dir)
		if err != nil || rel == "." {
			return err
		}
		return addPackage(all, module, filepath.ToSlash(rel), dir)
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// skipped tells the folders `go list ./...` passes over: testdata, names
// starting with . or _, and another module.
func skipped(dir, name string) bool {
	if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// addPackage records the package in dir, if it is one on any system, with
// its imports of the module's packages.
func addPackage(all map[string][]string, module, rel, dir string) error {
	for _, goos := range systems {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = goos, "amd64", true
		p, err := ctx.ImportDir(dir, 0)
		var none *build.NoGoError
		if errors.As(err, &none) {
			continue
		} else if err != nil {
			return fmt.Errorf("%s on %s: %w", rel, goos, err)
		}
		if _, seen := all[rel]; !seen {
			all[rel] = []string{}
		}
		for _, imp := range p.Imports {
			if to, ok := strings.CutPrefix(imp, module+"/"); ok && !slices.Contains(all[rel], to) {
				all[rel] = append(all[rel], to)
			}
		}
	}
	return nil
}

// modulePath is the module's path, from its go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(gomod)) {
		if rest, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}
