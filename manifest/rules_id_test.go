package manifest

import (
	"strings"
	"testing"
)

// TestIDPartsEndWithALetterOrDigit: the id pattern lets a dash end a part,
// a slip a domain never has; it is refused with the part named.
func TestIDPartsEndWithALetterOrDigit(t *testing.T) {
	tests := []struct{ id, want string }{
		{"dev.example.hello-", `/id: "dev.example.hello-" has a part that starts or ends with a dash ("hello-"): a reverse-DNS part starts and ends with a letter or digit (fix: write "hello" instead of "hello-", e.g. dev.escouade.my-plugin)`},
		{"dev.-hello", `("-hello")`},
		{"dev.-", `remove the part "-"`},
		{"dev.my-plugin", ""},
	}
	for _, tt := range tests {
		doc := `{"id":"` + tt.id + `","name":"n","version":"1.0.0","escouade":{"api":"1"}}`
		_, err := Parse([]byte(doc), LoadOptions{})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tt.want == "" && err != nil || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("id %q: error %q, want it to hold %q", tt.id, got, tt.want)
		}
	}
}
