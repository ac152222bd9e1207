package proto

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAliases checks that the kit's names are the vocabulary's and the
// generated shapes', as a plugin spells them.
func TestAliases(t *testing.T) {
	got := []string{MethodInitialize, MethodSecretsGet, MethodPrefixPermissions, MethodEngineOneShot, EnvLang, string(LogParamsLevelWarn)}
	want := []string{"initialize", "secrets/get", "permissions/", "engine/oneShot", "ESCOUADE_LANG", "warn"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if CodeNotYours != -32001 || MessageKeychain != "The keychain is out of reach." {
		t.Errorf("CodeNotYours = %d, MessageKeychain = %q", CodeNotYours, MessageKeychain)
	}
	var p InitializeParams
	p.Plugin.ID = "dev.escouade.x" // a field of the shape, through the alias
	if p.Plugin.ID == "" {
		t.Fatal("alias lost the field")
	}
}
