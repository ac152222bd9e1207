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
	// modules are the methods only modules are served (timer/*, net/*,
	// ws/*, fs/*, proc/*), made by the host's own service makers; nil for
	// a process, which gets -32601 for them as from the host.
	modules map[string]services.Handler

	mu       sync.Mutex
	asked    []string  // methods asked, in order
	refusals []refusal // in order
	// handled are refusals a scenario's call met and then answered well
	// (or listed): said by host-requests, not failed.
	handled []refusal
}

// refusal is one request the bench refused, for the host-requests row.
type refusal struct {
	method string
	code   int64
	reason string
}

func (r refusal) String() string {
	return fmt.Sprintf("%s: %s (%d)", r.method, r.reason, r.code)
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
	d.note(m.Method, nil)
	handler, isModuleMethod := d.modules[m.Method]
	if err := checkParams(m, isModuleMethod); err != nil {
		d.note("", &refusal{m.Method, err.Code, "params do not hold: " + err.Reason()})
		return nil, err
	}
	var result any
	var err error
	if isModuleMethod {
		result, err = services.Call(ctx, handler, m.Params) // the bench has a goroutine to spare
	} else {
		result, err = d.srv.Handle(ctx, m.Method, m.Params)
	}
	var refused *services.Error
	if !errors.As(err, &refused) {
		return result, err
	}
	if pluginsFault(refused.Code) {
		d.note("", &refusal{m.Method, refused.Code, refused.Reason})
	}
	wireErr := jsonrpc.NewError(refused.Code, refused.Message)
	if refused.Reason != "" {
		wireErr = wireErr.WithReason(refused.Reason)
	}
	return nil, wireErr
}

// pluginsFault tells a refusal the plugin caused (a method it is not
// served, params that do not hold, what its permissions do not grant) from
// what a host answers a correct plugin too: a missing file (a plugin may
// look for an optional one), a request that failed on the way (the bench
// may be offline), a keychain out of reach.
func pluginsFault(code int64) bool {
	switch code {
	case services.CodeMissing, services.CodeFailed, services.CodeKeychain:
		return false
	}
	return true
}

func (d *hostDesk) note(method string, r *refusal) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if method != "" {
		d.asked = append(d.asked, method)
	}
	if r != nil {
		d.refusals = append(d.refusals, *r)
	}
}

// noteHandled keeps refusals the plugin handled, for host-requests to say.
func (d *hostDesk) noteHandled(rs []refusal) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.handled = append(d.handled, rs...)
}

// handledSoFar returns the refusals the plugin handled.
func (d *hostDesk) handledSoFar() []refusal {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]refusal(nil), d.handled...)
}

// report returns the methods asked and the refusals so far.
func (d *hostDesk) report() (asked []string, refusals []refusal) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.asked...), append([]refusal(nil), d.refusals...)
}

// mark returns how many refusals were made so far, for forgive.
func (d *hostDesk) mark() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.refusals)
}

// take removes the refusals made since mark that keep says to take, and
// returns them: a scenario's call caused them, so they belong to its row,
// not to the host-requests row (one cause, one failed row).
func (d *hostDesk) take(mark int, keep func(refusal) bool) []refusal {
	d.mu.Lock()
	defer d.mu.Unlock()
	if mark > len(d.refusals) {
		return nil
	}
	left := d.refusals[:mark:mark]
	var taken []refusal
	for _, r := range d.refusals[mark:] {
		if keep(r) {
			taken = append(taken, r)
		} else {
			left = append(left, r)
		}
	}
	d.refusals = left
	return taken
}

// checkParams validates params of a method the host serves this program
// against the protocol schema, as the host does; others are left to the
// services, which answer -32601.
func checkParams(m *jsonrpc.Message, served bool) *jsonrpc.Error {
	meth, ok := protocol.Lookup(m.Method)
	if !ok || (meth.WASMOnly && !served) || meth.Direction != protocol.DirPluginToHost {
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
