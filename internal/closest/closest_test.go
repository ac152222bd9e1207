package closest

import "testing"

func TestMatch(t *testing.T) {
	names := []string{"token", "greeting", "apiKey", "scenarios"}
	tests := []struct{ typed, want string }{
		{"Token", "token"},
		{"tokn", "token"},
		{"toekn", "token"},
		{"greting", "greeting"},
		{"apikey", "apiKey"},
		{"scenario", "scenarios"},
		{"token", ""}, // itself is no suggestion
		{"password", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Match(tt.typed, names); got != tt.want {
			t.Errorf("Match(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("tokn", "token")
	f.Fuzz(func(t *testing.T, typed, name string) {
		got := Match(typed, []string{name})
		if got != "" && got != name {
			t.Fatalf("Match(%q, [%q]) = %q: not one of the names", typed, name, got)
		}
		if got == typed {
			t.Fatalf("Match(%q) returned itself", typed)
		}
	})
}
