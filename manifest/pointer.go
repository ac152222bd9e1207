package manifest

import (
	"cmp"
	"strconv"
	"strings"
)

// pointer joins reference tokens into a JSON pointer (RFC 6901).
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// child returns the pointer of member or item token under parent.
func child(parent string, token string) string {
	return parent + "/" + escapeToken(token)
}

func escapeToken(t string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
}

// comparePointers orders pointers as their values appear in a document with
// sorted keys: token by token, array indexes by number, so /a/2 comes
// before /a/10.
func comparePointers(a, b string) int {
	ta, tb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(ta) && i < len(tb); i++ {
		if c := compareTokens(ta[i], tb[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ta), len(tb))
}

func compareTokens(a, b string) int {
	na, errA := strconv.Atoi(a)
	nb, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return cmp.Compare(na, nb)
	}
	return cmp.Compare(a, b)
}
