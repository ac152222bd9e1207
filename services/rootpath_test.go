package services

import "testing"

// TestCheckRootPath: fs/* lifts the hidden rule under the agent's roots
// and the manifest rule everywhere, and keeps every other refusal.
func TestCheckRootPath(t *testing.T) {
	tests := []struct {
		path       string
		hidden     bool
		wantRefuse bool
	}{
		{".git/config", true, false},
		{".git/config", false, true},
		{"a/.env", true, false},
		{"escouade-plugin.json", false, false},
		{".", false, false},
		{"./src/main.go", true, false},
		{"..", true, true},
		{"a/../b", true, true},
		{"/etc/passwd", true, true},
		{`a\b`, true, true},
		{"C:x", true, true},
		{"", true, true},
		{"a//b", true, true},
		{"NUL.txt", true, true},
		{"PROGRA~1", true, true},
		{"a\x00b", true, true},
	}
	for _, tt := range tests {
		got := CheckRootPath(tt.path, tt.hidden)
		if (got != "") != tt.wantRefuse {
			t.Errorf("CheckRootPath(%q, %v) = %q, want a refusal: %v", tt.path, tt.hidden, got, tt.wantRefuse)
		}
	}
	if CheckRootName(".hidden", true) != "" || CheckRootName(".hidden", false) == "" || CheckRootName("..", true) == "" {
		t.Error("CheckRootName does not follow the rules of CheckRootPath")
	}
}
