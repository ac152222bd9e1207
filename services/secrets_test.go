package services

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/google/go-cmp/cmp"
)

func TestCheckKey(t *testing.T) {
	tests := []struct {
		key    string
		wantOK bool
	}{
		{"webhook", true},
		{"account:work", true},
		{"Token.v2", true},
		{"a/b", true},
		{"", false},
		{"tab\there", false},
		{"line\nbreak", false},
		{"nul\x00", false},
		{"del\x7f", false},
		{"c1\u0085", false},
		{"a..b", false},
		{"..", false},
		{"/etc", false},
		{"*", false},
		{"account:*", false},
		{"a*b", false},
	}
	for _, tt := range tests {
		err := CheckKey(tt.key)
		if got := err == nil; got != tt.wantOK {
			t.Errorf("CheckKey(%q) = %v, want ok=%v", tt.key, err, tt.wantOK)
		}
	}
}

func TestKeyGranted(t *testing.T) {
	tests := []struct {
		granted []string
		key     string
		want    bool
	}{
		{[]string{"webhook"}, "webhook", true},
		{[]string{"webhook"}, "Webhook", false},
		{[]string{"webhook"}, "webhook2", false},
		{[]string{"account:*"}, "account:work", true},
		{[]string{"account:*"}, "account:", true},
		{[]string{"account:*"}, "account", false},
		{[]string{"account:*"}, "other:work", false},
		{[]string{"*"}, "anything", false},
		{[]string{"a*b*"}, "a*bc", false},
		{[]string{""}, "", false},
		{nil, "webhook", false},
		{[]string{"x", "webhook"}, "webhook", true},
		{[]string{"webhook"}, "plugin:dev.other:token", false},
	}
	for _, tt := range tests {
		if got := KeyGranted(tt.granted, tt.key); got != tt.want {
			t.Errorf("KeyGranted(%q, %q) = %v, want %v", tt.granted, tt.key, got, tt.want)
		}
	}
}

func secretServer(rec *recorder, kc keychain.Keychain) *Server {
	return &Server{
		PluginID: "dev.escouade.slack",
		Keychain: kc,
		Granted:  manifest.Permissions{Secrets: []string{"webhook", "account:*", "empty"}},
		Journal:  rec.journal,
		Mask:     rec.mask,
	}
}

func storedSecrets() *fakeKeychain {
	return &fakeKeychain{secrets: map[string]string{
		"escouade/plugin:dev.escouade.slack:webhook":      "https://hooks/T0",
		"escouade/plugin:dev.escouade.slack:account:work": "xoxb-1",
		"escouade/plugin:dev.escouade.slack:empty":        "",
		"escouade/plugin:dev.other:token":                 "other-token",
		"escouade/account:github":                         "gh-token",
	}}
}

