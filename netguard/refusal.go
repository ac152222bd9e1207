package netguard

import "fmt"

// Refusal is what the plugin may not reach. Reason is the sentence the
// journal writes, e.g. "example.org is not in permissions.network of
// dev.escouade.slack".
type Refusal struct {
	Reason string
}

func (r *Refusal) Error() string { return r.Reason }

func refusef(format string, args ...any) *Refusal {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// forbiddenAddress is the sentence of docs/protocol.md#netfetch for a name that resolves to a
// forbidden address.
func forbiddenAddress(name, addr string) *Refusal {
	if name == addr {
		return refusef("%s is an address of this machine or of the local network", addr)
	}
	return refusef("%s resolves to %s, an address of this machine or of the local network", name, addr)
}
