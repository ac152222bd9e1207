package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// BenchFileName is the file of scripted scenarios beside a manifest.
const BenchFileName = "escouade-bench.json"

// maxBenchFile bounds the scenario file read: a larger one is a mistake.
const maxBenchFile = protocol.BenchFileBytes

// BenchFile is escouade-bench.json: the fake data the bench serves and the
// scenarios it plays (see the package documentation for the format).
type BenchFile struct {
	Secrets  map[string]string          `json:"secrets,omitempty"`
	Settings map[string]json.RawMessage `json:"settings,omitempty"`
	// Fetch answers net/fetch of a module by exact URL, in place of the
	// network, once the egress guard let the URL through.
	Fetch     map[string]FetchAnswer `json:"fetch,omitempty"`
	Scenarios []Scenario             `json:"scenarios"`
}

// FetchAnswer is the response the bench gives a net/fetch of its URL.
type FetchAnswer struct {
	Status  int64             `json:"status,omitempty"` // 200 when left out
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// Scenario is one call the bench makes and what must come back.
type Scenario struct {
	Name   string          `json:"name"`
	Call   string          `json:"call"`
	Params json.RawMessage `json:"params,omitempty"`
	Expect *Expectation    `json:"expect,omitempty"`
	// Refused lists the refusals the call is expected to meet (a fetch of a
	// host outside permissions.network that the plugin handles): each must
	// be met, and no other is accepted during the call. Without it, the
	// refusals of a call answered with a result are the plugin's to handle.
	Refused []ExpectedRefusal `json:"refused,omitempty"`
}

// ExpectedRefusal is a refusal a scenario expects: a request of the
// plugin's to method, refused with code when one is given.
type ExpectedRefusal struct {
	Method string `json:"method"`
	Code   *int64 `json:"code,omitempty"`
}

// matches reports whether r is the refusal e expects.
func (e ExpectedRefusal) matches(r refusal) bool {
	return e.Method == r.method && (e.Code == nil || *e.Code == r.code)
}

func (e ExpectedRefusal) String() string {
	if e.Code == nil {
		return e.Method
	}
	return fmt.Sprintf("%s (%d)", e.Method, *e.Code)
}

// Expectation is what a scenario's answer must be: a result, a result that
// includes some members, or an error.
type Expectation struct {
	Result json.RawMessage `json:"result,omitempty"`
	// Includes is part of the result: each member it gives must be in the
	// result with that value, an object inside judged the same way, an
	// array or a scalar equal; the result may have more (a timing field).
	Includes json.RawMessage `json:"includes,omitempty"`
	Error    *ExpectedError  `json:"error,omitempty"`
}

// ExpectedError is the error a scenario expects; Message is checked only
// when given.
type ExpectedError struct {
	Code    int64   `json:"code"`
	Message *string `json:"message,omitempty"`
}

// BenchFileDocs is where the format of escouade-bench.json is described,
// named in every refusal of one.
const BenchFileDocs = `docs/CLI.md, "Scenarios: escouade-bench.json"`

// LoadBenchFile reads DIR/escouade-bench.json; a folder without one gives
// nil and no error. A refusal names the file's path, the line and column,
// the scenario and the field, and the fix.
func LoadBenchFile(dir string) (*BenchFile, error) {
	path := filepath.Join(dir, BenchFileName)
	data, err := safefile.Read(path, path, maxBenchFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, safefile.ErrTooLarge):
		return nil, fmt.Errorf("%w (fix: keep it under 1 MiB: it holds calls, not data)", err)
	case err != nil:
		return nil, err // a sentence that names the file and what it is
	}
	b, err := DecodeBenchFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// DecodeBenchFile decodes and checks the bytes of escouade-bench.json.
// Unknown members are refused, so a typo cannot make a scenario pass. An
// error is a *BenchFileError.
func DecodeBenchFile(data []byte) (*BenchFile, error) {
	pos, err := positions(data)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, &BenchFileError{Line: 1, Column: 1, Message: "is not JSON", Fix: "write one JSON object"}
	}
	if err := checkBenchShape(doc, &benchPlace{data: data, pos: pos}); err != nil {
		return nil, err
	}
	var b BenchFile
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, &BenchFileError{Line: 1, Column: 1, Message: "does not hold", Fix: "see " + BenchFileDocs}
	}
	return &b, nil
}

// BenchFileError is a refusal of escouade-bench.json: where it is, what
// is wrong and the fix.
type BenchFileError struct {
	Line, Column int
	Pointer      string // JSON pointer of the field, "" for the file
	Scenario     string // "scenario 0 (\"echo\")" when inside one
	Message      string
	Fix          string
}

func (e *BenchFileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	if e.Scenario != "" {
		b.WriteString(e.Scenario + ": ")
	}
	if e.Pointer != "" {
		b.WriteString(e.Pointer + ": ")
	}
	b.WriteString(e.Message)
	fmt.Fprintf(&b, " (fix: %s; the format: %s)", e.Fix, BenchFileDocs)
	return b.String()
}

// lineColumn turns a byte offset into a line and a column, both from 1,
// the column counted in runes.
func lineColumn(data []byte, off int) (int, int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

// positions maps the JSON pointer of every member and item to the offset
// where it starts: its key for a member. A file that is not one JSON
// value is refused here, with where it goes wrong.
func positions(data []byte) (map[string]int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	pos := map[string]int{}
	if err := walkPositions(dec, data, "", pos); err != nil {
		return nil, syntaxProblem(data, err)
	}
	off := skipFiller(data, int(dec.InputOffset()))
	if _, err := dec.Token(); err != io.EOF {
		line, col := lineColumn(data, off)
		return nil, &BenchFileError{Line: line, Column: col, Message: "more data after the JSON object",
			Fix: "keep one JSON object in the file"}
	}
	return pos, nil
}

func walkPositions(dec *json.Decoder, data []byte, ptr string, pos map[string]int) error {
	start := skipFiller(data, int(dec.InputOffset()))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if _, seen := pos[ptr]; !seen {
		pos[ptr] = start
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			keyStart := skipFiller(data, int(dec.InputOffset()))
			key, err := dec.Token()
			if err != nil {
				return err
			}
			child := ptr + "/" + escapePointer(fmt.Sprint(key))
			pos[child] = keyStart
			if err := walkPositions(dec, data, child, pos); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkPositions(dec, data, fmt.Sprintf("%s/%d", ptr, i), pos); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}

// skipFiller moves past the blanks, commas and colons between tokens.
func skipFiller(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// syntaxProblem words a decoder's error for a person: where, and what.
func syntaxProblem(data []byte, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		line, col := lineColumn(data, int(syn.Offset)-1)
		return &BenchFileError{Line: line, Column: col, Message: "not JSON: " + syn.Error(),
			Fix: "correct the JSON there (a missing comma or quote, a trailing comma)"}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		line, col := lineColumn(data, len(data))
		msg := "the file ends before the JSON value is complete"
		if len(bytes.TrimSpace(data)) == 0 {
			msg = "the file is empty"
		}
		return &BenchFileError{Line: line, Column: col, Message: msg, Fix: "close every string, array and object; an empty bench file is {}"}
	}
	return &BenchFileError{Line: 1, Column: 1, Message: "not JSON: " + err.Error(), Fix: "write one JSON object"}
}

// isParams reports whether raw is absent, null, an object or an array.
func isParams(raw json.RawMessage) bool {
	trimmed := bytes.TrimSpace(raw)
	return len(trimmed) == 0 || trimmed[0] == '{' || trimmed[0] == '[' || string(trimmed) == "null"
}
