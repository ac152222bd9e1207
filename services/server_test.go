package services

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnservedMethods(t *testing.T) {
	methods := []string{
		"net/fetch", "net/stream", "net/cancel", "ws/open", "ws/send", "ws/close",
		"timer/set", "timer/clear", "fs/read", "fs/write", "fs/list", "fs/stat", "fs/remove", "fs/mkdir",
		"proc/run", "secrets/set", "Secrets/get", "initialize", "", "settings/get/",
	}
	for _, method := range methods {
		rec := &recorder{}
		_, code := call(t, &Server{Journal: rec.journal}, method, `{}`)
		if code != CodeMethodNotFound {
			t.Errorf("%q: code %d, want %d", method, code, CodeMethodNotFound)
		}
		want := []line{{"refused", method + ": no such method"}}
		if diff := cmp.Diff(want, rec.Lines()); diff != "" {
			t.Errorf("%q: journal (-want +got):\n%s", method, diff)
		}
	}
}

func TestUnservedMethodWithControlCharacter(t *testing.T) {
	rec := &recorder{}
	call(t, &Server{Journal: rec.journal}, "x\nrefused fake", `{}`)
	want := []line{{"refused", `"x\nrefused fake": no such method`}}
	if diff := cmp.Diff(want, rec.Lines()); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
}

func TestHandleWithoutJournal(t *testing.T) {
	s := &Server{}
	for _, method := range []string{"log", "nope", "secrets/get", "files/read"} {
		if _, err := s.Handle(t.Context(), method, json.RawMessage(`{"level":"x","message":"y"}`)); err == nil && method != "log" {
			t.Errorf("%s: no error", method)
		}
	}
}

func settingsServer(t *testing.T, rec *recorder, projects map[string]string) *Server {
	return &Server{
		PluginID: "dev.escouade.slack",
		Declared: declaredSettings(),
		User:     raws(map[string]string{"channel": `"#dev"`, "count": `10`, "token": `"xoxb"`}),
		Project: func(id string) (string, bool) {
			dir, ok := projects[id]
			return dir, ok
		},
		Journal: rec.journal,
	}
}

