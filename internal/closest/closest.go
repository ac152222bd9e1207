// Package closest finds, among the names a user could have meant, the one
// a typo most likely stands for: the same name in another case, or one a
// letter or two away.
package closest

import (
	"strings"
	"unicode/utf8"
)

// Match returns the name of names closest to typed, or "" when none is
// close enough to be a typo of it: equal but for case, or at most one edit
// away for a short name (two for a name of 6 runes or more). typed itself
// is never returned.
func Match(typed string, names []string) string {
	best, bestDist := "", -1
	for _, n := range names {
		if n == typed {
			continue
		}
		if strings.EqualFold(n, typed) {
			return n
		}
		d := distance(strings.ToLower(typed), strings.ToLower(n))
		limit := 1
		if utf8.RuneCountInString(n) >= 6 {
			limit = 2
		}
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = n, d
		}
	}
	return best
}

// distance is the edit distance between a and b (insertions, deletions,
// substitutions and swaps of two neighbours), counted in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
