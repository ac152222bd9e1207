package process

import (
	"strings"
	"testing"
)

func TestTokenIn(t *testing.T) {
	tests := []struct {
		env  string
		want string
	}{
		{"PATH=/bin\x00ESCOUADE_INSTANCE_TOKEN=abc\x00HOME=/h\x00", "abc"},
		{"ESCOUADE_INSTANCE_TOKEN=first\x00ESCOUADE_INSTANCE_TOKEN=second", "first"},
		{"ESCOUADE_INSTANCE_TOKEN=", ""},
		{"X_ESCOUADE_INSTANCE_TOKEN=abc\x00ESCOUADE_INSTANCE_TOKENS=abc", ""},
		{"PATH=/bin\x00", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := tokenIn([]byte(tt.env)); got != tt.want {
			t.Errorf("tokenIn(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

func FuzzTokenIn(f *testing.F) {
	f.Add([]byte("A=1\x00ESCOUADE_INSTANCE_TOKEN=abc\x00"))
	f.Add([]byte("\x00\x00="))
	f.Fuzz(func(t *testing.T, env []byte) {
		got := tokenIn(env)
		if strings.Contains(got, "\x00") {
			t.Fatalf("token %q holds a NUL", got)
		}
		if got != "" && !strings.Contains(string(env), TokenEnv+"="+got) {
			t.Fatalf("token %q is not in %q", got, env)
		}
	})
}
