package vocab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is the module's root, seen from this package's folder.
const moduleRoot = ".."

// TestNoLiteralOutsideVocabulary holds the package's promise: no Go file of
// the module, tests and their fixtures aside, spells a word of the
// vocabulary (a method name, an error code, a message, an environment
// name) as a literal; each uses the constant. A second spelling is how the
// vocabulary drifted before.
func TestNoLiteralOutsideVocabulary(t *testing.T) {
	words, codes := vocabulary(t)
	var found []string
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skippedDir(path, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		found = append(found, literalsIn(t, path, words, codes)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// skippedDir tells the folders whose Go files may spell the vocabulary:
// the vocabulary itself and its generator, test fixtures (hostile plugins
// spell the wire by hand on purpose), ACP (another protocol, whose
// initialize and codes are its own) and what is not Go of this module.
func skippedDir(path, name string) bool {
	if path == moduleRoot {
		return false
	}
	clean := filepath.ToSlash(filepath.Clean(path))
	return name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") ||
		clean == "../vocab" || clean == "../internal/gen" || clean == "../tests/fixtures" ||
		clean == "../acp" // ACP is another protocol, with words of its own
}

// vocabulary reads the generated file's constants: the strings by value,
// and the error codes.
func vocabulary(t *testing.T) (words map[string]string, codes map[string]string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "vocab_gen.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	words, codes = map[string]string{}, map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for k, name := range spec.Names {
			switch v := spec.Values[k].(type) {
			case *ast.BasicLit:
				if v.Kind != token.STRING {
					continue // a number of the protocol (x-limits), not a word
				}
				text, err := strconv.Unquote(v.Value)
				if err != nil {
					t.Fatalf("%s: %v", name.Name, err)
				}
				words[text] = name.Name
			case *ast.UnaryExpr:
				codes[v.X.(*ast.BasicLit).Value] = name.Name
			}
		}
		return false
	})
	if len(words) == 0 || len(codes) == 0 {
		t.Fatal("vocab_gen.go holds no constant")
	}
	return words, codes
}

// literalsIn lists the literals of one file that spell a word of the
// vocabulary, each with where it is and the constant to use.
func literalsIn(t *testing.T, path string, words, codes map[string]string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	report := func(n ast.Node, text, constant string) {
		found = append(found, fset.Position(n.Pos()).String()+": "+text+" is vocab."+constant)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.CompositeLit:
			// A capability ("log": true) is a word of its own, which a
			// method may share.
			if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Capabilities" {
				return false
			}
		case *ast.UnaryExpr:
			if lit, ok := n.X.(*ast.BasicLit); ok && n.Op == token.SUB && lit.Kind == token.INT {
				if constant, ok := codes[lit.Value]; ok {
					report(n, "-"+lit.Value, constant)
				}
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			text, err := strconv.Unquote(n.Value)
			if constant, ok := words[text]; ok && err == nil {
				report(n, strconv.Quote(text), constant)
			}
		}
		return true
	})
	slices.Sort(found)
	return found
}
