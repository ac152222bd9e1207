package protocol

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/schemas"
)

// numbersDoc is the page whose table, under numbersHeading, lists every
// constant of numbersFile with its value.
const (
	numbersDoc     = "../docs/protocol.md"
	numbersHeading = "## Numbers"
	numbersFile    = "limits.go"
)

// numberTexts gives each constant of limits.go as the table writes its
// value: a duration as the journal prints it, a size in the largest unit
// that holds it whole, a count as it is.
var numberTexts = map[string]string{
	"MaxLineBytes":       size(MaxLineBytes),
	"ExcerptBytes":       size(ExcerptBytes),
	"MaxRequests":        count(MaxRequests),
	"MaxHeldBytes":       size(MaxHeldBytes),
	"MaxNotifications":   count(MaxNotifications),
	"MaxLater":           count(MaxLater),
	"LateMemory":         count(LateMemory),
	"StderrPieceBytes":   size(StderrPieceBytes),
	"CrashStderrLines":   count(CrashStderrLines),
	"WriteTimeout":       FormatDuration(WriteTimeout),
	"QueueSize":          count(QueueSize),
	"MaxRestarts":        count(MaxRestarts),
	"CrashWindow":        FormatDuration(CrashWindow),
	"StopGrace":          FormatDuration(StopGrace),
	"ShutdownWait":       FormatDuration(ShutdownWait),
	"ProgramMemory":      size(ProgramMemory),
	"MemoryPeriod":       FormatDuration(MemoryPeriod),
	"ReadFileBytes":      size(ReadFileBytes),
	"ProjectFileBytes":   size(ProjectFileBytes),
	"JournalRotateBytes": size(JournalRotateBytes),
	"JournalQueueLines":  count(JournalQueueLines),
	"ManifestBytes":      size(ManifestBytes),
	"ModuleBytes":        size(ModuleBytes),
	"VersionFileBytes":   size(VersionFileBytes),
	"BundleBytes":        size(BundleBytes),
	"BenchFileBytes":     size(BenchFileBytes),
	"RegistryFileBytes":  size(RegistryFileBytes),
	"SettingsFileBytes":  size(SettingsFileBytes),
	"FolderEntries":      count(FolderEntries),
	"FolderBytes":        size(FolderBytes),
	"FolderBlockBytes":   size(FolderBlockBytes),
	"CloneTime":          FormatDuration(CloneTime),
	"CloneBytes":         size(CloneBytes),
	"TurnLimit":          FormatDuration(TurnLimit),
	"DecisionTurnLimit":  FormatDuration(DecisionTurnLimit),
	"ModuleMemory":       size(ModuleMemory),
	"ModuleStdoutBytes":  size(ModuleStdoutBytes),
	"ModuleFileBytes":    size(ModuleFileBytes),
	"ModuleFilesBytes":   size(ModuleFilesBytes),
	"CompileTime":        FormatDuration(CompileTime),
	"CompileMemory":      size(CompileMemory),
	"MaxFetchBytes":      size(MaxFetchBytes),
	"MaxNetMaxBytes":     size(MaxNetMaxBytes),
	"NetTimeout":         FormatDuration(NetTimeout),
	"NetMaxTimeout":      FormatDuration(NetMaxTimeout),
	"NetBodyBytes":       size(NetBodyBytes),
	"NetFlightBytes":     size(NetFlightBytes),
	"NetMaxStreams":      count(NetMaxStreams),
	"WsMaxSockets":       count(WsMaxSockets),
	"WsMessageBytes":     size(WsMessageBytes),
	"TimerMinDelay":      FormatDuration(TimerMinDelay),
	"TimerMaxPending":    count(TimerMaxPending),
	"FsReadBytes":        size(FsReadBytes),
	"ProcTimeout":        FormatDuration(ProcTimeout),
	"ProcOutputBytes":    size(ProcOutputBytes),
	"ProcMaxRunning":     count(ProcMaxRunning),
}

// TestNumbersTableMatchesConstants holds docs/protocol.md#numbers to the
// constants of limits.go, both ways: every constant has its row with its
// value, and every row names a constant. A failure names the row and the
// constant, so whoever changed one sees the other to fix.
func TestNumbersTableMatchesConstants(t *testing.T) {
	rows := numbersTable(t)
	declared, _ := readLimitsFile(t)
	for _, name := range declared {
		want, ok := numberTexts[name]
		if !ok {
			t.Errorf("protocol.%s: give it its text in numberTexts", name)
			continue
		}
		got, ok := rows[name]
		switch {
		case !ok:
			t.Errorf("%s#numbers has no row for `protocol.%s`: add one with the value %s", numbersDoc, name, want)
		case got != want:
			t.Errorf("%s#numbers: the row of `protocol.%s` says %s, the constant is %s: fix the one that is wrong", numbersDoc, name, got, want)
		}
	}
	for name := range rows {
		if !slices.Contains(declared, name) {
			t.Errorf("%s#numbers: the row of `protocol.%s` names no constant of %s", numbersDoc, name, numbersFile)
		}
	}
}

