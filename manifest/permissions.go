package manifest

import "slices"

// Intersect keeps the entries of p that q holds too: what an update keeps
// of what the user granted, or what a user may grant of what a plugin asks.
func (p Permissions) Intersect(q Permissions) Permissions {
	return combine(p, q, func(a, b []string) []string {
		return slices.DeleteFunc(slices.Clone(a), func(x string) bool { return !slices.Contains(b, x) })
	})
}

// Union adds to p the entries of q it lacks, in q's order.
func (p Permissions) Union(q Permissions) Permissions {
	return combine(p, q, func(a, b []string) []string {
		out := slices.Clone(a)
		for _, x := range b {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
		return out
	})
}

// Without takes from p the entries q holds.
func (p Permissions) Without(q Permissions) Permissions {
	return combine(p, q, func(a, b []string) []string {
		return slices.DeleteFunc(slices.Clone(a), func(x string) bool { return slices.Contains(b, x) })
	})
}

// combine applies f to each kind of permission of p and q.
func combine(p, q Permissions, f func(a, b []string) []string) Permissions {
	return Permissions{
		Secrets:  f(p.Secrets, q.Secrets),
		Network:  f(p.Network, q.Network),
		Files:    f(p.Files, q.Files),
		Programs: f(p.Programs, q.Programs),
	}
}
