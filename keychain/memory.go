package keychain

import (
	"fmt"
	"sync"
)

// Memory keeps secrets in memory, for tests and for the CLI's --secret:
// they are gone with the process.
type Memory struct {
	mu      sync.RWMutex
	secrets map[entry]string
}

// entry is where a secret is stored.
type entry struct{ service, name string }

// NewMemory returns an empty in-memory keychain.
func NewMemory() *Memory {
	return &Memory{secrets: make(map[entry]string)}
}

// Get returns the secret stored under service and name, or an error
// wrapping ErrNotFound.
func (m *Memory) Get(service, name string) (string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	value, ok := m.secrets[entry{service, name}]
	if !ok {
		return "", notFound(service, name)
	}
	return value, nil
}

// Set stores value under service and name, replacing any older value.
func (m *Memory) Set(service, name, value string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.secrets[entry{service, name}] = value
	return nil
}

// Delete removes the secret under service and name, or returns an error
// wrapping ErrNotFound when there is none.
func (m *Memory) Delete(service, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := entry{service, name}
	if _, ok := m.secrets[key]; !ok {
		return notFound(service, name)
	}
	delete(m.secrets, key)
	return nil
}

// notFound is the error every backend returns for a missing secret: it
// names the secret, never a value.
func notFound(service, name string) error {
	return fmt.Errorf("%w: %q of service %q", ErrNotFound, name, service)
}
