package keychain

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
)

// fileMagic opens every secrets file: it names the format, lets a reader
// tell a secrets file from a stray one, and is authenticated with the rest.
const fileMagic = "escouade-secrets 1\n"

// keySize is the size of the AES-256 key.
const keySize = 32

// store is the plaintext of a secrets file: values by name by service.
type store map[string]map[string]string

// seal encrypts s with AES-256-GCM under key: magic, nonce, ciphertext.
func seal(key []byte, s store) ([]byte, error) {
	plain, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("keychain: %w", err)
	}
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce) // crypto/rand.Read never fails
	out := append([]byte(fileMagic), nonce...)
	return aead.Seal(out, nonce, plain, []byte(fileMagic)), nil
}

// unseal decrypts what seal wrote. Its errors say what is wrong in words
// for the user; the caller adds the path and wraps ErrCorrupt.
func unseal(key, data []byte) (store, error) {
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(data, []byte(fileMagic))
	if !ok {
		return nil, errors.New("it does not start as a secrets file of Escouade")
	}
	if len(rest) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("it is cut short")
	}
	nonce, sealed := rest[:aead.NonceSize()], rest[aead.NonceSize():]
	plain, err := aead.Open(nil, nonce, sealed, []byte(fileMagic))
	if err != nil {
		return nil, errors.New("it does not decrypt with its key: the file or the key was changed")
	}
	var s store
	if err := json.Unmarshal(plain, &s); err != nil || s == nil {
		return nil, errors.New("its content is not a set of secrets")
	}
	return s, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != keySize {
		return nil, fmt.Errorf("its key is %d bytes long instead of %d", len(key), keySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
