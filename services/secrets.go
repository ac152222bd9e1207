package services

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// PrefixWildcard ends a permissions.secrets entry that grants every key
// starting with what comes before it (account:* grants account:work).
const PrefixWildcard = "*"

// CheckKey reports whether key has the form of a plugin's secret key:
// non-empty, without control characters, "..", a leading "/" or "*"
// (docs/protocol.md#secretsget). Keys are case-sensitive and compared as given.
func CheckKey(key string) error {
	switch {
	case key == "":
		return errors.New("the key is empty")
	case strings.IndexFunc(key, unicode.IsControl) >= 0:
		return fmt.Errorf("the key %q holds a control character", key)
	case strings.Contains(key, ".."):
		return fmt.Errorf("the key %q holds \"..\"", key)
	case strings.HasPrefix(key, "/"):
		return fmt.Errorf("the key %q starts with \"/\"", key)
	case strings.Contains(key, PrefixWildcard):
		return fmt.Errorf("the key %q holds \"*\"", key)
	}
	return nil
}

// KeyGranted reports whether a permissions.secrets entry of granted covers
// key: the same key, or a prefix pattern ending in "*" that key extends.
// A lone "*" grants nothing: validation refuses it, and a pattern must
// never reach every secret of the plugin by accident.
func KeyGranted(granted []string, key string) bool {
	for _, entry := range granted {
		if entryCovers(entry, key) {
			return true
		}
	}
	return false
}

func entryCovers(entry, key string) bool {
	prefix, isPattern := strings.CutSuffix(entry, PrefixWildcard)
	switch {
	case entry == "":
		return false
	case !isPattern:
		return entry == key
	case prefix == "" || strings.Contains(prefix, PrefixWildcard):
		return false
	}
	return strings.HasPrefix(key, prefix)
}

// getSecret serves secrets/get: {"key": …} → the secret string, or nil when
// none is stored under the key.
func (s *Server) getSecret(params []byte) (any, *Error) {
	obj, err := decodeObject(params, "key")
	if err != nil {
		return nil, err
	}
	key, err := obj.requiredString("key")
	if err != nil {
		return nil, err
	}
	s.journal(TagSecret, fmt.Sprintf("key %q asked for", key))
	if err := s.checkSecretKey(key); err != nil {
		return nil, err
	}
	return s.readSecret(key)
}

func (s *Server) checkSecretKey(key string) *Error {
	const message = vocab.MessageNotYours
	if err := CheckKey(key); err != nil {
		return refuse(CodeNotYours, message, "%v", err)
	}
	if !KeyGranted(s.Granted.Secrets, key) {
		return refuse(CodeNotYours, message, "the key %q is not granted by permissions.secrets of %s", key, s.PluginID)
	}
	return nil
}

func (s *Server) readSecret(key string) (any, *Error) {
	const message = vocab.MessageKeychain
	if s.Keychain == nil {
		return nil, refuse(CodeKeychain, message, "no keychain is configured")
	}
	value, err := s.Keychain.Get(keychain.Service, keychain.PluginName(s.PluginID, key))
	switch {
	case errors.Is(err, keychain.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, refuse(CodeKeychain, message, "reading the key %q: %v", key, err)
	}
	// Masking comes first: once the plugin holds the value, any line it
	// writes may carry it.
	if s.Mask != nil && value != "" {
		s.Mask(value)
	}
	return value, nil
}
