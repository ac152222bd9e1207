package manifest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPermissionSets(t *testing.T) {
	had := Permissions{Secrets: []string{"a", "b"}, Network: []string{"x.com"}}
	other := Permissions{Secrets: []string{"b", "c"}, Files: []string{"temp"}}
	tests := []struct {
		name      string
		got, want Permissions
	}{
		{"intersect", had.Intersect(other), Permissions{Secrets: []string{"b"}}},
		{"union", had.Union(other), Permissions{Secrets: []string{"a", "b", "c"}, Network: []string{"x.com"}, Files: []string{"temp"}}},
		{"without", had.Without(other), Permissions{Secrets: []string{"a"}, Network: []string{"x.com"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got)\n%s", tt.name, diff)
		}
	}
	if had.Secrets[0] != "a" || len(had.Secrets) != 2 {
		t.Errorf("the receiver changed: %v", had.Secrets)
	}
}
