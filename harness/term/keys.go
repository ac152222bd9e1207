package term

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// PermissionKey gives the option kind that key (1..n) picks on a
// permission card.
func PermissionKey(card acp.Item, key string) (string, error) {
	n, err := strconv.Atoi(strings.TrimSpace(key))
	if err != nil || n < 1 || n > len(card.Options) {
		return "", fmt.Errorf("type a number from 1 to %d", len(card.Options))
	}
	o := card.Options[n-1]
	if o.Kind == "" {
		return o.ID, nil
	}
	return o.Kind, nil
}

// ParseAnswer reads the answers to a question card: one part per question,
// separated by ';'; in each, option numbers separated by ',' or a typed
// answer.
func ParseAnswer(card acp.Item, input string) ([][]string, error) {
	parts := strings.Split(input, ";")
	if len(parts) != len(card.Questions) {
		return nil, fmt.Errorf("answer %d question(s), separated by ';'", len(card.Questions))
	}
	answers := make([][]string, len(parts))
	for i, part := range parts {
		answers[i] = choices(card.Questions[i], strings.TrimSpace(part))
	}
	return answers, nil
}

// choices takes option numbers when every piece is one, else the text.
func choices(q acp.Question, part string) []string {
	var labels []string
	for _, piece := range strings.Split(part, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(piece))
		if err != nil || n < 1 || n > len(q.Options) {
			return []string{part}
		}
		labels = append(labels, q.Options[n-1].Label)
	}
	if !q.MultiSelect && len(labels) > 1 {
		return []string{part}
	}
	return labels
}
