package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decodeDocument turns the manifest's bytes into a JSON object (numbers
// kept as json.Number), or the one problem that keeps it from being one.
func decodeDocument(data []byte) (map[string]any, *Problem) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Problem{
			Message: "the file is empty",
			Fix:     `write the manifest, a JSON object with at least "id", "name", "version" and "escouade"`,
		}
	}
	if bytes.HasPrefix(data, utf8BOM) {
		return nil, &Problem{
			Message: "the file starts with a byte order mark",
			Fix:     "save it as UTF-8 without a byte order mark",
		}
	}
	if !utf8.Valid(data) {
		at := invalidUTF8Offset(data)
		return nil, &Problem{
			Message: "the file is not valid UTF-8 (" + position(data, at) + ")",
			Fix:     "save it as UTF-8",
		}
	}
	v, p := decodeJSON(data)
	if p != nil {
		return nil, p
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &Problem{
			Message: "the manifest is " + jsonKind(v) + ", not a JSON object",
			Fix:     `write the manifest as one JSON object: {"id": …, "name": …, "version": …, "escouade": {"api": "1"}}`,
		}
	}
	return obj, nil
}

// decodeJSON decodes exactly one JSON value, refusing what follows it.
func decodeJSON(data []byte) (any, *Problem) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxProblem(data, err)
	}
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		at := len(data) - len(rest)
		return nil, &Problem{
			Message: "the file has more data after the JSON value (" + position(data, at) + ")",
			Fix:     "keep one JSON object in the file",
		}
	}
	return v, nil
}

func syntaxProblem(data []byte, err error) *Problem {
	fix := "correct the JSON syntax at that place"
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		at := max(int(syntax.Offset)-1, 0)
		return &Problem{Message: fmt.Sprintf("the file is not JSON: %v (%s)", err, position(data, at)), Fix: fix}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Problem{
			Message: "the file is not JSON: it ends before the value is complete",
			Fix:     "close every string, array and object",
		}
	}
	return &Problem{Message: "the file is not JSON: " + err.Error(), Fix: fix}
}

// position names the byte offset at as a line and column (both from 1,
// the column counted in runes) for a person looking at the file.
func position(data []byte, at int) string {
	at = min(at, len(data))
	before := data[:at]
	line := bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	column := utf8.RuneCount(before[lineStart:]) + 1
	return fmt.Sprintf("line %d, column %d", line, column)
}

func invalidUTF8Offset(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// jsonKind names the JSON type of a decoded value, with its article.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}
