package architecture

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rulesHeading is the section of docs/ARCHITECTURE.md that says where each
// rule is written: a table whose rows name a rule and the declaration that
// holds it, `package.Name` or `package.Type.Method`.
const rulesHeading = "## Where a rule lives"

var ruleOwner = regexp.MustCompile("^\\|([^|]+)\\|\\s*`([a-z0-9/]+)\\.([A-Za-z0-9_.]+)`")

// TestEveryRuleIsOneHopFromItsName holds the table of rules to the code:
// each row's declaration exists in its package's non-test files, so that a
// reader who looks a rule up lands on it.
func TestEveryRuleIsOneHopFromItsName(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := ruleRows(string(page))
	if len(rows) == 0 {
		t.Fatalf("docs/ARCHITECTURE.md has no table under %q", rulesHeading)
	}
	for _, r := range rows {
		if err := declared(r.pkg, r.name); err != nil {
			t.Errorf("the rule %q: %v; point its row at where the rule is written now", r.rule, err)
		}
	}
}

type ruleRow struct{ rule, pkg, name string }

// ruleRows reads the table under rulesHeading.
func ruleRows(page string) []ruleRow {
	var rows []ruleRow
	in := false
	sc := bufio.NewScanner(strings.NewReader(page))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			in = strings.TrimSpace(line) == rulesHeading
			continue
		}
		if m := ruleOwner.FindStringSubmatch(line); in && m != nil {
			rows = append(rows, ruleRow{rule: strings.TrimSpace(m[1]), pkg: m[2], name: m[3]})
		}
	}
	return rows
}

// declared reports whether name (Name, or Type.Method) is a top-level
// declaration of the non-test files of the package in folder pkg.
func declared(pkg, name string) error {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(moduleRoot, pkg, "*.go"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no package in %s", pkg)
	}
	typ, method, isMethod := strings.Cut(name, ".")
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			if declares(d, typ, method, isMethod) {
				return nil
			}
		}
	}
	return fmt.Errorf("%s declares no %s", pkg, name)
}

func declares(d ast.Decl, name, method string, isMethod bool) bool {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !isMethod {
			return d.Recv == nil && d.Name.Name == name
		}
		return d.Recv != nil && d.Name.Name == method && receiverType(d.Recv.List[0].Type) == name
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.Name == name && (!isMethod || hasField(s, method)) {
					return true
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if !isMethod && n.Name == name {
						return true
					}
				}
			}
		}
	}
	return false
}

// receiverType is the name of a method's receiver type, T or *T.
func receiverType(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	if g, ok := e.(*ast.IndexExpr); ok {
		e = g.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// hasField reports whether a struct type has the field name (a rule set
// by an option: host.Options.QueueSize).
func hasField(s *ast.TypeSpec, name string) bool {
	st, ok := s.Type.(*ast.StructType)
	if !ok {
		return false
	}
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name == name {
				return true
			}
		}
	}
	return false
}

func TestRuleRowsAreRead(t *testing.T) {
	page := "## Where a rule lives\n\n| rule | where |\n|---|---|\n| the 2 s turn | `protocol.TurnLimit` |\n| x | `host.Options.QueueSize`, enforced by y |\n## Next\n| z | `a.B` |\n"
	rows := ruleRows(page)
	if len(rows) != 2 || rows[0] != (ruleRow{"the 2 s turn", "protocol", "TurnLimit"}) || rows[1].name != "Options.QueueSize" {
		t.Fatalf("rows: %+v", rows)
	}
	if declared("protocol", "NoSuchRule") == nil {
		t.Error("a declaration that does not exist was found")
	}
	if err := declared("protocol", "TurnLimit"); err != nil {
		t.Error(err)
	}
}
