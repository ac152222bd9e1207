package keychain

import (
	"errors"
	"fmt"

	"github.com/zalando/go-keyring"
)

// System is the OS keychain through github.com/zalando/go-keyring: the
// Secret Service over D-Bus on Linux and the BSDs, the Keychain on macOS,
// the Credential Manager on Windows. Each call reaches the OS afresh, so a
// keychain that comes up (or locks) while the host runs is seen at once.
//
// Errors: a missing secret wraps ErrNotFound; a value too large for the
// OS store is reported as such; every other failure (no D-Bus session, no
// Secret Service on it, a locked or refused store, an unsupported OS)
// wraps ErrUnavailable. A store that asks the user to unlock it through a
// prompt makes the call wait for the user's answer.
type System struct {
	ring ring
}

// ring is the part of go-keyring System uses; tests put a fake in its place.
type ring interface {
	Get(service, user string) (string, error)
	Set(service, user, password string) error
	Delete(service, user string) error
}

// osRing calls go-keyring's package functions.
type osRing struct{}

func (osRing) Get(service, user string) (string, error) { return keyring.Get(service, user) }
func (osRing) Set(service, user, password string) error { return keyring.Set(service, user, password) }
func (osRing) Delete(service, user string) error        { return keyring.Delete(service, user) }

// NewSystem returns the OS keychain. It does not contact it.
func NewSystem() *System {
	return &System{ring: osRing{}}
}

// Get returns the secret stored under service and name.
func (s *System) Get(service, name string) (string, error) {
	value, err := s.ring.Get(service, name)
	return value, systemError(err, service, name)
}

// Set stores value under service and name, replacing any older value.
func (s *System) Set(service, name, value string) error {
	return systemError(s.ring.Set(service, name, value), service, name)
}

// Delete removes the secret under service and name.
func (s *System) Delete(service, name string) error {
	return systemError(s.ring.Delete(service, name), service, name)
}

// systemError sorts an error of go-keyring into this package's errors.
func systemError(err error, service, name string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keyring.ErrNotFound):
		return notFound(service, name)
	case errors.Is(err, keyring.ErrSetDataTooBig):
		return fmt.Errorf("keychain: %q of service %q: %w", name, service, err)
	default:
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
}
