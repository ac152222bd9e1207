package kit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// The methods of the host the kit calls (docs/protocol.md#7-what-the-host-serves-a-process), named by the
// types generated from the protocol schema, so a change of the schema that
// the kit does not follow fails to compile.
const (
	methodSecretsGet  = vocab.MethodSecretsGet
	methodSettingsGet = vocab.MethodSettingsGet
	methodFilesRead   = vocab.MethodFilesRead
	methodLog         = vocab.MethodLog
)

// The levels of Log.
const (
	LevelDebug = string(proto.LogParamsLevelDebug)
	LevelInfo  = string(proto.LogParamsLevelInfo)
	LevelWarn  = string(proto.LogParamsLevelWarn)
	LevelError = string(proto.LogParamsLevelError)
)

// ErrNotConnected is the error of a call to the host made while the plugin
// does not serve it: before Run, or after it returned.
var ErrNotConnected = errors.New("kit: not connected to the host; call it from a handler while Run serves")

// hostPeer is the host as the kit calls it. A jsonrpc.Conn is one in
// process mode; the reactor transport for WASM will provide its own, where
// an answer arrives in a later turn.
type hostPeer interface {
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
	Notify(method string, params any) error
}

// Secret returns the secret the user keeps under key (secrets/get); found is
// false when none is kept. The key must match a permissions.secrets entry
// of the manifest: any other key fails with jsonrpc.ErrNotYours (-32001),
// and an unreachable keychain with jsonrpc.ErrKeychain (-32002). Never
// print the value: the host masks it in the journal, not elsewhere.
func (p *Plugin) Secret(ctx context.Context, key string) (value string, found bool, err error) {
	raw, err := p.call(ctx, methodSecretsGet, proto.SecretsGetParams{Key: key})
	if err != nil {
		return "", false, err
	}
	var secret proto.SecretsGetResult
	if err := json.Unmarshal(raw, &secret); err != nil {
		return "", false, badAnswer(methodSecretsGet, "a string or null", raw)
	}
	if secret == nil {
		return "", false, nil
	}
	return *secret, true, nil
}

// Settings returns the values the user chose for the plugin's settings
// (settings/get), by key. Values left at their default are absent: the
// plugin applies the defaults of its manifest. Secret settings are never
// there; read them with Secret. With a project id, that project's
// .escouade.yml values come first; "" asks for the user's values only.
func (p *Plugin) Settings(ctx context.Context, project string) (map[string]any, error) {
	raw, err := p.call(ctx, methodSettingsGet, proto.SettingsGetParams{Project: project})
	if err != nil {
		return nil, err
	}
	var values map[string]any
	if err := json.Unmarshal(raw, &values); err != nil || values == nil {
		return nil, badAnswer(methodSettingsGet, "an object", raw)
	}
	return values, nil
}

// ReadFile returns a UTF-8 text file of the plugin's folder, path relative
// with / separators (files/read, at most 256 KB). The host refuses what is
// outside the folder, hidden or the manifest (jsonrpc.ErrForbidden), a
// missing file (jsonrpc.ErrMissing), and what is too large or not text
// (jsonrpc.ErrFailed).
func (p *Plugin) ReadFile(ctx context.Context, path string) (string, error) {
	raw, err := p.call(ctx, methodFilesRead, proto.FilesReadParams{Path: path})
	if err != nil {
		return "", err
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return "", badAnswer(methodFilesRead, "a string", raw)
	}
	return text, nil
}

// Log writes message to the plugin's journal at level (debug, info, warn,
// error), one journal line per line of message. Another level is sent as
// info and traced on stderr. While not connected the line goes to stderr,
// so that nothing is lost.
func (p *Plugin) Log(level, message string) {
	if !validLevel(level) {
		p.tracef("log level %q is not debug, info, warn or error: sent as info", level)
		level = LevelInfo
	}
	host := p.peer()
	if host == nil {
		p.tracef("log.%s %s", level, message)
		return
	}
	err := host.Notify(methodLog, proto.LogParams{Level: proto.LogParamsLevel(level), Message: message})
	if err != nil {
		p.tracef("log.%s %s (not sent: %v)", level, message, err)
	}
}

func validLevel(level string) bool {
	switch level {
	case LevelDebug, LevelInfo, LevelWarn, LevelError:
		return true
	}
	return false
}

// call calls the host, or fails when not connected.
func (p *Plugin) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	host := p.peer()
	if host == nil {
		return nil, ErrNotConnected
	}
	p.waits.calling(1)
	defer p.waits.calling(-1)
	raw, err := host.Call(ctx, method, params)
	return raw, withReason(err)
}

// hostError is a refusal of the host whose text keeps the reason the host
// gave in its data: "The plugin may not reach this address. (example.org
// is not in permissions.network of …)", as the journal says it, where the
// wire message alone would leave the author guessing. errors.Is and
// errors.As see the *jsonrpc.Error inside, code and all.
type hostError struct{ rpc *jsonrpc.Error }

func (e hostError) Error() string { return e.rpc.Message + " (" + e.rpc.Reason() + ")" }
func (e hostError) Unwrap() error { return e.rpc }

// withReason wraps a refusal that carries a reason in a hostError.
func withReason(err error) error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && rpc.Reason() != "" && rpc.Message != "" {
		return hostError{rpc}
	}
	return err
}

// peer returns the host while Serve runs, else nil.
func (p *Plugin) peer() hostPeer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.host
}

// answerExcerptLen is how much of an unexpected answer an error quotes.
const answerExcerptLen = 80

// badAnswer reports an answer of the host that does not have the shape
// protocol 1 gives it.
func badAnswer(method, want string, raw json.RawMessage) error {
	text := string(raw)
	if len(text) > answerExcerptLen {
		text = text[:answerExcerptLen] + "…"
	}
	return fmt.Errorf("kit: %s answered %s, not %s", method, text, want)
}
