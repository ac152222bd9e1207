package manifest

import (
	"net/url"
	"strconv"
	"strings"
)

// schemaLocation turns a schema URL into the JSON pointer of its fragment,
// unescaped: ".../plugin-1.json#/properties/id" gives "/properties/id".
func schemaLocation(schemaURL string) string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	if unescaped, err := url.PathUnescape(frag); err == nil {
		return unescaped
	}
	return frag
}

// splitPointer splits a JSON pointer into its unescaped tokens.
func splitPointer(p string) []string {
	if p == "" {
		return nil
	}
	tokens := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range tokens {
		tokens[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	return tokens
}

// valueAt returns the value at the tokens' location in a decoded JSON
// document, or nil.
func valueAt(doc any, tokens []string) any {
	v := doc
	for _, t := range tokens {
		switch node := v.(type) {
		case map[string]any:
			v = node[t]
		case []any:
			i, ok := arrayIndex(t, len(node))
			if !ok {
				return nil
			}
			v = node[i]
		default:
			return nil
		}
	}
	return v
}

func arrayIndex(token string, length int) (int, bool) {
	i, err := strconv.Atoi(token)
	if err != nil || i < 0 || i >= length {
		return 0, false
	}
	return i, true
}
