package harness

import (
	"fmt"
	"strings"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// A cause is a failure of a known agent whose own words do not say what a
// person should do: the host recognises its words where a person meets
// them (a notice, a failed tool, the agent's last stderr lines) and adds
// a notice that says it, once per session (docs/harness.md#known-failures).
type cause struct {
	key    string
	words  [][]string // any group whose words all appear
	notice string
}

var causes = []cause{
	{
		key: "root",
		// Claude Code's refusal, and its ACP adapter's.
		words: [][]string{
			{"cannot be used with root/sudo privileges"},
			{"not available when running as root"},
		},
		notice: noticeRootFormat,
	},
	{
		key: "bwrap",
		// Codex's shell runs in a bubblewrap sandbox. Its warning that it
		// "could not find bubblewrap on PATH" and uses its own in the
		// meantime is no failure, and is not taken for one.
		words: [][]string{
			{"bubblewrap is unavailable"},
			{"bwrap", "No such file or directory"},
			{"bwrap", "not found"},
		},
		notice: noticeBwrapFormat,
	},
}

// matches reports whether text holds one of the cause's word groups.
func (c cause) matches(text string) bool {
	for _, group := range c.words {
		if containsAll(text, group) {
			return true
		}
	}
	return false
}

func containsAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// noticeCauses adds, after a notice or a failed tool, the notice of each
// known cause its text or the agent's last stderr lines show.
func (s *Session) noticeCauses(it acp.Item) {
	var text string
	switch {
	case it.Type == acp.TypeNotice:
		text = it.Text
	case it.Type == acp.TypeToolDone && it.Status == "failed":
		text = it.Error + "\n" + string(it.Output)
	default:
		return
	}
	if s.proc != nil {
		text += "\n" + strings.Join(s.proc.LastStderr(), "\n")
	}
	for _, c := range causes {
		if s.causesNoticed[c.key] || !c.matches(text) {
			continue
		}
		if s.causesNoticed == nil {
			s.causesNoticed = map[string]bool{}
		}
		s.causesNoticed[c.key] = true
		s.emit(noticeItem(fmt.Sprintf(c.notice, s.speaker())))
	}
}
