package console

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/closest"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// permissionKinds are the members of a permissions object.
var permissionKinds = []string{"secrets", "network", "files", "programs"}

// rawMember returns the member name of a JSON object line, or nil.
func rawMember(line []byte, name string) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(line, &fields) != nil {
		return nil
	}
	return fields[name]
}

// checkPermissionKinds refuses a kind of permission that does not exist:
// decoded into manifest.Permissions it would vanish, and the grant look
// as if it held.
func checkPermissionKinds(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf(`"permissions" is required, e.g. {"secrets": ["token"]}`)
	}
	var kinds map[string]json.RawMessage
	if json.Unmarshal(raw, &kinds) != nil {
		return fmt.Errorf(`"permissions" must be an object, e.g. {"secrets": ["token"]}`)
	}
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		if slices.Contains(permissionKinds, k) {
			continue
		}
		if near := closest.Match(k, permissionKinds); near != "" {
			return fmt.Errorf("permissions: unknown kind %q: did you mean %q?", k, near)
		}
		return fmt.Errorf("permissions: unknown kind %q (kinds: %s)", k, strings.Join(permissionKinds, ", "))
	}
	return nil
}

// kindLists pairs each kind with its entries in p.
func kindLists(p manifest.Permissions) [][]string {
	return [][]string{p.Secrets, p.Network, p.Files, p.Programs}
}

// notAsked says, for a grant, each entry the manifest never asks for:
// a grant only gives what the manifest asks, so it is not granted.
func notAsked(want manifest.Permissions, m *manifest.Manifest) []string {
	return entriesNotIn(want, m.Permissions, func(kind, e string, asked []string) string {
		return fmt.Sprintf("permissions.%s %q is not asked by the manifest of %s, so it is not granted (%s)",
			kind, e, m.ID, choices(e, asked, "it asks for none", "it asks for"))
	})
}

// notGranted says, for a revoke, each entry that is not granted: there is
// nothing to take back.
func notGranted(want, granted manifest.Permissions, m *manifest.Manifest) []string {
	return entriesNotIn(want, granted, func(kind, e string, has []string) string {
		return fmt.Sprintf("permissions.%s %q is not granted to %s: nothing to take back (%s)",
			kind, e, m.ID, choices(e, has, "none is granted", "granted"))
	})
}

// entriesNotIn says, with say, each entry of want that have lacks, kind by
// kind: say gets the kind's name, the entry and have's entries of that kind.
func entriesNotIn(want, have manifest.Permissions, say func(kind, e string, among []string) string) []string {
	var out []string
	among := kindLists(have)
	for i, list := range kindLists(want) {
		for _, e := range list {
			if !slices.Contains(among[i], e) {
				out = append(out, say(permissionKinds[i], e, among[i]))
			}
		}
	}
	return out
}

// choices names the entry a typo stands for, or the entries there are.
func choices(typed string, list []string, none, label string) string {
	if len(list) == 0 {
		return none
	}
	if near := closest.Match(typed, list); near != "" {
		return fmt.Sprintf("did you mean %q?", near)
	}
	return label + ": " + strings.Join(list, ", ")
}
