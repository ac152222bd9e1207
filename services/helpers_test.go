package services

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/escouade-dev/escouade-plugin/keychain"
)

// line is one journal line as Server wrote it.
type line struct{ Tag, Text string }

// recorder collects journal lines and masked values.
type recorder struct {
	mu     sync.Mutex
	lines  []line
	masked []string
}

func (r *recorder) journal(tag, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line{tag, text})
}

func (r *recorder) mask(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.masked = append(r.masked, secret)
}

func (r *recorder) Lines() []line {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]line(nil), r.lines...)
}

// fakeKeychain is an in-memory keychain; err, when set, answers every call.
type fakeKeychain struct {
	secrets map[string]string // by "service/name"
	err     error
}

func (k *fakeKeychain) Get(service, name string) (string, error) {
	if k.err != nil {
		return "", k.err
	}
	v, ok := k.secrets[service+"/"+name]
	if !ok {
		return "", keychain.ErrNotFound
	}
	return v, nil
}

func (k *fakeKeychain) Set(service, name, value string) error {
	if k.err != nil {
		return k.err
	}
	k.secrets[service+"/"+name] = value
	return nil
}

func (k *fakeKeychain) Delete(service, name string) error {
	if k.err != nil {
		return k.err
	}
	delete(k.secrets, service+"/"+name)
	return nil
}

// call runs one Handle and returns its result and the code of its refusal
// (0 for none); any error that is not an *Error fails the test.
func call(t *testing.T, s *Server, method, params string) (any, int64) {
	t.Helper()
	var raw json.RawMessage
	if params != "" {
		raw = json.RawMessage(params)
	}
	result, err := s.Handle(context.Background(), method, raw)
	if err == nil {
		return result, 0
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Handle(%s, %s) error %v is not an *Error", method, params, err)
	}
	if result != nil {
		t.Errorf("Handle(%s, %s) = %v with an error, want nil", method, params, result)
	}
	return nil, e.Code
}
