package services

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// Journal tags this package writes (docs/protocol.md#11-the-journal), besides LogTag(level):
// the journal's own, so that one filter finds every line of a kind.
const (
	TagSecret  = journal.TagSecret  // a secret key asked for, never its value
	TagRefused = journal.TagRefused // a request refused, with its reason
	TagDropped = journal.TagDropped // a setting value left out of an answer
)

// Server serves the plugin→host requests of one process plugin.
type Server struct {
	PluginID string
	Dir      string // the plugin folder
	Keychain keychain.Keychain
	// Granted is what the user granted, now.
	Granted manifest.Permissions
	// Declared is contributes.settings of the manifest.
	Declared map[string]manifest.Setting
	// User holds the values the user chose in the app.
	User map[string]json.RawMessage
	// Project maps a project id to its folder; nil knows no project.
	Project func(id string) (dir string, ok bool)
	// Journal receives the lines of the plugin's journal: tags "secret",
	// "refused", "dropped" and "log.<level>". Nil writes nothing.
	Journal func(tag, text string)
	// Mask is called with every secret value handed out, before it is
	// returned, so the journal masks it from then on. The host must set it;
	// nil (for tests) masks nothing.
	Mask func(secret string)
}

// Handle serves one plugin→host request, or the log notification (whose
// result is always nil: the host sends nothing back for a notification).
// A refusal is an *Error, already journaled with its reason. It is what the
// host does around Methods, for callers that hold a Server alone.
func (s *Server) Handle(ctx context.Context, method string, params json.RawMessage) (any, error) {
	handler, ok := s.Methods()[method]
	if !ok {
		handler = NoSuchMethod
	}
	result, err := handler(ctx, params)
	if err != nil {
		s.journal(TagRefused, RefusalLine(method, err))
		return nil, err
	}
	return result, nil
}

// Methods gives the four methods every plugin may call (docs/protocol.md#7-what-the-host-serves-a-process).
func (s *Server) Methods() map[string]Handler {
	return map[string]Handler{
		vocab.MethodSecretsGet:  s.adapt(s.getSecret),
		vocab.MethodSettingsGet: s.adapt(s.getSettings),
		vocab.MethodLog: s.adapt(func(params []byte) (any, *Error) {
			return nil, s.writeLog(params)
		}),
		vocab.MethodFilesRead: s.adapt(s.readFile),
	}
}

// InOrder names log: it only writes to the journal, which never blocks, and
// a log the plugin sent before an answer must be in the journal when the
// caller has that answer, as it would be in the plugin's own order.
func (s *Server) InOrder() []string { return []string{vocab.MethodLog} }

// Close releases nothing: a Server holds no resource of its own.
func (s *Server) Close() error { return nil }

// adapt turns one of the Server's methods into a Handler. ctx is not
// used: no service here waits on anything it could cancel.
func (s *Server) adapt(serve func(params []byte) (any, *Error)) Handler {
	return func(_ context.Context, params json.RawMessage) (any, error) {
		result, refusal := serve(params)
		if refusal != nil {
			return nil, refusal
		}
		return result, nil
	}
}

// NoSuchMethod answers a method nobody serves: -32601. The WASM-only
// services (net/*, ws/*, timer/*, fs/*, proc/*) land here for a process: it
// has its own network, clock and disk.
func NoSuchMethod(context.Context, json.RawMessage) (any, error) {
	return nil, &Error{Code: CodeMethodNotFound, Message: vocab.MessageNoSuchMethod, Reason: "no such method"}
}

// RefusalLine is the journal line of a refused request: "<method>:
// <reason>", the method quoted when it holds a control character.
func RefusalLine(method string, err error) string {
	reason := err.Error()
	if e, ok := err.(*Error); ok && e.Reason != "" {
		reason = e.Reason
	}
	return journalMethod(method) + ": " + reason
}

func (s *Server) journal(tag, text string) {
	if s.Journal != nil {
		s.Journal(tag, text)
	}
}

// journalMethod prints a method name as is, unless it holds a control
// character that would break the journal line: then quoted.
func journalMethod(method string) string {
	if strings.IndexFunc(method, unicode.IsControl) >= 0 {
		return strconv.Quote(method)
	}
	return method
}

// getSettings serves settings/get: {} or {"project": id} → object.
func (s *Server) getSettings(params []byte) (any, *Error) {
	obj, err := decodeObject(params, "project")
	if err != nil {
		return nil, err
	}
	projectID, withProject, err := obj.stringField("project")
	if err != nil {
		return nil, err
	}
	req := SettingsRequest{Declared: s.Declared, User: s.User, PluginID: s.PluginID, ProjectID: projectID}
	if withProject {
		if req.Project, err = s.loadProject(projectID); err != nil {
			return nil, err
		}
	}
	return ResolveSettings(req, s.Journal), nil
}

func (s *Server) loadProject(id string) (*ProjectConfig, *Error) {
	var dir string
	ok := false
	if s.Project != nil {
		dir, ok = s.Project(id)
	}
	if !ok {
		return nil, invalidParams("params.project %q is not a project the app knows", id)
	}
	cfg, err := LoadProjectConfig(dir, s.PluginID)
	if err != nil {
		return nil, refuse(CodeFailed, vocab.MessageProjectSettingsUnreadable, "project %q: %v", id, err)
	}
	return cfg, nil
}

// readFile serves files/read: {"path": …} → the text.
func (s *Server) readFile(params []byte) (any, *Error) {
	obj, err := decodeObject(params, "path")
	if err != nil {
		return nil, err
	}
	path, err := obj.requiredString("path")
	if err != nil {
		return nil, err
	}
	text, readErr := ReadPluginFile(s.Dir, path)
	if readErr != nil {
		return nil, asError(readErr)
	}
	return text, nil
}

func asError(err error) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	return refuse(CodeFailed, vocab.MessageRequestFailed, "%v", err)
}
