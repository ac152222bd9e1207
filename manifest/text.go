package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// FallbackLang is the language a Text falls back to when it has no
// translation in the language asked for.
const FallbackLang = "en"

// Translation is a Text in one language.
type Translation struct {
	Lang string
	Text string
}

// Text is a text shown to the user. In JSON it is either a plain string or an
// object of language to string ({"fr": "…", "en": "…"}); a Text keeps the
// shape it was read in, and the languages in document order, so writing it
// back gives the same JSON.
//
// The zero Text is empty and marshals as "".
type Text struct {
	plain        string
	translations []Translation // non-nil only for the object shape
}

// PlainText returns a Text that is the same in every language.
func PlainText(s string) Text { return Text{plain: s} }

// Translated returns a Text given per language, in the order given. A
// language given twice keeps its first place and its last text, as reading
// the same JSON would.
func Translated(ts ...Translation) Text {
	t := Text{translations: make([]Translation, 0, len(ts))}
	for _, tr := range ts {
		t.set(tr.Lang, tr.Text)
	}
	return t
}

// In returns the text in lang. Without it, it tries lang's base language
// ("fr" for "fr-CA"), then FallbackLang, then the first language given.
func (t Text) In(lang string) string {
	if t.translations == nil {
		return t.plain
	}
	base, _, _ := strings.Cut(lang, "-")
	for _, want := range []string{lang, base, FallbackLang} {
		if s, ok := t.lookup(want); ok {
			return s
		}
	}
	if len(t.translations) > 0 {
		return t.translations[0].Text
	}
	return ""
}

// String returns the text in FallbackLang, for logs and debugging.
func (t Text) String() string { return t.In(FallbackLang) }

// IsZero reports whether t holds no text at all.
func (t Text) IsZero() bool { return t.plain == "" && len(t.translations) == 0 }

// IsPlain reports whether t was given as a plain string.
func (t Text) IsPlain() bool { return t.translations == nil }

// Translations returns the languages of t in document order, or nil for a
// plain text.
func (t Text) Translations() []Translation {
	if t.translations == nil {
		return nil
	}
	return append([]Translation(nil), t.translations...)
}

// Equal reports whether t and u have the same shape and the same texts in
// the same order. go-cmp uses it.
func (t Text) Equal(u Text) bool {
	if t.plain != u.plain || (t.translations == nil) != (u.translations == nil) {
		return false
	}
	if len(t.translations) != len(u.translations) {
		return false
	}
	for i := range t.translations {
		if t.translations[i] != u.translations[i] {
			return false
		}
	}
	return true
}

func (t Text) lookup(lang string) (string, bool) {
	for _, tr := range t.translations {
		if tr.Lang == lang {
			return tr.Text, true
		}
	}
	return "", false
}

func (t *Text) set(lang, text string) {
	for i := range t.translations {
		if t.translations[i].Lang == lang {
			t.translations[i].Text = text
			return
		}
	}
	t.translations = append(t.translations, Translation{Lang: lang, Text: text})
}

// MarshalJSON writes t in the shape it was read in.
func (t Text) MarshalJSON() ([]byte, error) {
	if t.translations == nil {
		return json.Marshal(t.plain)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, tr := range t.translations {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(tr.Lang) // marshalling a string cannot fail
		v, _ := json.Marshal(tr.Text)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var errTextShape = errors.New("a text must be a string or an object of language to string")

// UnmarshalJSON reads a string or an object of strings, keeping the order of
// the languages. JSON null leaves t unchanged, as for the standard types.
func (t *Text) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		return nil
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*t = PlainText(s)
		return nil
	case len(data) > 0 && data[0] == '{':
		return t.unmarshalObject(data)
	}
	return errTextShape
}

// unmarshalObject walks the object token by token: a map would lose the
// order of the languages, which decides the last fallback of In.
func (t *Text) unmarshalObject(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // the opening brace
		return err
	}
	parsed := Text{translations: []Translation{}}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		var s string
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("language %q: %w", key, errTextShape)
		}
		parsed.set(key.(string), s)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return err
	}
	*t = parsed
	return nil
}
