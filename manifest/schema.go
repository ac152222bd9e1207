package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/escouade-dev/escouade-plugin/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaID is the $id of schemas/plugin-1.json, the URL a manifest's
// $schema names.
const SchemaID = "https://escouade.dev/schemas/plugin-1.json"

// The schema restricts member names with patternProperties and
// "additionalProperties": false, never with propertyNames: jsonschema v6.0.3
// reports a propertyNames failure with an instance location that later
// validation overwrites (it keeps a slice the validator goes on appending
// to), so its JSON pointer would name the wrong member.

// compiledSchema is the manifest schema, compiled for validation and kept
// as a document to read its keywords back when writing problems.
type compiledSchema struct {
	validator *jsonschema.Schema
	document  any
}

// loadSchema compiles the embedded schema on first use. It is a function
// value computed once: the schema is read-only once compiled.
var loadSchema = sync.OnceValues(compileSchema)

// Schema returns the compiled manifest schema, schemas/plugin-1.json.
func Schema() (*jsonschema.Schema, error) {
	s, err := loadSchema()
	if err != nil {
		return nil, err
	}
	return s.validator, nil
}

func compileSchema() (*compiledSchema, error) {
	data, err := schemas.FS.ReadFile(schemas.Manifest)
	if err != nil {
		return nil, fmt.Errorf("read the manifest schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode the manifest schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{}) // the schema is self-contained: never fetch
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, fmt.Errorf("add the manifest schema: %w", err)
	}
	v, err := c.Compile(SchemaID)
	if err != nil {
		return nil, fmt.Errorf("compile the manifest schema: %w", err)
	}
	return &compiledSchema{validator: v, document: doc}, nil
}

// noLoader refuses to load any schema by URL, so compiling never reaches
// the disk or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("schemas are embedded; not loading " + url)
}