func TestSecretsGet(t *testing.T) {
	tests := []struct {
		name       string
		params     string
		keychain   keychain.Keychain
		want       any
		wantCode   int64
		wantMasked []string
		wantLines  []line
	}{
		{
			name: "granted key", params: `{"key":"webhook"}`,
			want: "https://hooks/T0", wantMasked: []string{"https://hooks/T0"},
			wantLines: []line{{"secret", `key "webhook" asked for`}},
		},
		{
			name: "prefix pattern", params: `{"key":"account:work"}`,
			want: "xoxb-1", wantMasked: []string{"xoxb-1"},
			wantLines: []line{{"secret", `key "account:work" asked for`}},
		},
		{
			name: "granted but absent", params: `{"key":"account:home"}`,
			want:      nil,
			wantLines: []line{{"secret", `key "account:home" asked for`}},
		},
		{
			name: "empty value is not masked", params: `{"key":"empty"}`,
			want:      "",
			wantLines: []line{{"secret", `key "empty" asked for`}},
		},
		{
			name: "not granted", params: `{"key":"token"}`, wantCode: CodeNotYours,
			wantLines: []line{
				{"secret", `key "token" asked for`},
				{"refused", `secrets/get: the key "token" is not granted by permissions.secrets of dev.escouade.slack`},
			},
		},
		{
			name: "full name of another plugin", params: `{"key":"plugin:dev.other:token"}`, wantCode: CodeNotYours,
			wantLines: []line{
				{"secret", `key "plugin:dev.other:token" asked for`},
				{"refused", `secrets/get: the key "plugin:dev.other:token" is not granted by permissions.secrets of dev.escouade.slack`},
			},
		},
		{
			name: "dot dot", params: `{"key":"account:../../account:github"}`, wantCode: CodeNotYours,
			wantLines: []line{
				{"secret", `key "account:../../account:github" asked for`},
				{"refused", `secrets/get: the key "account:../../account:github" holds ".."`},
			},
		},
		{
			name: "wildcard in key", params: `{"key":"account:*"}`, wantCode: CodeNotYours,
			wantLines: []line{
				{"secret", `key "account:*" asked for`},
				{"refused", `secrets/get: the key "account:*" holds "*"`},
			},
		},
		{
			name: "control character", params: `{"key":"account:a\nb"}`, wantCode: CodeNotYours,
			wantLines: []line{
				{"secret", `key "account:a\nb" asked for`},
				{"refused", `secrets/get: the key "account:a\nb" holds a control character`},
			},
		},
		{
			name: "empty key", params: `{"key":""}`, wantCode: CodeNotYours,
			wantLines: []line{
				{"secret", `key "" asked for`},
				{"refused", `secrets/get: the key is empty`},
			},
		},
		{
			name: "keychain out of reach", params: `{"key":"webhook"}`, wantCode: CodeKeychain,
			keychain: &fakeKeychain{err: fmt.Errorf("dbus: %w", keychain.ErrUnavailable)},
			wantLines: []line{
				{"secret", `key "webhook" asked for`},
				{"refused", `secrets/get: reading the key "webhook": dbus: keychain: out of reach`},
			},
		},
		{
			name: "keychain failing otherwise", params: `{"key":"webhook"}`, wantCode: CodeKeychain,
			keychain: &fakeKeychain{err: errors.New("locked")},
			wantLines: []line{
				{"secret", `key "webhook" asked for`},
				{"refused", `secrets/get: reading the key "webhook": locked`},
			},
		},
		{
			name: "missing key param", params: `{}`, wantCode: CodeInvalidParams,
			wantLines: []line{{"refused", "secrets/get: params.key is required"}},
		},
		{
			name: "key not a string", params: `{"key":7}`, wantCode: CodeInvalidParams,
			wantLines: []line{{"refused", "secrets/get: params.key must be a string, not a number"}},
		},
		{
			name: "key null", params: `{"key":null}`, wantCode: CodeInvalidParams,
			wantLines: []line{{"refused", "secrets/get: params.key must be a string, not null"}},
		},
		{
			name: "unknown field", params: `{"key":"webhook","kye":"x"}`, wantCode: CodeInvalidParams,
			wantLines: []line{{"refused", "secrets/get: params.kye is not a known field"}},
		},
		{
			name: "params an array", params: `["webhook"]`, wantCode: CodeInvalidParams,
			wantLines: []line{{"refused", "secrets/get: params must be an object, not an array"}},
		},
		{
			name: "params absent", params: ``, wantCode: CodeInvalidParams,
			wantLines: []line{{"refused", "secrets/get: params.key is required"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			kc := tt.keychain
			if kc == nil {
				kc = storedSecrets()
			}
			got, code := call(t, secretServer(rec, kc), "secrets/get", tt.params)
			if code != tt.wantCode {
				t.Errorf("code = %d, want %d", code, tt.wantCode)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMasked, rec.masked); diff != "" {
				t.Errorf("masked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLines, rec.Lines()); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSecretsGetWithoutKeychain(t *testing.T) {
	rec := &recorder{}
	_, code := call(t, secretServer(rec, nil), "secrets/get", `{"key":"webhook"}`)
	if code != CodeKeychain {
		t.Errorf("code = %d, want %d", code, CodeKeychain)
	}
}

func TestSecretsGetMasksBeforeReturning(t *testing.T) {
	var order []string
	s := secretServer(&recorder{}, storedSecrets())
	s.Mask = func(secret string) { order = append(order, "mask "+secret) }
	got, code := call(t, s, "secrets/get", `{"key":"webhook"}`)
	order = append(order, fmt.Sprintf("returned %v", got))
	want := []string{"mask https://hooks/T0", "returned https://hooks/T0"}
	if code != 0 || !cmp.Equal(want, order) {
		t.Errorf("code %d, order (-want +got):\n%s", code, cmp.Diff(want, order))
	}
}

// TestSecretsGetTakenBack checks a permission taken back: the next start's
// Server has the smaller grant and refuses the key.
func TestSecretsGetTakenBack(t *testing.T) {
	s := secretServer(&recorder{}, storedSecrets())
	s.Granted.Secrets = []string{"account:*"}
	if _, code := call(t, s, "secrets/get", `{"key":"webhook"}`); code != CodeNotYours {
		t.Errorf("code = %d, want %d", code, CodeNotYours)
	}
}

// FuzzSecretKey checks the key policy: a key that passes can only name an
// entry under plugin:<id>:, holds no control character and is granted.
func FuzzSecretKey(f *testing.F) {
	for _, seed := range []string{"webhook", "account:work", "account:", "plugin:dev.other:token", "a..b", "/x", "*", "\x00", "account:\u2028"} {
		f.Add(seed, "account:*")
	}
	f.Fuzz(func(t *testing.T, key, entry string) {
		granted := []string{entry}
		if CheckKey(key) != nil || !KeyGranted(granted, key) {
			return
		}
		switch {
		case strings.IndexFunc(key, unicode.IsControl) >= 0, strings.Contains(key, ".."), strings.Contains(key, "*"):
			t.Fatalf("key %q passed", key)
		case entry == "*":
			t.Fatalf("a lone * granted %q", key)
		case entry != key && !strings.HasPrefix(key, strings.TrimSuffix(entry, "*")):
			t.Fatalf("entry %q granted %q", entry, key)
		}
		name := keychain.PluginName("dev.escouade.slack", key)
		if !strings.HasPrefix(name, "plugin:dev.escouade.slack:") {
			t.Fatalf("key %q names %q", key, name)
		}
	})
}
