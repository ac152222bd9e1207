package manifest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestSchemaCompilesOnce(t *testing.T) {
	first, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	second, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Error("Schema() compiled the schema twice")
	}
	if first.DraftVersion != 2020 {
		t.Errorf("draft %d, want 2020", first.DraftVersion)
	}
}

// TestSchemaDocumentsEveryProperty keeps the schema useful in an editor:
// every declared property says what it is for.
func TestSchemaDocumentsEveryProperty(t *testing.T) {
	data, err := schemas.FS.ReadFile(schemas.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var undocumented []string
	walkSchema(doc, "", func(at string, node map[string]any) {
		props, _ := node["properties"].(map[string]any)
		for name, p := range props {
			prop, _ := p.(map[string]any)
			_, hasDescription := prop["description"]
			_, isRef := prop["$ref"]
			inInstall := strings.HasSuffix(at, "/install") || strings.HasSuffix(at, "/tested") || strings.HasSuffix(at, "/modes/items")
			if !hasDescription && !inInstall && !(isRef && strings.Contains(at, "/if")) {
				undocumented = append(undocumented, at+"/properties/"+name)
			}
		}
	})
	if len(undocumented) > 0 {
		t.Errorf("properties without a description:\n%s", strings.Join(undocumented, "\n"))
	}
}

func walkSchema(v any, at string, visit func(string, map[string]any)) {
	switch node := v.(type) {
	case map[string]any:
		if strings.Contains(at, "/if") || strings.Contains(at, "/then") || strings.Contains(at, "/else") {
			return // conditions restate properties declared and documented above
		}
		visit(at, node)
		for k, child := range node {
			walkSchema(child, at+"/"+k, visit)
		}
	case []any:
		for _, child := range node {
			walkSchema(child, at+"/[]", visit)
		}
	}
}

func TestSchemaRefusesNothingTheGoose(t *testing.T) {
	s, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(readFile(t, gooseDir+"/"+FileName)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("the schema refuses the Goose manifest: %v", err)
	}
}
