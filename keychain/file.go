package keychain

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
)

// ErrCorrupt reports a secrets file that cannot be read back: damaged,
// truncated, not a secrets file, or its key file changed or gone.
var ErrCorrupt = errors.New("keychain: the secrets file cannot be read")

// File modes: only the user may read or write the secrets and their key.
const (
	secretDirMode  os.FileMode = 0o700
	secretFileMode os.FileMode = 0o600
)

// File keeps secrets in a file encrypted with AES-256-GCM, for machines
// without an OS keychain (a headless Linux with no Secret Service).
//
// Where the key comes from, honestly: a random 256-bit key made on the
// first Set and kept beside the secrets, in <path>.key, mode 0600. This
// protects the secrets against casual reading: a glance at the file, a
// grep over the home, a copy of the secrets file alone into a backup, a
// log or a bug report. It does not protect against anyone who can read the
// user's files (the same user, its programs, root, a backup of the whole
// folder): they read the key too. Use the OS keychain where there is one.
//
// Every call reads or rewrites the file whole, so other processes see
// each other's changes; a rewrite goes through a temporary file renamed
// into place, so the file is never left half-written. Within one process a
// File is safe for concurrent use; two processes setting secrets at the
// same instant may lose one of the two writes.
type File struct {
	path    string
	keyPath string
	mu      sync.Mutex
}

// NewFile returns the encrypted-file keychain at path, with its key at
// path+".key". Files are created on the first Set. When the file already
// exists it is read once here, so that a damaged file is reported at once,
// in an error wrapping ErrCorrupt.
func NewFile(path string) (*File, error) {
	f := &File{path: path, keyPath: path + ".key"}
	if _, err := f.load(); err != nil {
		return nil, err
	}
	return f, nil
}

// Get returns the secret stored under service and name.
func (f *File) Get(service, name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.load()
	if err != nil {
		return "", err
	}
	value, ok := s[service][name]
	if !ok {
		return "", notFound(service, name)
	}
	return value, nil
}

// Set stores value under service and name, replacing any older value.
func (f *File) Set(service, name, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.load()
	if err != nil {
		return err
	}
	if s[service] == nil {
		s[service] = make(map[string]string)
	}
	s[service][name] = value
	return f.save(s)
}

// Delete removes the secret under service and name.
func (f *File) Delete(service, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.load()
	if err != nil {
		return err
	}
	if _, ok := s[service][name]; !ok {
		return notFound(service, name)
	}
	delete(s[service], name)
	if len(s[service]) == 0 {
		delete(s, service)
	}
	return f.save(s)
}

// load reads and decrypts the file; a file not made yet holds nothing.
func (f *File) load() (store, error) {
	data, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return store{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("keychain: %w", err)
	}
	key, err := os.ReadFile(f.keyPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, f.corrupt(fmt.Errorf("its key %s is missing", f.keyPath))
	}
	if err != nil {
		return nil, fmt.Errorf("keychain: %w", err)
	}
	if len(key) != keySize {
		return nil, f.corrupt(fmt.Errorf("its key %s is %d bytes long instead of %d (a write cut short)", f.keyPath, len(key), keySize))
	}
	s, err := unseal(key, data)
	if err != nil {
		return nil, f.corrupt(err)
	}
	return s, nil
}

func (f *File) corrupt(why error) error {
	return fmt.Errorf("%w: %s: %v; move it away to start again without its secrets", ErrCorrupt, f.path, why)
}

// save encrypts s and puts it in place of the file.
func (f *File) save(s store) error {
	if err := os.MkdirAll(filepath.Dir(f.path), secretDirMode); err != nil {
		return fmt.Errorf("keychain: %w", err)
	}
	key, err := f.key()
	if err != nil {
		return err
	}
	data, err := seal(key, s)
	if err != nil {
		return err
	}
	return writeAtomically(f.path, data)
}

// key reads the key, making it first if there is none. The key is written
// whole and synced to a temporary file, then linked into place, which
// fails if a key is there: two processes making their first secret at
// once use one key, and a kill leaves no key cut short. A key of the
// wrong length (cut by an older host) that sealed nothing yet, since no
// secrets file exists, is made again; one that did is said, with its
// file.
func (f *File) key() ([]byte, error) {
	key := make([]byte, keySize)
	rand.Read(key) // crypto/rand.Read never fails
	err := linkNew(f.keyPath, key)
	if errors.Is(err, fs.ErrExist) {
		return f.existingKey(key)
	}
	if err != nil {
		return nil, fmt.Errorf("keychain: %w", err)
	}
	return key, nil
}

// existingKey reads the key another process made, or replaces a cut one
// that sealed nothing with fresh.
func (f *File) existingKey(fresh []byte) ([]byte, error) {
	key, err := os.ReadFile(f.keyPath)
	if err != nil {
		return nil, fmt.Errorf("keychain: %w", err)
	}
	if len(key) == keySize {
		return key, nil
	}
	if _, err := os.Stat(f.path); errors.Is(err, fs.ErrNotExist) {
		if err := writeAtomically(f.keyPath, fresh); err != nil {
			return nil, err
		}
		return fresh, nil
	}
	return nil, f.corrupt(fmt.Errorf("its key %s is %d bytes long instead of %d (a write cut short)", f.keyPath, len(key), keySize))
}

// linkNew puts data at path only if nothing is there, whole or not at all.
func linkNew(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err = errors.Join(err, tmp.Chmod(secretFileMode), tmp.Sync(), tmp.Close()); err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}

// writeAtomically writes data over path, mode 0600, through a temporary
// file (safefile.Replace).
func writeAtomically(path string, data []byte) error {
	if err := safefile.Replace(path, data, secretFileMode); err != nil {
		return fmt.Errorf("keychain: %w", err)
	}
	return nil
}
