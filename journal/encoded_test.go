package journal

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// issueSecret is the secret of the issue: it holds +, / and =, which a URL
// and base64 both write otherwise.
const issueSecret = "Zq9+sK/t0p=S3cr3t"

func basic(userColonSecret string) string {
	return base64.StdEncoding.EncodeToString([]byte(userColonSecret))
}

// A secret percent-encoded (a query, a form body) or inside base64 (a
// Basic credential) is hidden, the whole base64 token with it; the same
// forms of another text stay as they are.
func TestMaskEncodedForms(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"percent, upper case", "GET /cb?token=Zq9%2BsK%2Ft0p%3DS3cr3t&x=1", "GET /cb?token=••••&x=1"},
		{"percent, lower case", "token=Zq9%2bsK%2ft0p%3dS3cr3t", "token=••••"},
		{"percent, every byte", "t=" + percentAll(issueSecret), "t=••••"},
		{"percent, query escaping", "t=" + url.QueryEscape(issueSecret) + " end", "t=•••• end"},
		{"percent, path escaping", "/v1/" + url.PathEscape(issueSecret) + "/x", "/v1/••••/x"},
		{"percent, twice", "next=" + url.QueryEscape("https://h/?t="+url.QueryEscape(issueSecret)), "next=https%3A%2F%2Fh%2F%3Ft%3D••••"},
		{"percent, + kept, / encoded", "token=Zq9+sK%2Ft0p%3DS3cr3t", "token=••••"},
		{"Basic", "Authorization: Basic " + basic("user:"+issueSecret), "Authorization: Basic ••••"},
		{"Basic, secret at offset 1", "Basic " + basic(":"+issueSecret), "Basic ••••"},
		{"Basic, secret at offset 2", "Basic " + basic("u:"+issueSecret), "Basic ••••"},
		{"Basic, secret at offset 3", "Basic " + basic("us:"+issueSecret), "Basic ••••"},
		{"Basic, no padding", "Basic " + base64.RawStdEncoding.EncodeToString([]byte("user:"+issueSecret)) + ";", "Basic ••••;"},
		{"URL-safe alphabet", "auth=" + base64.URLEncoding.EncodeToString([]byte("bot:"+issueSecret)), "auth=••••"},
		{"Basic in JSON", `{"headers":{"Authorization":"Basic ` + basic("user:"+issueSecret) + `"}}`, `{"headers":{"Authorization":"Basic ••••"}}`},
		{"Basic in JSON, PHP slashes", `{"a":"Basic ` + strings.ReplaceAll(basic("user:"+issueSecret+"/"), "/", `\/`) + `"}`, `{"a":"Basic ••••"}`},
		{"Basic, percent-encoded", "auth=" + url.QueryEscape(basic("user:"+issueSecret)), "auth=••••"},
		{"Basic glued to a word", "xBasic" + basic("user:"+issueSecret), "••••"},
		// Unrelated text stays.
		{"another credential", "Authorization: Basic " + basic("user:other-password"), "Authorization: Basic " + basic("user:other-password")},
		{"another query", "token=abc%2Bdef%3D&q=a+b", "token=abc%2Bdef%3D&q=a+b"},
		{"long words", "internationalization/of/everything connecting_to-api", "internationalization/of/everything connecting_to-api"},
		{"broken escapes", "a%2 %zz %%41 100% +", "a%2 %zz %%41 100% +"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m masker
			m.add(issueSecret)
			if diff := cmp.Diff(tt.want, m.applyLine(m.apply(tt.text))); diff != "" {
				t.Errorf("mask(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// A '+' is a space in a form body: a secret with spaces written so is
// hidden, and a '+' of the secret itself still matches written as is.
func TestMaskPlusAsSpace(t *testing.T) {
	var m masker
	m.add("correct horse battery")
	m.add("a+b=c!")
	for text, want := range map[string]string{
		"pw=correct+horse+battery&x=1": "pw=••••&x=1",
		"pw=correct%20horse+battery":   "pw=••••",
		"k=a+b=c!":                     "k=••••",
		"k=a%2Bb%3Dc%21":               "k=••••",
	} {
		if got := m.apply(text); got != want {
			t.Errorf("apply(%q) = %q, want %q", text, got, want)
		}
	}
}

// A secret shorter than minBase64Needle is not looked for inside base64:
// its few bytes turn up in what any long word decodes to.
func TestMaskShortSecretNotInBase64(t *testing.T) {
	var m masker
	m.add("abc")
	text := "Basic " + basic("u:abc")
	if got := m.apply(text); got != text {
		t.Errorf("apply(%q) = %q, want it unchanged", text, got)
	}
}

// A hostile line of one long base64 run, or of escapes only, is masked in
// one pass over it, and a run holding the secret far inside is hidden.
func TestMaskLongBase64Run(t *testing.T) {
	var m masker
	m.add(issueSecret)
	run := basic(strings.Repeat("x", 40<<10) + issueSecret + strings.Repeat("y", 7))
	if got := m.apply("Basic " + run); got != "Basic ••••" {
		t.Errorf("a long run holding the secret: got %.80q", got)
	}
	plain := strings.Repeat("%41", 20<<10)
	if got := m.apply(plain); got != plain {
		t.Errorf("escapes of no secret changed: %.80q", got)
	}
}

func percentAll(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
	}
	return b.String()
}
