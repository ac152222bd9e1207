package term

import "strings"

// maxDiffCells bounds the table of the line diff; past it, the old text is
// shown removed and the new one added, which stays correct, only longer.
const maxDiffCells = 1 << 20

// DiffLines compares two texts line by line and gives the lines of a
// unified-style diff body: " " kept, "-" removed, "+" added. A nil old text
// is a new file.
func DiffLines(old *string, new string) []string {
	var a []string
	if old != nil {
		a = splitLines(*old)
	}
	b := splitLines(new)
	if len(a)*len(b) > maxDiffCells {
		return append(prefixed("-", a), prefixed("+", b)...)
	}
	return walkLCS(a, b, lcsTable(a, b))
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func prefixed(p string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = p + l
	}
	return out
}

// lcsTable holds at [i][j] the longest common subsequence of a[i:], b[j:].
func lcsTable(a, b []string) [][]int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t
}

func walkLCS(a, b []string, t [][]int) []string {
	var out []string
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, " "+a[i])
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			out = append(out, "-"+a[i])
			i++
		default:
			out = append(out, "+"+b[j])
			j++
		}
	}
	return append(append(out, prefixed("-", a[i:])...), prefixed("+", b[j:])...)
}
