package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/internal/safetext"
)

// checkTexts refuses every string of the document, and every member name,
// that holds a character internal/safetext calls unsafe: a control
// character (ANSI escapes, line breaks, tabs, DEL, C1), a line separator,
// a bidirectional control or an invisible format character. Any of them
// in a name or a description lets the plugin draw over the consent window
// ("Nice\x1b[1A\x1b[2KInstall Nice 1.0…") or reorder what it says.
//
// It walks the decoded document rather than the typed fields, so that a
// field added later, and the members kept raw for the app (contributes.*,
// Extra), are checked too (docs/protocol.md#1-the-manifest).
func checkTexts(doc map[string]any) []Problem {
	var out []Problem
	walkTexts(doc, "", func(at, text string, isName bool) {
		if p := textProblem(at, text, isName); p != nil {
			out = append(out, *p)
		}
	})
	return out
}

// walkTexts calls visit for every string of v and every member name, with
// the pointer of the value (of the member, for a name).
func walkTexts(v any, at string, visit func(at, text string, isName bool)) {
	switch v := v.(type) {
	case string:
		visit(at, v, false)
	case []any:
		for i, item := range v {
			walkTexts(item, child(at, fmt.Sprint(i)), visit)
		}
	case map[string]any:
		for _, name := range slices.Sorted(maps.Keys(v)) {
			visit(child(at, name), name, true)
			walkTexts(v[name], child(at, name), visit)
		}
	}
}

// textProblem says which character of text is refused, where, and how to
// mend it; nil when text holds none.
func textProblem(at, text string, isName bool) *Problem {
	i := strings.IndexFunc(text, safetext.Unsafe)
	if i < 0 {
		return nil
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	what := quoteShort(text)
	if isName {
		what = "the member name " + what
	}
	return &Problem{
		Pointer: at,
		Message: fmt.Sprintf("%s holds %s, %s, at character %d: no text of a manifest may hold one, as it could change what a window shows",
			what, safetext.Code(r), safetext.Kind(r), utf8.RuneCountInString(text[:i])+1),
		Fix: textFix(r),
	}
}

func textFix(r rune) string {
	switch {
	case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
		return "write the text on one line: the app wraps long texts itself"
	case r == '\t':
		return "use spaces instead of the tab"
	case safetext.Kind(r) == "a bidirectional control":
		return "remove the control: the app lays out right-to-left text itself"
	}
	return "remove the character"
}
