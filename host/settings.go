package host

import (
	"context"
	"encoding/json"
	"maps"
)

// Settings is a copy of the values the user chose for the plugin's
// settings, by key.
func (p *Plugin) Settings() map[string]json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.settings)
}

// SetSettings changes the values the user chose. A running program is
// stopped (shutdown first) and started again, so settings/get answers the
// values of now, as after any other user change (docs/protocol.md#9-stopping-closing-and-user-changes).
func (p *Plugin) SetSettings(ctx context.Context, values map[string]json.RawMessage) error {
	values = maps.Clone(values)
	return p.change(ctx, "settings changed", func() error {
		p.settings = values
		return nil
	})
}
