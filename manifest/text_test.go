package manifest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTextIn(t *testing.T) {
	frEn := Translated(Translation{"fr", "Bonjour"}, Translation{"en", "Hello"})
	deIt := Translated(Translation{"de", "Hallo"}, Translation{"it", "Ciao"})
	tests := []struct {
		name string
		text Text
		lang string
		want string
	}{
		{"plain in any language", PlainText("Goose"), "fr", "Goose"},
		{"exact language", frEn, "fr", "Bonjour"},
		{"falls back to en", frEn, "de", "Hello"},
		{"base language of a region", frEn, "fr-CA", "Bonjour"},
		{"region given exactly", Translated(Translation{"pt-BR", "Olá"}, Translation{"en", "Hi"}), "pt-BR", "Olá"},
		{"no en: the first in document order", deIt, "fr", "Hallo"},
		{"empty language falls back", frEn, "", "Hello"},
		{"zero text", Text{}, "en", ""},
		{"empty object", Translated(), "en", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.text.In(tt.lang); got != tt.want {
				t.Errorf("In(%q) = %q, want %q", tt.lang, got, tt.want)
			}
		})
	}
}

func TestTextJSONKeepsShapeAndOrder(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  Text
		plain bool
	}{
		{"string", `"Goose"`, PlainText("Goose"), true},
		{"object in document order", `{"it":"Ciao","de":"Hallo"}`,
			Translated(Translation{"it", "Ciao"}, Translation{"de", "Hallo"}), false},
		{"repeated language keeps its place and last text", `{"fr":"a","en":"b","fr":"c"}`,
			Translated(Translation{"fr", "c"}, Translation{"en", "b"}), false},
		{"escapes", `"a \"quoted\" \u00e9"`, PlainText(`a "quoted" é`), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Text
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
			if got.IsPlain() != tt.plain {
				t.Errorf("IsPlain() = %v, want %v", got.IsPlain(), tt.plain)
			}
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var again Text
			if err := json.Unmarshal(out, &again); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("after a round trip through %s (-want +got):\n%s", out, diff)
			}
		})
	}
}

func TestTextMarshalExact(t *testing.T) {
	tests := []struct {
		text Text
		want string
	}{
		{PlainText("Goose"), `"Goose"`},
		{Text{}, `""`},
		{Translated(Translation{"fr", "é"}, Translation{"en", "<b>"}), `{"fr":"é","en":"\u003cb\u003e"}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("Marshal = %s, want %s", got, tt.want)
		}
	}
}

func TestTextUnmarshalRefuses(t *testing.T) {
	for _, in := range []string{`1`, `true`, `[]`, `{"en":1}`, `{"en":{"x":"y"}}`, `{"en":"a"`} {
		var got Text
		if err := json.Unmarshal([]byte(in), &got); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", in, got)
		}
	}
}

func TestTextNullLeavesTextUnchanged(t *testing.T) {
	got := PlainText("kept")
	if err := got.UnmarshalJSON([]byte("null")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(PlainText("kept"), got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTextIsZeroAndEqual(t *testing.T) {
	tests := []struct {
		name string
		text Text
		zero bool
	}{
		{"zero", Text{}, true},
		{"empty string", PlainText(""), true},
		{"empty object", Translated(), true},
		{"plain", PlainText("x"), false},
		{"translated", Translated(Translation{"en", "x"}), false},
	}
	for _, tt := range tests {
		if got := tt.text.IsZero(); got != tt.zero {
			t.Errorf("%s: IsZero() = %v, want %v", tt.name, got, tt.zero)
		}
	}
	if PlainText("x").Equal(Translated(Translation{"en", "x"})) {
		t.Error("a plain text equals a translated one")
	}
	if Translated(Translation{"en", "a"}, Translation{"fr", "b"}).Equal(Translated(Translation{"fr", "b"}, Translation{"en", "a"})) {
		t.Error("texts in another order are equal")
	}
}

func TestTranslationsIsACopy(t *testing.T) {
	text := Translated(Translation{"en", "a"})
	text.Translations()[0].Text = "changed"
	if got := text.In("en"); got != "a" {
		t.Errorf("In(en) = %q after changing the copy, want %q", got, "a")
	}
	if got := PlainText("a").Translations(); got != nil {
		t.Errorf("Translations() of a plain text = %v, want nil", got)
	}
}

func FuzzText(f *testing.F) {
	for _, seed := range []string{`"a"`, `{"fr":"a","en":"b"}`, `{}`, `null`, `{"en":1}`, `[`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var text Text
		if err := json.Unmarshal(data, &text); err != nil {
			return
		}
		out, err := json.Marshal(text)
		if err != nil {
			t.Fatalf("Marshal after Unmarshal(%q): %v", data, err)
		}
		var again Text
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("Unmarshal(%s) of its own output: %v", out, err)
		}
		if !text.Equal(again) {
			t.Fatalf("round trip of %q changed %v into %v", data, text, again)
		}
		_ = text.In("fr")
	})
}
