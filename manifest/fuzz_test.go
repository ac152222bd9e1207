package manifest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/internal/safetext"
)

func FuzzParse(f *testing.F) {
	seeds := []string{
		"", "{}", "[]", "null", "{", "\xff", "\uFEFF{}", minimalManifest,
		`{"id":"dev.x.y","name":{"fr":"a"},"version":"1.0.0","escouade":{"api":"1","min":"1.0.0-rc.1"},"run":{"command":["./x"]},"activation":["onCall"]}`,
		`{"id":"dev.x.y","name":"x","version":"1.0.0","escouade":{"api":"1"},"permissions":{"secrets":["a*","*","b*c",""]}}`,
		`{"id":"dev.x.y","name":"x","version":"1.0.0","escouade":{"api":"1"},"limits":{"netTimeoutMs":1e3,"netMaxBytes":-0.5}}`,
		`{"id":"dev.x.y","name":"Nice\u001b[1A\u001b[2KInstall","version":"1.0.0","escouade":{"api":"1"},"description":{"en":"a\nb","fr":"\u202e"}}`,
		`{"id":"dev.x.y","name":"x","version":"1.0.0","escouade":{"api":"1"},"contributes":{"k\u2066":[{"t":"\udb40\udc41"}]}}`,
		`{"id":"dev.x.y","name":"x","version":"1.0.0","escouade":{"api":"1"},"contributes":{"settings":{"e":{"type":"enum","enum":[1,"1",true],"default":1.0}},"harnesses":[{"id":"h","name":"h","caps":{"modes":["a",{"id":"a"}]},"tested":{"oldest":"2.0.0","newest":"1.0.0"}}]}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add(readFile(f, filepath.Join(gooseDir, FileName)))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data, LoadOptions{AppVersion: "2.2.0"})
		if err != nil {
			checkRefusal(t, err)
			return
		}
		if at, text, found := unsafeText(data); found {
			t.Fatalf("accepted a manifest whose %s holds an unsafe character: %q", at, text)
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal of an accepted manifest: %v", err)
		}
		if _, err := Parse(out, LoadOptions{AppVersion: "2.2.0"}); err != nil {
			t.Fatalf("an accepted manifest written back is refused:\n%s\n%v", out, err)
		}
	})
}

// unsafeText finds a string or member name of the JSON document data that
// holds a character internal/safetext calls unsafe, with a path to it.
func unsafeText(data []byte) (at, text string, found bool) {
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return "the document", err.Error(), true
	}
	var find func(v any, path string) bool
	find = func(v any, path string) bool {
		switch v := v.(type) {
		case string:
			at, text = path, v
			return strings.ContainsFunc(v, safetext.Unsafe)
		case []any:
			for i, item := range v {
				if find(item, fmt.Sprintf("%s[%d]", path, i)) {
					return true
				}
			}
		case map[string]any:
			for k, item := range v {
				if find(k, path+" key") || find(item, path+"."+k) {
					return true
				}
			}
		}
		return false
	}
	found = find(doc, "manifest")
	return at, text, found
}

// checkRefusal checks that a refusal is an *Error whose every problem is
// a readable line pointing into the document.
func checkRefusal(t *testing.T, err error) {
	merr, ok := err.(*Error)
	if !ok {
		t.Fatalf("error is %T, want *Error: %v", err, err)
	}
	if len(merr.Problems) == 0 {
		t.Fatal("a refusal without problems")
	}
	for _, p := range merr.Problems {
		if p.Message == "" || (p.Pointer != "" && !strings.HasPrefix(p.Pointer, "/")) {
			t.Fatalf("bad problem %+v", p)
		}
		if !utf8.ValidString(p.Message) {
			t.Fatalf("message is not UTF-8: %q", p.Message)
		}
	}
	if strings.Count(merr.Error(), "\n") != len(merr.Problems)-1 {
		t.Fatalf("Error() is not one line per problem:\n%s", merr.Error())
	}
}

// FuzzSecretEntry checks that the schema and the Go rule agree on which
// permissions.secrets entries pass: a manifest holding one entry is
// accepted exactly when the rule finds no fault in it.
func FuzzSecretEntry(f *testing.F) {
	for _, seed := range []string{"webhook", "account:*", "*", "", "a*b", "*a", "a**", "a\x7fb", "..", "/x", "a/b*", "é*", "\u0085"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, entry string) {
		quoted, err := json.Marshal([]string{entry})
		if err != nil {
			t.Fatal(err)
		}
		var decoded []string // what the manifest holds once read
		if err := json.Unmarshal(quoted, &decoded); err != nil {
			t.Fatal(err)
		}
		data := []byte(`{"id":"dev.x.y","name":"x","version":"1.0.0","escouade":{"api":"1"},"permissions":{"secrets":` + string(quoted) + `}}`)
		_, err = Parse(data, LoadOptions{})
		fault := secretEntryFault(decoded[0])
		if (err == nil) != (fault == "") {
			t.Fatalf("entry %q: Parse error %v, rule fault %q", decoded[0], err, fault)
		}
		if fault == "" && strings.Contains(strings.TrimSuffix(decoded[0], "*"), "*") {
			t.Fatalf("entry %q accepted with a * before its end", decoded[0])
		}
	})
}
