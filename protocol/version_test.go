package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestVersionProblem(t *testing.T) {
	tests := []struct{ result, want string }{
		{`{"protocolVersion":1}`, ""},
		{`{"protocolVersion":1,"capabilities":{}}`, ""},
		{`{"protocolVersion":2}`, "it speaks version 2 of the protocol; this Escouade speaks version 1"},
		{`{}`, "its answer to initialize has no protocol version"},
		{`{"protocolVersion":null}`, "its answer to initialize has no protocol version"},
		{`null`, "its answer to initialize has no protocol version"},
		{`[1]`, "its answer to initialize has no protocol version"},
		{`{"protocolVersion":"1"}`, `its answer to initialize has no protocol version (protocolVersion is "1", not a number)`},
		{`{"protocolVersion":true}`, `its answer to initialize has no protocol version (protocolVersion is true, not a number)`},
		{`{"protocolVersion":1.0}`, "its answer to initialize has no protocol version (protocolVersion is 1.0, not an integer)"},
	}
	for _, tt := range tests {
		if got := VersionProblem(json.RawMessage(tt.result)); got != tt.want {
			t.Errorf("VersionProblem(%s) = %q, want %q", tt.result, got, tt.want)
		}
	}
}

// FuzzVersionProblem: only a result whose protocolVersion is exactly 1
// passes, and a refusal always says why in the host's words.
func FuzzVersionProblem(f *testing.F) {
	for _, seed := range []string{`{"protocolVersion":1}`, `{"protocolVersion":2}`, `{}`, `null`, `{"protocolVersion":"1"}`,
		`{"protocolVersion":1.0}`, `{"ProtocolVersion":1}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, result []byte) {
		why := VersionProblem(result)
		var members map[string]any
		ok := json.Unmarshal(result, &members) == nil
		raw := map[string]json.RawMessage{}
		json.Unmarshal(result, &raw)
		exact := ok && string(raw["protocolVersion"]) == "1"
		if exact != (why == "") {
			t.Fatalf("VersionProblem(%s) = %q", result, why)
		}
		// A version that is not the number it looks like is named by its
		// type: "1" must never read as version 1.
		if v := raw["protocolVersion"]; ok && len(v) > 0 && v[0] == '"' && !strings.Contains(why, "not a number") {
			t.Fatalf("VersionProblem(%s) = %q: a string version not named as a string", result, why)
		}
		if why != "" && !strings.HasPrefix(why, "it speaks version ") && !strings.HasPrefix(why, "its answer to initialize ") {
			t.Fatalf("VersionProblem(%s) = %q: not the host's words", result, why)
		}
	})
}
