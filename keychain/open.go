package keychain

import (
	"fmt"
	"path/filepath"
)

// Kinds of keychain Open knows, as the CLI's --keychain names them.
const (
	KindSystem = "system"
	KindFile   = "file"
	KindMemory = "memory"
)

// FileName is the encrypted file of the "file" kind, under the host's home.
const FileName = "secrets.enc"

// Open returns the keychain of the given kind: "system" (the OS keychain),
// "file" (home/secrets.enc, see File) or "memory". Any other kind is an
// error naming the valid ones. Open never contacts the OS keychain: a
// keychain out of reach shows on the first Get or Set.
func Open(kind, home string) (Keychain, error) {
	switch kind {
	case KindSystem:
		return NewSystem(), nil
	case KindFile:
		return NewFile(filepath.Join(home, FileName))
	case KindMemory:
		return NewMemory(), nil
	}
	return nil, fmt.Errorf("keychain: unknown kind %q (valid: %s, %s, %s)", kind, KindSystem, KindFile, KindMemory)
}
