package keychain

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// step is one call on a keychain and what it must give.
type step struct {
	op      string // "get", "set" or "delete"
	service string
	name    string
	value   string // the value to set, or the value get must return
	wantErr error  // matched with errors.Is; nil means success
}

func get(service, name, want string) step { return step{"get", service, name, want, nil} }
func missing(service, name string) step   { return step{"get", service, name, "", ErrNotFound} }
func set(service, name, value string) step {
	return step{"set", service, name, value, nil}
}
func del(service, name string, wantErr error) step {
	return step{"delete", service, name, "", wantErr}
}

var conformance = []struct {
	name  string
	steps []step
}{
	{"get of nothing", []step{missing("a", "plugin:dev.x:token")}},
	{"set then get", []step{set("a", "n", "v"), get("a", "n", "v")}},
	{"set replaces", []step{set("a", "n", "old"), set("a", "n", "new"), get("a", "n", "new")}},
	{"delete", []step{set("a", "n", "v"), del("a", "n", nil), missing("a", "n")}},
	{"delete of nothing", []step{del("a", "n", ErrNotFound)}},
	{"services apart", []step{set("a", "n", "v"), missing("b", "n")}},
	{"names apart", []step{set("a", "plugin:dev.x:token", "v"), missing("a", "plugin:dev.x:tokens"), missing("a", "plugin:dev.y:token")}},
	{"delete leaves others", []step{set("a", "n1", "v1"), set("a", "n2", "v2"), del("a", "n1", nil), get("a", "n2", "v2")}},
	{"unicode value", []step{set("a", "n", "clé € 🔑"), get("a", "n", "clé € 🔑")}},
	{"empty value", []step{set("a", "n", ""), get("a", "n", "")}},
	{"value with breaks and JSON", []step{set("a", "n", "l1\nl2\t{\"k\":\"<&>\"}"), get("a", "n", "l1\nl2\t{\"k\":\"<&>\"}")}},
	{"long value", []step{set("a", "n", strings.Repeat("0123456789abcdef", 128)), get("a", "n", strings.Repeat("0123456789abcdef", 128))}},
}

// testConformance runs the conformance table against fresh keychains.
// service maps the table's service names to the ones used, so that a test
// against a real keychain stays out of the way of real secrets.
func testConformance(t *testing.T, fresh func(t *testing.T) Keychain, service func(string) string) {
	for _, tt := range conformance {
		t.Run(tt.name, func(t *testing.T) {
			kc := fresh(t)
			for i, s := range tt.steps {
				s.service = service(s.service)
				if err := s.run(kc); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
		})
	}
	t.Run("concurrent use", func(t *testing.T) {
		testConcurrentUse(t, fresh(t), service("a"))
	})
}

func (s step) run(kc Keychain) error {
	var got string
	var err error
	switch s.op {
	case "get":
		got, err = kc.Get(s.service, s.name)
	case "set":
		err = kc.Set(s.service, s.name, s.value)
	case "delete":
		err = kc.Delete(s.service, s.name)
	}
	if !errors.Is(err, s.wantErr) { // errors.Is(err, nil) holds only for a nil err
		return fmt.Errorf("%s(%q, %q) error = %v, want %v", s.op, s.service, s.name, err, s.wantErr)
	}
	if s.op == "get" && got != s.value {
		return fmt.Errorf("get(%q, %q) = %q, want %q", s.service, s.name, got, s.value)
	}
	return nil
}

func testConcurrentUse(t *testing.T, kc Keychain, service string) {
	const workers = 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			name := fmt.Sprintf("n%d", w)
			for i := range 3 {
				if err := kc.Set(service, name, fmt.Sprint(i)); err != nil {
					t.Error(err)
				}
				if _, err := kc.Get(service, name); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	var got []string
	for w := range workers {
		value, err := kc.Get(service, fmt.Sprintf("n%d", w))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, value)
		t.Cleanup(func() { kc.Delete(service, fmt.Sprintf("n%d", w)) })
	}
	if diff := cmp.Diff([]string{"2", "2", "2", "2"}, got); diff != "" {
		t.Errorf("last values (-want +got):\n%s", diff)
	}
}

func sameService(s string) string { return s }

func TestMemoryConformance(t *testing.T) {
	testConformance(t, func(*testing.T) Keychain { return NewMemory() }, sameService)
}

func TestFileConformance(t *testing.T) {
	testConformance(t, func(t *testing.T) Keychain {
		f, err := NewFile(t.TempDir() + "/secrets.enc")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}, sameService)
}
