package protocol

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name   string
		want   Method
		wantOK bool
	}{
		{"initialize", Method{Name: "initialize", Direction: DirHostToPlugin, Errors: []int{}, Delay: 10 * time.Second}, true},
		{"permissions/ask", Method{Name: "permissions/*", Direction: DirHostToPlugin, Errors: []int{-32601, -32602}, Delay: 500 * time.Millisecond}, true},
		{"event/ticket.column", Method{Name: "event/*", Direction: DirHostToPlugin, Notification: true, Errors: []int{}}, true},
		{"secrets/get", Method{Name: "secrets/get", Direction: DirPluginToHost, Errors: []int{-32602, -32001, -32002}}, true},
		{"log", Method{Name: "log", Direction: DirPluginToHost, Notification: true, Errors: []int{}}, true},
		{"net/fetch", Method{Name: "net/fetch", Direction: DirPluginToHost, WASMOnly: true, Errors: []int{-32602, -32003, -32004}}, true},
		{"timer/fired", Method{Name: "timer/fired", Direction: DirHostToPlugin, Notification: true, WASMOnly: true, Errors: []int{}}, true},
		{"permissions/", Method{}, false},
		{"permissions", Method{}, false},
		{"fs/unknown", Method{}, false},
		{"Secrets/Get", Method{}, false},
		{"test/do", Method{}, false},
		{"", Method{}, false},
		{"*", Method{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Lookup(tt.name)
			if ok != tt.wantOK {
				t.Fatalf("Lookup(%q) ok = %v, want %v", tt.name, ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Lookup(%q) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

// TestDelay covers every row of the delay table of docs/protocol.md#4-the-handshake.
func TestDelay(t *testing.T) {
	tests := []struct {
		method string
		want   time.Duration
	}{
		{"initialize", 10 * time.Second},
		{"shutdown", time.Second},
		{"permissions/ask", 500 * time.Millisecond},
		{"permissions/request/tool", 500 * time.Millisecond},
		{"tickets/import", time.Minute},
		{"forge/pullRequest", time.Minute},
		{"workflow/run", time.Minute},
		{"engine/oneShot", time.Minute},
		{"agent/attach", 5 * time.Second},
		{"test/do", 5 * time.Second},
		{"echo", 5 * time.Second},
		{"engine/other", 5 * time.Second},
		{"permissions", 5 * time.Second},
		{"event/ticket.column", 5 * time.Second},
		{"secrets/get", 5 * time.Second},
	}
	for _, tt := range tests {
		if got := Delay(tt.method); got != tt.want {
			t.Errorf("Delay(%q) = %v, want %v", tt.method, got, tt.want)
		}
	}
	if got, want := DefaultDelay(), 5*time.Second; got != want {
		t.Errorf("DefaultDelay() = %v, want %v", got, want)
	}
}

func TestMethodsSortedAndCoherent(t *testing.T) {
	all := Methods()
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = m.Name
		isCall := m.Direction == DirHostToPlugin && !m.Notification
		if isCall != (m.Delay > 0) {
			t.Errorf("%s: delay %v; a delay belongs to host-to-plugin calls only", m.Name, m.Delay)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("Methods() not sorted: %v", names)
	}
}

func TestLookupReturnsACopy(t *testing.T) {
	m, _ := Lookup("secrets/get")
	m.Errors[0] = 0
	again, _ := Lookup("secrets/get")
	if diff := cmp.Diff([]int{-32602, -32001, -32002}, again.Errors); diff != "" {
		t.Errorf("the table changed through a returned Method (-want +got):\n%s", diff)
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		entry, name string
		want        bool
	}{
		{"tickets/*", "tickets/import", true},
		{"tickets/*", "tickets/", false},
		{"tickets/*", "tickets", false},
		{"tickets/*", "ticketsx/import", false},
		{"log", "log", true},
		{"log", "logs", false},
	}
	for _, tt := range tests {
		if got := (Method{Name: tt.entry}).Matches(tt.name); got != tt.want {
			t.Errorf("Method{%q}.Matches(%q) = %v, want %v", tt.entry, tt.name, got, tt.want)
		}
	}
}

func FuzzLookup(f *testing.F) {
	for _, seed := range []string{"", "initialize", "permissions/", "permissions/x", "event/*", "*", "/", "fs/read"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		m, ok := Lookup(name)
		if ok && !m.Matches(name) {
			t.Errorf("Lookup(%q) = %q, which does not match it", name, m.Name)
		}
		if ok && !m.IsPattern() && m.Name != name {
			t.Errorf("Lookup(%q) = exact entry %q", name, m.Name)
		}
		if d := Delay(name); d <= 0 {
			t.Errorf("Delay(%q) = %v, want positive", name, d)
		}
		if strings.HasSuffix(name, "/") && ok && !m.IsPattern() {
			t.Errorf("Lookup(%q) found an exact entry ending in /", name)
		}
	})
}