// TestEveryLimitOfTheSchemaIsNamed holds the schema's x-limits to
// limits.go: each number written there is read under a name of its rule
// here, so none is left for a package to spell again.
func TestEveryLimitOfTheSchemaIsNamed(t *testing.T) {
	_, read := readLimitsFile(t)
	for _, name := range schemaLimits(t) {
		if !read["Limit"+name] {
			t.Errorf("x-limits/%s: no constant of %s reads vocab.Limit%s", name, numbersFile, name)
		}
	}
}

// numbersTable reads the table under numbersHeading: the value of each
// row, by its constant's name without "protocol.".
func numbersTable(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(numbersDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n"+numbersHeading+"\n")
	if !ok {
		t.Fatalf("%s has no %q section", numbersDoc, numbersHeading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for line := range strings.SplitSeq(section, "\n") {
		name, value, ok := numberRow(line)
		if !ok {
			continue
		}
		if _, dup := rows[name]; dup {
			t.Errorf("%s#numbers: two rows for `protocol.%s`", numbersDoc, name)
		}
		rows[name] = value
	}
	if len(rows) == 0 {
		t.Fatalf("%s#numbers holds no row", numbersDoc)
	}
	return rows
}

// numberRow reads "| rule | value | `protocol.Name` |": the name and the
// value; ok is false for any other line (the header, the text).
func numberRow(line string) (name, value string, ok bool) {
	cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	if len(cells) != 3 {
		return "", "", false
	}
	name, ok = strings.CutPrefix(strings.Trim(strings.TrimSpace(cells[2]), "`"), "protocol.")
	return name, strings.TrimSpace(cells[1]), ok
}

// readLimitsFile returns the constants limits.go declares, in order, and
// the names of vocab it reads.
func readLimitsFile(t *testing.T) (declared []string, read map[string]bool) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), numbersFile, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	read = map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for _, id := range n.Names {
				declared = append(declared, id.Name)
			}
		case *ast.SelectorExpr:
			if pkg, ok := n.X.(*ast.Ident); ok && pkg.Name == "vocab" {
				read[n.Sel.Name] = true
			}
		}
		return true
	})
	return declared, read
}

// schemaLimits returns the names of the schema's x-limits.
func schemaLimits(t *testing.T) []string {
	t.Helper()
	data, err := fs.ReadFile(schemas.FS, schemas.Protocol)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Limits map[string]json.RawMessage `json:"x-limits"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Limits) == 0 {
		t.Fatal("the schema has no x-limits")
	}
	var names []string
	for name := range doc.Limits {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// size writes n bytes in the largest of GiB, MiB and KiB that holds it
// whole, else in bytes.
func size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

func count(n int) string { return strconv.Itoa(n) }

// TestNumberRow holds the row reader to the table's form, and to the
// lines it must skip.
func TestNumberRow(t *testing.T) {
	for line, want := range map[string][2]string{
		"| the queue ([§6](#6)) | 256 | `protocol.QueueSize` |": {"QueueSize", "256"},
		"|a|8 MiB|`protocol.MaxLineBytes`|":                     {"MaxLineBytes", "8 MiB"},
		"| rule | value | constant |":                           {},
		"|---|---|---|":                                         {},
		"| a | b | `host.QueueSize` |":                          {},
		"| a | b |":                                             {},
		"text":                                                  {},
	} {
		var got [2]string // zero: not a row
		if name, value, ok := numberRow(line); ok {
			got = [2]string{name, value}
		}
		if got != want {
			t.Errorf("numberRow(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestManifestSchemaMaximaAreTheProtocols holds the two maxima the
// manifest's schema must write as literals (JSON Schema reads no
// constant) to the protocol's numbers.
func TestManifestSchemaMaximaAreTheProtocols(t *testing.T) {
	data, err := fs.ReadFile(schemas.FS, schemas.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties struct {
			Limits struct {
				Properties map[string]struct {
					Maximum int64 `json:"maximum"`
				} `json:"properties"`
			} `json:"limits"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for member, want := range map[string]int64{
		"netTimeoutMs": NetMaxTimeout.Milliseconds(),
		"netMaxBytes":  MaxNetMaxBytes,
	} {
		if got := doc.Properties.Limits.Properties[member].Maximum; got != want {
			t.Errorf("%s: /limits/%s has the maximum %d, the protocol's is %d", schemas.Manifest, member, got, want)
		}
	}
}

// TestJSKitLineIsTheProtocols holds the JS kit's line limit, which its
// built bundles carry as a literal, to the protocol's (the Rust kit's is
// generated from the schema).
func TestJSKitLineIsTheProtocols(t *testing.T) {
	const file, decl = "../sdk/js/src/wire.ts", "export const MAX_LINE_BYTES = "
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), decl)
	expr, _, _ := strings.Cut(rest, ";")
	value, shift, shifted := strings.Cut(expr, " << ")
	n, err1 := strconv.ParseInt(value, 10, 64)
	s, err2 := strconv.ParseUint(shift, 10, 6)
	if !ok || !shifted || err1 != nil || err2 != nil {
		t.Fatalf("%s: no %q N << S; found %q", file, decl, expr)
	}
	if got := n << s; got != MaxLineBytes {
		t.Errorf("%s: MAX_LINE_BYTES is %d, the protocol's line is %d (rebuild the bundles of examples and testdata after the change)", file, got, MaxLineBytes)
	}
}
