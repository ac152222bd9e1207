package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNoDrift regenerates every output in memory and fails when a committed
// file differs: run `go run ./internal/gen` after changing the schema.
func TestNoDrift(t *testing.T) {
	outputs, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range outputs {
		got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("%s: %v (run go run ./internal/gen)", path, err)
			continue
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s drifted from the schema; run go run ./internal/gen (-generated +committed):\n%s", path, diff)
		}
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	first, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	second, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("two runs differ (-first +second):\n%s", diff)
	}
}

func TestExported(t *testing.T) {
	tests := map[string]string{
		"protocolVersion": "ProtocolVersion",
		"secrets/get":     "SecretsGet",
		"engine/oneShot":  "EngineOneShot",
		"id":              "ID",
		"url":             "URL",
		"timeoutMs":       "TimeoutMs",
		"agentRepo":       "AgentRepo",
		"utf8":            "UTF8",
		"base64":          "Base64",
		"event/":          "Event",
		"ws/message":      "WsMessage",
	}
	for in, want := range tests {
		if diff := cmp.Diff(want, exported(in)); diff != "" {
			t.Errorf("exported(%q) (-want +got):\n%s", in, diff)
		}
	}
}

// TestShapes generates from a small schema and checks each mapping rule.
func TestShapes(t *testing.T) {
	doc, err := parseDocument([]byte(`{"title":"t","$defs":{
		"Obj":{"type":"object","properties":{"id":{"type":"string"},"n":{"type":"integer"},
			"inner":{"type":"object","properties":{"x":{"type":"boolean"}}},
			"list":{"type":"array","items":{"$ref":"#/$defs/Kind"}}},"required":["id"]},
		"Kind":{"enum":["a-b","c"]},
		"Maybe":{"type":["string","null"]},
		"Free":{},
		"Map":{"type":"object","additionalProperties":{"type":"number"}}},
		"x-methods":{"do/it":{"description":"Does it.","direction":"host-to-plugin","notification":false,
			"params":{"$ref":"#/$defs/Obj"},"result":{"$ref":"#/$defs/Maybe"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	types, declared, err := goTypesFile(doc, "// header")
	if err != nil {
		t.Fatal(err)
	}
	vocab, err := goVocabFile(doc, "// header")
	if err != nil {
		t.Fatal(err)
	}
	aliases, err := goAliasFile(doc, "// header", declared)
	if err != nil {
		t.Fatal(err)
	}
	code := append(append(append([]byte{}, types...), vocab...), aliases...)
	for _, want := range []string{
		"ID    string         `json:\"id\"`",
		"N     int64          `json:\"n,omitempty\"`",
		"Inner *ObjInner      `json:\"inner,omitempty\"`",
		"List  []Kind         `json:\"list,omitempty\"`",
		"type Kind string",
		"KindAB Kind = \"a-b\"",
		"type Maybe = *string",
		"type Free = JSON",
		"type Map map[string]float64",
		"MethodDoIt = \"do/it\"",
		"ObjInner is the inner member of Obj.",
		"type Kind = shapes.Kind",
		"const KindAB = shapes.KindAB",
		"MethodDoIt = vocab.MethodDoIt",
	} {
		if !strings.Contains(squash(string(code)), squash(want)) {
			t.Errorf("Go output lacks %q:\n%s", want, code)
		}
	}
	ts := string(tsFile(doc, "// header"))
	for _, want := range []string{
		"export interface Obj {", "id: string;", "n?: number;", "list?: Kind[];",
		`export type Kind = "a-b" | "c";`, "export type Maybe = string | null;",
		"export type Free = unknown;", "export type Map = { [name: string]: number };",
		`"do/it": {`, "params: Obj;", "result: Maybe;",
	} {
		if !strings.Contains(squash(ts), squash(want)) {
			t.Errorf("TypeScript output lacks %q:\n%s", want, ts)
		}
	}
}

// TestVocabHasNoImport holds the promise that lets the Go kit import the
// vocabulary without weight: the generated package imports nothing.
func TestVocabHasNoImport(t *testing.T) {
	outputs, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if src := string(outputs[vocabOutput]); strings.Contains(src, "\nimport") {
		t.Errorf("%s imports a package:\n%s", vocabOutput, src)
	}
}

// squash collapses runs of blanks, so alignment does not matter.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestLimits holds the reading of x-limits: a number must be positive and
// say what it bounds, and a size is written in the unit a reader counts.
func TestLimits(t *testing.T) {
	for _, bad := range []string{
		`{"A": {"value": 0, "description": "zero"}}`,
		`{"A": {"value": -1, "description": "negative"}}`,
		`{"A": {"value": 3}}`,
		`{"A": {"value": "3", "description": "a string"}}`,
		`{"A": {"value": 1.5, "description": "a fraction"}}`,
		`[]`,
	} {
		if _, err := limits([]byte(bad)); err == nil {
			t.Errorf("limits(%s) took it", bad)
		}
	}
	ls, err := limits([]byte(`{"LineBytes": {"value": 8388608, "description": "d"}, "Count": {"value": 1024, "description": "d"}, "OddBytes": {"value": 1000000, "description": "d"}, "ShortBytes": {"value": 65536, "description": "d"}, "GiBBytes": {"value": 1073741824, "description": "d"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range ls {
		got = append(got, l.Name+" = "+limitLiteral(l))
	}
	want := []string{"LineBytes = 8 << 20", "Count = 1024", "OddBytes = 1000000", "ShortBytes = 64 << 10", "GiBBytes = 1 << 30"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("limit literals (-want +got):\n%s", diff)
	}
}
