package console

import (
	"slices"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// grant adds to had what add names, as far as the manifest asks for it: a
// user can grant only what a plugin asked.
func grant(had, add, asked manifest.Permissions) manifest.Permissions {
	union := func(a, b, allowed []string) []string {
		out := slices.Clone(a)
		for _, x := range b {
			if slices.Contains(allowed, x) && !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
		return out
	}
	return manifest.Permissions{
		Secrets:  union(had.Secrets, add.Secrets, asked.Secrets),
		Network:  union(had.Network, add.Network, asked.Network),
		Files:    union(had.Files, add.Files, asked.Files),
		Programs: union(had.Programs, add.Programs, asked.Programs),
	}
}

// revoke takes back from had what take names.
func revoke(had, take manifest.Permissions) manifest.Permissions {
	minus := func(a, b []string) []string {
		return slices.DeleteFunc(slices.Clone(a), func(x string) bool { return slices.Contains(b, x) })
	}
	return manifest.Permissions{
		Secrets:  minus(had.Secrets, take.Secrets),
		Network:  minus(had.Network, take.Network),
		Files:    minus(had.Files, take.Files),
		Programs: minus(had.Programs, take.Programs),
	}
}
