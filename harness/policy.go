package harness

import (
	"slices"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// Permission option kinds (ACP PermissionOptionKind).
const (
	KindAllowOnce    = "allow_once"
	KindAllowAlways  = "allow_always"
	KindRejectOnce   = "reject_once"
	KindRejectAlways = "reject_always"
)

// writeTools are the app's tool names that change a file's text.
var writeTools = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}

// onPermission completes a card (its diff), shows it, and answers it
// at once when the app mode lets it pass.
func (s *Session) onPermission(it acp.Item) {
	it.Diffs = cardDiffs(it, s.fence, s.opts.MaxDiffBytes)
	if kind, ok := AutoAnswer(s.mode, it, s.fence); ok {
		// The mode lets it pass without a card: only its answer is shown.
		s.take(s.client.AnswerPermission(it.Request, kind))
		return
	}
	s.emit(it)
}

// AutoAnswer is the permission policy of the app mode (docs/harness.md#permissions-and-the-app-mode): the
// option kind that answers the card without the user, or false when the user
// must answer. default lets nothing pass; acceptEdits lets a write pass
// whose every path lies inside the agent's folder; bypassPermissions lets
// everything pass. An allow option must be offered.
func AutoAnswer(mode string, card acp.Item, fence *Fence) (string, bool) {
	switch mode {
	case ModeBypassPermissions:
	case ModeAcceptEdits:
		if !isWrite(card) || !allInside(cardPaths(card), fence) {
			return "", false
		}
	default:
		return "", false
	}
	for _, kind := range []string{KindAllowOnce, KindAllowAlways} {
		if slices.ContainsFunc(card.Options, func(o acp.PermissionOption) bool { return o.Kind == kind }) {
			return kind, true
		}
	}
	return "", false
}

func isWrite(card acp.Item) bool {
	return card.Kind == "edit" || slices.Contains(writeTools, card.Name) || len(card.Diffs) > 0
}

// cardPaths lists every path a card names: its diffs, its locations and
// the path of its input.
func cardPaths(card acp.Item) []string {
	var paths []string
	for _, d := range card.Diffs {
		paths = append(paths, d.Path)
	}
	paths = append(paths, card.Locations...)
	if p, ok := inputPath(card.Input); ok {
		paths = append(paths, p)
	}
	return paths
}

func allInside(paths []string, fence *Fence) bool {
	if len(paths) == 0 {
		return false
	}
	for _, p := range paths {
		if !fence.Inside(p) {
			return false
		}
		if _, err := fence.Check(p); err != nil {
			return false
		}
	}
	return true
}