func TestSettingsGet(t *testing.T) {
	web := writeProject(t, "plugins:\n  dev.escouade.slack:\n    channel: '#web'\n    count: ten\n")
	off := writeProject(t, "plugins:\n  dev.escouade.slack: false\n")
	broken := writeProject(t, "plugins: [\n")
	projects := map[string]string{"web": web, "off": off, "broken": broken, "bare": t.TempDir()}
	tests := []struct {
		name      string
		params    string
		want      any
		wantCode  int64
		wantLines []line
	}{
		{name: "no params", params: ``, want: map[string]any{"channel": "#dev", "count": json.Number("10")}},
		{name: "empty object", params: `{}`, want: map[string]any{"channel": "#dev", "count": json.Number("10")}},
		{name: "project without a file", params: `{"project":"bare"}`, want: map[string]any{"channel": "#dev", "count": json.Number("10")}},
		{
			name: "project", params: `{"project":"web"}`,
			want: map[string]any{"channel": "#web", "count": json.Number("10")},
			wantLines: []line{
				{"dropped", `settings/get: .escouade.yml of project "web" sets plugins.dev.escouade.slack.count to a string, not an integer; ignored`},
			},
		},
		{
			name: "off in the project", params: `{"project":"off"}`,
			want: map[string]any{"channel": "#dev", "count": json.Number("10")},
			wantLines: []line{
				{"refused", `settings/get: dev.escouade.slack is off in project "off" (.escouade.yml: plugins.dev.escouade.slack: false); answering the user's settings only`},
			},
		},
		{
			name: "unknown project", params: `{"project":"nope"}`, wantCode: CodeInvalidParams,
			wantLines: []line{{"refused", `settings/get: params.project "nope" is not a project the app knows`}},
		},
		{
			name: "project not a string", params: `{"project":3}`, wantCode: CodeInvalidParams,
			wantLines: []line{{"refused", `settings/get: params.project must be a string, not a number`}},
		},
		{
			name: "unknown field", params: `{"projet":"web"}`, wantCode: CodeInvalidParams,
			wantLines: []line{{"refused", `settings/get: params.projet is not a known field`}},
		},
		{
			name: "params an array", params: `[]`, wantCode: CodeInvalidParams,
			wantLines: []line{{"refused", `settings/get: params must be an object, not an array`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			got, code := call(t, settingsServer(t, rec, projects), "settings/get", tt.params)
			if code != tt.wantCode {
				t.Errorf("code = %d, want %d", code, tt.wantCode)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLines, rec.Lines()); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSettingsGetBrokenProjectFile(t *testing.T) {
	rec := &recorder{}
	broken := writeProject(t, "plugins: [\n")
	_, code := call(t, settingsServer(t, rec, map[string]string{"broken": broken}), "settings/get", `{"project":"broken"}`)
	if code != CodeFailed {
		t.Errorf("code = %d, want %d", code, CodeFailed)
	}
	if lines := rec.Lines(); len(lines) != 1 || lines[0].Tag != "refused" {
		t.Errorf("journal = %q, want one refused line", lines)
	}
}

func TestSettingsGetWithoutResolver(t *testing.T) {
	s := settingsServer(t, &recorder{}, nil)
	s.Project = nil
	if _, code := call(t, s, "settings/get", `{"project":"web"}`); code != CodeInvalidParams {
		t.Errorf("code = %d, want %d", code, CodeInvalidParams)
	}
}

func TestFilesReadThroughHandle(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "words.txt"), []byte("un\ndeux\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		params    string
		want      any
		wantCode  int64
		wantLines []line
	}{
		{params: `{"path":"words.txt"}`, want: "un\ndeux\n"},
		{params: `{"path":".env"}`, wantCode: CodeForbidden, wantLines: []line{{"refused", `files/read: ".env": a hidden name (starting with .)`}}},
		{params: `{"path":"gone.txt"}`, wantCode: CodeMissing, wantLines: []line{{"refused", `files/read: "gone.txt": no such file`}}},
		{params: `{}`, wantCode: CodeInvalidParams, wantLines: []line{{"refused", `files/read: params.path is required`}}},
		{params: `{"path":["a"]}`, wantCode: CodeInvalidParams, wantLines: []line{{"refused", `files/read: params.path must be a string, not an array`}}},
		{params: `{"path":"a","mode":"r"}`, wantCode: CodeInvalidParams, wantLines: []line{{"refused", `files/read: params.mode is not a known field`}}},
	}
	for _, tt := range tests {
		rec := &recorder{}
		got, code := call(t, &Server{Dir: dir, Journal: rec.journal}, "files/read", tt.params)
		if code != tt.wantCode || !cmp.Equal(tt.want, got) {
			t.Errorf("files/read %s = %q, code %d; want %q, code %d", tt.params, got, code, tt.want, tt.wantCode)
		}
		if diff := cmp.Diff(tt.wantLines, rec.Lines()); diff != "" {
			t.Errorf("files/read %s: journal (-want +got):\n%s", tt.params, diff)
		}
	}
}

// FuzzParams checks the params decoder on any bytes: it never panics, and
// every refusal is -32602 journaled once.
func FuzzParams(f *testing.F) {
	for _, seed := range []string{`{}`, `null`, ``, `[]`, `"x"`, `{"key":1}`, `{"key":"webhook"}`, `{"key":"a","key":"b"}`, `{`, ` {"key":null} `} {
		f.Add("secrets/get", seed)
		f.Add("log", seed)
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		rec := &recorder{}
		s := &Server{Keychain: &fakeKeychain{}, Journal: rec.journal}
		_, err := s.Handle(t.Context(), method, json.RawMessage(params))
		if err == nil {
			return
		}
		refused := 0
		for _, l := range rec.Lines() {
			if l.Tag == "refused" {
				refused++
			}
		}
		if _, ok := err.(*Error); !ok || refused != 1 {
			t.Fatalf("Handle(%q, %q) = %v with %d refused lines", method, params, err, refused)
		}
	})
}
