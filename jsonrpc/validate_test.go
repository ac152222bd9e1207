package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// validCases hold what validJSON must accept or refuse, with why.
var validCases = []struct {
	in   string
	want bool
}{
	{`{}`, true}, {`[]`, true}, {` {"a" : [1, -2.5e+3, "x", true, false, null, {}] } `, true},
	{`"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"`, true}, {`"\ud800"`, true},
	{`0`, true}, {`-0`, true}, {`1e400`, true}, {`0.5E-2`, true},
	{"\"é😀\"", true},
	{``, false}, {` `, false}, {`{`, false}, {`[1,]`, false}, {`{"a":1,}`, false}, {`{"a"}`, false},
	{`{1:2}`, false}, {`[1 2]`, false}, {`01`, false}, {`1.`, false}, {`.5`, false}, {`-`, false},
	{`1e`, false}, {`1e+`, false}, {`+1`, false}, {`tru`, false}, {`nul`, false}, {`True`, false},
	{`"\x"`, false}, {`"\u12G4"`, false}, {`"\u12"`, false}, {"\"a\tb\"", false}, {`"abc`, false},
	{"\"\xff\"", false}, {"\"\xc3\"", false}, {"\"\xed\xa0\x80\"", false}, {`1 2`, false}, {`{}x`, false},
	{"\x00", false}, {"\ufeff{}", false},
}

func TestValidJSON(t *testing.T) {
	for _, tc := range validCases {
		if got := validJSON([]byte(tc.in)); got != tc.want {
			t.Errorf("validJSON(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestValidJSONDepth(t *testing.T) {
	tests := []struct {
		depth int
		want  bool
	}{{maxDepth, true}, {maxDepth + 1, false}}
	for _, tc := range tests {
		for _, open := range []string{"[", `{"a":`} {
			close := map[string]string{"[": "]", `{"a":`: "}"}[open]
			in := strings.Repeat(open, tc.depth) + "1" + strings.Repeat(close, tc.depth)
			if got := validJSON([]byte(in)); got != tc.want {
				t.Errorf("validJSON(%s nested %d deep) = %v, want %v", open, tc.depth, got, tc.want)
			}
		}
	}
}

// FuzzValidJSON holds validJSON to encoding/json and unicode/utf8.
func FuzzValidJSON(f *testing.F) {
	for _, tc := range validCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := json.Valid(data) && utf8.Valid(data)
		if got := validJSON(data); got != want {
			t.Fatalf("validJSON(%q) = %v; json.Valid and utf8.Valid say %v", data, got, want)
		}
	})
}
