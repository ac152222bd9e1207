package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// compactRaw compares raw JSON by its compact form: a message written on
// one line may lose the spaces it was read with.
var compactRaw = cmp.Transformer("compact", func(raw json.RawMessage) string {
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return "invalid: " + string(raw)
	}
	return out.String()
})

func FuzzDecode(f *testing.F) {
	for _, cases := range [][]decodeCase{specExamples, protocolRules} {
		for _, tc := range cases {
			f.Add([]byte(tc.line))
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		decoded := DecodeLine(line)
		if len(decoded.Items) == 0 && !isBlank(line) {
			t.Fatalf("DecodeLine(%q) gave no item for a non-blank line", line)
		}
		var valid []*Message
		for _, item := range decoded.Items {
			if (item.Msg == nil) == (item.Err == nil) {
				t.Fatalf("DecodeLine(%q) item %+v: want exactly one of Msg and Err", line, item)
			}
			if item.Msg != nil {
				valid = append(valid, item.Msg)
			}
		}
		for _, m := range valid {
			checkRoundTrip(t, m)
		}
		if decoded.Batch && len(valid) > 0 {
			checkBatchRoundTrip(t, valid)
		}
	})
}

// checkRoundTrip checks that a valid message re-encodes and decodes to
// itself.
func checkRoundTrip(t *testing.T, m *Message) {
	t.Helper()
	text, err := m.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON(%+v): %v", m, err)
	}
	if bytes.ContainsAny(text, "\r\n") {
		t.Fatalf("MarshalJSON wrote a line break: %q", text)
	}
	again := DecodeLine(text)
	want := single(valid(m))
	if diff := cmp.Diff(want, again, idComparer, compactRaw); diff != "" {
		t.Fatalf("%s decodes differently (-want +got):\n%s", text, diff)
	}
}

// checkBatchRoundTrip checks that valid batch members re-encode as a batch.
func checkBatchRoundTrip(t *testing.T, msgs []*Message) {
	t.Helper()
	values := make([]Message, len(msgs))
	for i, m := range msgs {
		values[i] = *m
	}
	text, err := appendArray(nil, values)
	if err != nil {
		t.Fatalf("appendArray: %v", err)
	}
	want := Line{Batch: true}
	for _, m := range msgs {
		want.Items = append(want.Items, valid(m))
	}
	if diff := cmp.Diff(want, DecodeLine(text), idComparer, compactRaw); diff != "" {
		t.Fatalf("%s decodes differently (-want +got):\n%s", text, diff)
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n  \nlast"), uint16(4), uint8(16))
	f.Add([]byte("0123456789abcdef0123456789\nok\r\n"), uint16(8), uint8(16))
	f.Add(bytes.Repeat([]byte("x\r"), 300), uint16(250), uint8(40))
	f.Fuzz(func(t *testing.T, input []byte, maxLine uint16, bufSize uint8) {
		max := int(maxLine%512) + 1
		lines := newLineReaderSize(bytes.NewReader(input), max, int(bufSize)+16)
		var got []readResult
		for {
			line, tooLong, err := lines.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			got = append(got, readResult{string(line), tooLong})
		}
		if diff := cmp.Diff(referenceLines(input, max), got); diff != "" {
			t.Fatalf("lines of %q with max %d (-want +got):\n%s", input, max, diff)
		}
	})
}

// referenceLines is the plain statement of what LineReader returns.
func referenceLines(input []byte, max int) []readResult {
	var want []readResult
	for len(input) > 0 {
		line, rest, _ := bytes.Cut(input, []byte("\n"))
		input = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) > max:
			want = append(want, readResult{string(line[:min(ExcerptLen, len(line))]), true})
		case !isBlank(line):
			want = append(want, readResult{string(line), false})
		}
	}
	return want
}
