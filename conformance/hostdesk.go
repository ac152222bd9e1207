package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/services"
)

// fakeSecretPrefix starts the value of a granted secret nobody gave.
const fakeSecretPrefix = "bench-secret:"

// hostDesk serves what the program asks of the host, as the host does
// (package services), from fake secrets and settings, and keeps every
// refusal for the host-requests check.
type hostDesk struct {
	srv *services.Server

	mu       sync.Mutex
	asked    []string // methods asked, in order
	refusals []string // "secrets/get: key \"x\" is not granted (-32001)"
}

// deskData is what the desk serves besides the manifest.
type deskData struct {
	secrets  map[string]string
	settings map[string]json.RawMessage
	projects map[string]string
}

func newHostDesk(m *manifest.Manifest, data deskData) *hostDesk {
	return &hostDesk{srv: &services.Server{
		PluginID: m.ID,
		Dir:      m.Dir,
		Keychain: fakeKeychain{pluginID: m.ID, values: data.secrets},
		Granted:  m.Permissions,
		Declared: m.Contributes.Settings,
		User:     data.settings,
		Project: func(id string) (string, bool) {
			dir, ok := data.projects[id]
			return dir, ok
		},
	}}
}

// serve answers one request or notification of the program.
func (d *hostDesk) serve(ctx context.Context, m *jsonrpc.Message) (any, error) {
	d.note(m.Method, "")
	if err := checkParams(m); err != nil {
		d.note("", fmt.Sprintf("%s: params do not hold: %s (%d)", m.Method, err.Reason(), err.Code))
		return nil, err
	}
	result, err := d.srv.Handle(ctx, m.Method, m.Params)
	var refusal *services.Error
	if !errors.As(err, &refusal) {
		return result, err
	}
	if refusal.Code != services.CodeMissing {
		d.note("", fmt.Sprintf("%s: %s (%d)", m.Method, refusal.Reason, refusal.Code))
	}
	wireErr := jsonrpc.NewError(refusal.Code, refusal.Message)
	if refusal.Reason != "" {
		wireErr = wireErr.WithReason(refusal.Reason)
	}
	return nil, wireErr
}

func (d *hostDesk) note(method, refusal string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if method != "" {
		d.asked = append(d.asked, method)
	}
	if refusal != "" {
		d.refusals = append(d.refusals, refusal)
	}
}

// report returns the methods asked and the refusals so far.
func (d *hostDesk) report() (asked, refusals []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.asked...), append([]string(nil), d.refusals...)
}

// checkParams validates params of a method the host serves a process against
// the protocol schema, as the host does; others are left to the services,
// which answer -32601.
func checkParams(m *jsonrpc.Message) *jsonrpc.Error {
	meth, ok := protocol.Lookup(m.Method)
	if !ok || meth.WASMOnly || meth.Direction != protocol.DirPluginToHost {
		return nil
	}
	if err := protocol.ValidateParams(m.Method, m.Params); err != nil {
		return jsonrpc.ErrInvalidParams.WithReason(err.Error())
	}
	return nil
}

// fakeKeychain hands out fake values for the plugin's keys: the one given,
// else "bench-secret:<key>". It never reaches a real keychain.
type fakeKeychain struct {
	pluginID string
	values   map[string]string
}

func (k fakeKeychain) Get(service, name string) (string, error) {
	key, ok := strings.CutPrefix(name, keychain.PluginName(k.pluginID, ""))
	if service != keychain.Service || !ok {
		return "", keychain.ErrNotFound
	}
	if v, ok := k.values[key]; ok {
		return v, nil
	}
	return fakeSecretPrefix + key, nil
}

func (fakeKeychain) Set(string, string, string) error {
	return errors.New("the bench keychain is read-only")
}

func (fakeKeychain) Delete(string, string) error {
	return errors.New("the bench keychain is read-only")
}
