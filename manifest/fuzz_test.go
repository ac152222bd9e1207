package manifest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	seeds := []string{
		"", "{}", "[]", "null", "{", "\xff", "\uFEFF{}", minimalManifest,
		`{"id":"dev.x.y","name":{"fr":"a"},"version":"1.0.0","escouade":{"api":"1","min":"1.0.0-rc.1"},"run":{"command":["./x"]},"activation":["onCall"]}`,
		`{"id":"dev.x.y","name":"x","version":"1.0.0","escouade":{"api":"1"},"permissions":{"secrets":["a*","*","b*c",""]}}`,
		`{"id":"dev.x.y","name":"x","version":"1.0.0","escouade":{"api":"1"},"limits":{"netTimeoutMs":1e3,"netMaxBytes":-0.5}}`,
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
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal of an accepted manifest: %v", err)
		}
		if _, err := Parse(out, LoadOptions{AppVersion: "2.2.0"}); err != nil {
			t.Fatalf("an accepted manifest written back is refused:\n%s\n%v", out, err)
		}
	})
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
