package manifest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// typeNames joins JSON Schema type names with their articles: "a string or
// an object".
func typeNames(types []string) string {
	named := make([]string, len(types))
	for i, t := range types {
		named[i] = article(t)
	}
	return strings.Join(named, " or ")
}

func article(jsonType string) string {
	switch jsonType {
	case "null":
		return "null"
	case "array", "object", "integer":
		return "an " + jsonType
	}
	return "a " + jsonType
}

// maxShown is how many bytes of a value a message quotes: enough to
// recognise it, short enough to keep a problem on one readable line.
const maxShown = 60

// display writes a JSON value as it would appear in the manifest, cut
// short when long.
func display(v any) string {
	switch v := v.(type) {
	case *big.Rat:
		return v.RatString()
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return shorten(fmt.Sprint(v))
	}
	return shorten(string(b))
}

// quoteShort quotes s as Go does, cut short when long.
func quoteShort(s string) string { return shorten(strconv.Quote(s)) }

func shorten(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func displayList(vs []any) string {
	shown := make([]string, len(vs))
	for i, v := range vs {
		shown[i] = display(v)
	}
	return strings.Join(shown, ", ")
}
