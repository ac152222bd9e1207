package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// Capabilities of caps the host acts on (docs/harness.md#the-acp-object): what is not
// said, the agent does not do.
const (
	CapReadOnly = "readOnly"
	CapImages   = "images"
	CapPDF      = "pdf"
)

// Pick gives the described harness of m named id, the first one when id
// is empty.
func Pick(m *manifest.Manifest, id string) (*manifest.Harness, error) {
	return pickHarness(m, id)
}

// OfferedModes lists the app modes h lets an agent run in: default (the
// mode where every request asks, which needs nothing of the agent), the
// ids of caps.modes, and readOnly only when caps.readOnly is true and
// acp.readOnlyMode names the agent's mode for it (listed in caps.modes
// alone, it is not offered).
func OfferedModes(h *manifest.Harness) []string {
	modes := []string{ModeDefault}
	for _, m := range h.Caps.Modes {
		if m.ID != acp.ReadOnly && !slices.Contains(modes, m.ID) {
			modes = append(modes, m.ID)
		}
	}
	if readOnlyOffered(h) && !slices.Contains(modes, acp.ReadOnly) {
		modes = append(modes, acp.ReadOnly)
	}
	return modes
}

func readOnlyOffered(h *manifest.Harness) bool {
	return h.Caps.Has(CapReadOnly) && h.ACP != nil && h.ACP.ReadOnlyMode != ""
}

// CheckMode refuses an app mode h does not offer, before it reaches the
// agent or the permission policy, naming caps.modes and what it lists.
func CheckMode(h *manifest.Harness, mode string) error {
	if slices.Contains(OfferedModes(h), mode) {
		return nil
	}
	name := h.Name.In("en")
	if mode == acp.ReadOnly {
		why := "its caps.readOnly is not true"
		if h.Caps.Has(CapReadOnly) {
			why = "its acp.readOnlyMode names no mode of the agent for it"
		}
		return fmt.Errorf("mode %q: %s does not offer read-only discussions: %s (its caps.modes: %s)",
			mode, name, why, listModes(h))
	}
	return fmt.Errorf("mode %q: %s does not offer it: its caps.modes lists %s (fix: pick one of those, or add %q to caps.modes in its manifest)",
		mode, name, listModes(h), mode)
}

// listModes says the modes of caps.modes, for a refusal.
func listModes(h *manifest.Harness) string {
	var ids []string
	for _, m := range h.Caps.Modes {
		ids = append(ids, m.ID)
	}
	if len(ids) == 0 {
		return "no mode (only default, where every request asks, runs)"
	}
	return strings.Join(ids, ", ")
}
