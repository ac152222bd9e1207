package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// BenchFileName is the file of scripted scenarios beside a manifest.
const BenchFileName = "escouade-bench.json"

// maxBenchFile bounds the scenario file read: a larger one is a mistake.
const maxBenchFile = 1 << 20

// BenchFile is escouade-bench.json: the fake data the bench serves and the
// scenarios it plays (see the package documentation for the format).
type BenchFile struct {
	Secrets   map[string]string          `json:"secrets,omitempty"`
	Settings  map[string]json.RawMessage `json:"settings,omitempty"`
	Scenarios []Scenario                 `json:"scenarios"`
}

// Scenario is one call the bench makes and what must come back.
type Scenario struct {
	Name   string          `json:"name"`
	Call   string          `json:"call"`
	Params json.RawMessage `json:"params,omitempty"`
	Expect *Expectation    `json:"expect,omitempty"`
}

// Expectation is what a scenario's answer must be: a result, or an error.
type Expectation struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *ExpectedError  `json:"error,omitempty"`
}

// ExpectedError is the error a scenario expects; Message is checked only
// when given.
type ExpectedError struct {
	Code    int64   `json:"code"`
	Message *string `json:"message,omitempty"`
}

// LoadBenchFile reads DIR/escouade-bench.json; a folder without one gives
// nil and no error.
func LoadBenchFile(dir string) (*BenchFile, error) {
	f, err := os.Open(filepath.Join(dir, BenchFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBenchFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", BenchFileName, err)
	}
	if len(data) > maxBenchFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", BenchFileName, maxBenchFile)
	}
	b, err := DecodeBenchFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", BenchFileName, err)
	}
	return b, nil
}

// DecodeBenchFile decodes and checks the bytes of escouade-bench.json.
// Unknown members are refused, so a typo cannot make a scenario pass.
func DecodeBenchFile(data []byte) (*BenchFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var b BenchFile
	if err := dec.Decode(&b); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	if err := b.check(); err != nil {
		return nil, err
	}
	return &b, nil
}

func (b *BenchFile) check() error {
	seen := map[string]bool{}
	for i, s := range b.Scenarios {
		if err := s.check(); err != nil {
			return fmt.Errorf("/scenarios/%d: %w", i, err)
		}
		if seen[s.Name] {
			return fmt.Errorf("/scenarios/%d: name %q is given twice", i, s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

func (s Scenario) check() error {
	switch {
	case s.Name == "":
		return errors.New("name: is required")
	case s.Call == "":
		return errors.New("call: is required (the method to call)")
	case !isParams(s.Params):
		return errors.New("params: must be an object or an array")
	case s.Expect != nil && len(s.Expect.Result) > 0 && s.Expect.Error != nil:
		return errors.New("expect: give result or error, not both")
	case s.Expect != nil && len(s.Expect.Result) == 0 && s.Expect.Error == nil:
		return errors.New("expect: give result or error")
	}
	return nil
}

// isParams reports whether raw is absent, null, an object or an array.
func isParams(raw json.RawMessage) bool {
	trimmed := bytes.TrimSpace(raw)
	return len(trimmed) == 0 || trimmed[0] == '{' || trimmed[0] == '[' || string(trimmed) == "null"
}
