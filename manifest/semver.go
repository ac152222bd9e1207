package manifest

import (
	"cmp"
	"strconv"
	"strings"
)

// version is a parsed semantic version (semver.org 2.0.0). Build metadata
// is dropped: it plays no part in precedence.
type version struct {
	core       [3]uint64
	prerelease []string
}

// parseVersion parses a semantic version, allowing a leading "v" as app
// versions are often tagged.
func parseVersion(s string) (version, bool) {
	s = strings.TrimPrefix(s, "v")
	s, _, _ = strings.Cut(s, "+")
	s, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	if len(parts) != 3 || (hasPre && pre == "") {
		return version{}, false
	}
	var v version
	for i, p := range parts {
		n, ok := numericIdentifier(p)
		if !ok {
			return version{}, false
		}
		v.core[i] = n
	}
	if hasPre {
		v.prerelease = strings.Split(pre, ".")
		for _, id := range v.prerelease {
			if id == "" {
				return version{}, false
			}
		}
	}
	return v, true
}

// numericIdentifier parses a number without leading zeros.
func numericIdentifier(s string) (uint64, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// compareVersions orders versions by semver precedence.
func compareVersions(a, b version) int {
	for i := range a.core {
		if c := cmp.Compare(a.core[i], b.core[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a.prerelease) == 0 && len(b.prerelease) == 0:
		return 0
	case len(a.prerelease) == 0: // a release is newer than its prereleases
		return 1
	case len(b.prerelease) == 0:
		return -1
	}
	return comparePrerelease(a.prerelease, b.prerelease)
}

func comparePrerelease(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareIdentifiers(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// compareIdentifiers orders numeric identifiers by number and below
// alphanumeric ones, which compare as ASCII.
func compareIdentifiers(a, b string) int {
	na, aNum := numericIdentifier(a)
	nb, bNum := numericIdentifier(b)
	switch {
	case aNum && bNum:
		return cmp.Compare(na, nb)
	case aNum:
		return -1
	case bNum:
		return 1
	}
	return cmp.Compare(a, b)
}

// CompareVersions orders two semantic versions by precedence; ok is false
// when either is not one, and then they cannot be compared.
func CompareVersions(a, b string) (c int, ok bool) {
	va, okA := parseVersion(a)
	vb, okB := parseVersion(b)
	if !okA || !okB {
		return 0, false
	}
	return compareVersions(va, vb), true
}
