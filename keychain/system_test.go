package keychain

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// fakeRing answers every call with err.
type fakeRing struct{ err error }

func (r fakeRing) Get(string, string) (string, error) { return "", r.err }
func (r fakeRing) Set(string, string, string) error   { return r.err }
func (r fakeRing) Delete(string, string) error        { return r.err }

func TestSystemSortsErrors(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		want    error // matched with errors.Is
		notWant error
	}{
		{"success", nil, nil, ErrUnavailable},
		{"not found", keyring.ErrNotFound, ErrNotFound, ErrUnavailable},
		{"too big", keyring.ErrSetDataTooBig, keyring.ErrSetDataTooBig, ErrUnavailable},
		{"no bus", errors.New("dbus: couldn't determine address of session bus"), ErrUnavailable, ErrNotFound},
		{"no service", errors.New("The name org.freedesktop.secrets was not provided by any .service files"), ErrUnavailable, ErrNotFound},
		{"unsupported OS", keyring.ErrUnsupportedPlatform, ErrUnavailable, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &System{ring: fakeRing{tt.err}}
			_, getErr := s.Get(Service, "n")
			for call, err := range map[string]error{"Get": getErr, "Set": s.Set(Service, "n", "v"), "Delete": s.Delete(Service, "n")} {
				if !errors.Is(err, tt.want) || (tt.notWant != nil && errors.Is(err, tt.notWant)) {
					t.Errorf("%s error = %v, want %v and not %v", call, err, tt.want, tt.notWant)
				}
			}
		})
	}
}

// noBusChild marks the test binary run by TestSystemWithoutBus.
const noBusChild = "ESCOUADE_KEYCHAIN_NO_BUS_CHILD"

// TestSystemWithoutBus runs System in a child process that has no D-Bus
// session (none in its environment, none to discover, no dbus-launch to
// start one): every call must fail with ErrUnavailable, not panic. A child
// keeps the D-Bus connection go-keyring caches per process out of play.
func TestSystemWithoutBus(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the OS keychain of " + runtime.GOOS + " does not use D-Bus")
	}
	if os.Getenv(noBusChild) == "1" {
		checkUnavailable(t, NewSystem())
		return
	}
	empty := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSystemWithoutBus$", "-test.v")
	cmd.Env = append(withoutVars(os.Environ(), "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "PATH"),
		noBusChild+"=1", "XDG_RUNTIME_DIR="+empty, "PATH="+empty)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestSystemWithoutBus") {
		t.Fatalf("child without D-Bus: %v\n%s", err, out)
	}
}

func checkUnavailable(t *testing.T, s *System) {
	_, getErr := s.Get(Service, "plugin:dev.x:token")
	errs := map[string]error{"Get": getErr, "Set": s.Set(Service, "plugin:dev.x:token", "v"), "Delete": s.Delete(Service, "plugin:dev.x:token")}
	for call, err := range errs {
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s error = %v, want one wrapping ErrUnavailable", call, err)
		}
		t.Logf("%s: %v", call, err)
	}
}

func withoutVars(env []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, name)
	})
}

// TestSystemConformance runs the conformance table against the real OS
// keychain, under a service name of its own, when asked to.
func TestSystemConformance(t *testing.T) {
	if os.Getenv("ESCOUADE_TEST_SECRET_SERVICE") != "1" {
		t.Skip("set ESCOUADE_TEST_SECRET_SERVICE=1 to run against the real OS keychain (on Linux, a Secret Service such as gnome-keyring in a D-Bus session)")
	}
	prefix := fmt.Sprintf("escouade-test-%s-", rand.Text()[:8])
	service := func(s string) string { return prefix + s }
	testConformance(t, func(t *testing.T) Keychain {
		s := NewSystem()
		t.Cleanup(func() { cleanSystem(s, prefix) })
		return s
	}, service)
}

// cleanSystem removes what the conformance table may have left.
func cleanSystem(s *System, prefix string) {
	for _, svc := range []string{"a", "b"} {
		keyring.DeleteAll(prefix + svc)
	}
}
