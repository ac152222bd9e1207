package protocol

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// errText is the text of err, or "" for nil, so a table can say "holds".
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestValidateParamsPluginToHost has good and bad params for every method a
// plugin calls; each bad case names the field.
func TestValidateParamsPluginToHost(t *testing.T) {
	tests := []struct {
		method, params, want string
	}{
		{"secrets/get", `{"key":"webhook"}`, ""},
		{"secrets/get", `{"key":""}`, ""}, // an empty key is refused with -32001, not -32602
		{"secrets/get", `{}`, "params/key: is required"},
		{"secrets/get", ``, "params/key: is required"},
		{"secrets/get", `{"key":1}`, "params/key: must be a string, not a number"},
		{"secrets/get", `{"key":null}`, "params/key: must be a string, not null"},
		{"secrets/get", `{"key":"a","Key":"b"}`, "params/Key: is not allowed"},
		{"secrets/get", `["webhook"]`, "params: must be an object, not an array"},
		{"secrets/get", `null`, "params/key: is required"},
		{"secrets/get", ` null `, "params/key: is required"},
		{"secrets/get", `"webhook"`, "params: must be an object, not a string"},

		{"settings/get", ``, ""},
		{"settings/get", `{}`, ""},
		{"settings/get", `null`, ""},
		{"settings/get", `{"project":"p1"}`, ""},
		{"settings/get", `{"project":7}`, "params/project: must be a string, not a number"},
		{"settings/get", `{"projet":"p1"}`, "params/projet: is not allowed"},

		{"log", `{"level":"info","message":"ready"}`, ""},
		{"log", `{"level":"debug","message":"a\nb"}`, ""},
		{"log", `{"level":"loud","message":"x"}`, `params/level: must be one of "debug", "info", "warn", "error"`},
		{"log", `{"level":"INFO","message":"x"}`, `params/level: must be one of "debug", "info", "warn", "error"`},
		{"log", `{"level":"info"}`, "params/message: is required"},
		{"log", `{"message":"x"}`, "params/level: is required"},
		{"log", `{"level":"info","message":["x"]}`, "params/message: must be a string, not an array"},

		{"files/read", `{"path":"data/words.txt"}`, ""},
		{"files/read", `{"path":"../x"}`, ""}, // refused with -32003 by the service, not by shape
		{"files/read", `{}`, "params/path: is required"},
		{"files/read", `{"path":true}`, "params/path: must be a string, not a boolean"},

		{"net/fetch", `{"url":"https://api.slack.com/x"}`, ""},
		{"net/fetch", `{"url":"https://a.b","method":"POST","headers":{"Content-Type":"text/plain"},"body":"aGk=","bodyEncoding":"base64"}`, ""},
		{"net/fetch", `{"method":"GET"}`, "params/url: is required"},
		{"net/fetch", `{"url":"https://a.b","headers":{"X/Y":1}}`, "params/headers/X~1Y: must be a string, not a number"},
		{"net/fetch", `{"url":"https://a.b","headers":["a"]}`, "params/headers: must be an object, not an array"},
		{"net/fetch", `{"url":"https://a.b","bodyEncoding":"hex"}`, `params/bodyEncoding: must be one of "utf8", "base64"`},
		{"net/fetch", `{"url":"https://a.b","method":""}`, "params/method: must not be empty"},
		{"net/fetch", `{"url":"https://a.b","redirect":"follow"}`, "params/redirect: is not allowed"},

		{"net/stream", `{"url":"https://a.b"}`, ""},
		{"net/stream", `{"url":1}`, "params/url: must be a string, not a number"},

		{"net/cancel", `{"stream":3}`, ""},
		{"net/cancel", `{"stream":0}`, "params/stream: must be at least 1"},
		{"net/cancel", `{"stream":"3"}`, "params/stream: must be an integer, not a string"},
		{"net/cancel", `{}`, "params/stream: is required"},

		{"ws/open", `{"url":"wss://a.b/s","protocols":["chat"]}`, ""},
		{"ws/open", `{"url":"wss://a.b/s","protocols":"chat"}`, "params/protocols: must be an array, not a string"},
		{"ws/open", `{"url":"wss://a.b/s","protocols":["chat",1]}`, "params/protocols/1: must be a string, not a number"},

		{"ws/send", `{"socket":1,"data":"hi"}`, ""},
		{"ws/send", `{"socket":1,"data":"aGk=","binary":true}`, ""},
		{"ws/send", `{"socket":1}`, "params/data: is required"},
		{"ws/send", `{"socket":1,"data":"x","binary":"yes"}`, "params/binary: must be a boolean, not a string"},

		{"ws/close", `{"socket":1}`, ""},
		{"ws/close", `{"socket":1,"code":1000,"reason":"bye"}`, ""},
		{"ws/close", `{"socket":1,"code":999}`, "params/code: must be at least 1000"},
		{"ws/close", `{"socket":1,"code":5000}`, "params/code: must be at most 4999"},
		{"ws/close", `{"socket":1.5}`, "params/socket: must be an integer, not a number"},

		{"timer/set", `{"ms":0}`, ""},
		{"timer/set", `{"ms":250}`, ""},
		{"timer/set", `{"ms":-1}`, "params/ms: must be at least 0"},
		{"timer/set", `{"ms":1.5}`, "params/ms: must be an integer, not a number"},
		{"timer/set", `{"ms":99999999999999999999999}`, "params/ms: must be at most 2147483647"},
		{"timer/set", `{}`, "params/ms: is required"},

		{"timer/clear", `{"timer":4}`, ""},
		{"timer/clear", `{"timer":-4}`, "params/timer: must be at least 1"},

		{"fs/read", `{"root":"agent","path":"src/main.go"}`, ""},
		{"fs/read", `{"root":"agentRepo","path":".git/HEAD","agent":"a1"}`, ""},
		{"fs/read", `{"root":"agent:ro","path":"x"}`, `params/root: must be one of "agent", "agentRepo", "agentHome", "temp"`},
		{"fs/read", `{"path":"x"}`, "params/root: is required"},
		{"fs/read", `{"root":"temp"}`, "params/path: is required"},
		{"fs/read", `{"root":"temp","path":"x","agent":1}`, "params/agent: must be a string, not a number"},

		{"fs/write", `{"root":"temp","path":"out.txt","text":"hi"}`, ""},
		{"fs/write", `{"root":"temp","path":"out.txt"}`, "params/text: is required"},
		{"fs/write", `{"root":"temp","path":"out.txt","text":{"a":1}}`, "params/text: must be a string, not an object"},

		{"fs/list", `{"root":"agentHome","path":"."}`, ""},
		{"fs/list", `{"root":"agentHome","path":".","recursive":true}`, "params/recursive: is not allowed"},

		{"fs/stat", `{"root":"temp","path":"a"}`, ""},
		{"fs/stat", `{"root":"temp","path":null}`, "params/path: must be a string, not null"},

		{"fs/remove", `{"root":"temp","path":"a"}`, ""},
		{"fs/remove", `{"root":"TEMP","path":"a"}`, `params/root: must be one of "agent", "agentRepo", "agentHome", "temp"`},

		{"fs/mkdir", `{"root":"temp","path":"a/b"}`, ""},
		{"fs/mkdir", `{"root":"temp","path":["a","b"]}`, "params/path: must be a string, not an array"},

		{"proc/run", `{"program":"git","args":["status"],"cwd":{"root":"agentRepo","path":"."}}`, ""},
		{"proc/run", `{"program":"git","args":[],"cwd":{"root":"temp","path":""},"stdin":"x","timeoutMs":60000,"agent":"a1"}`, ""},
		{"proc/run", `{"args":[],"cwd":{"root":"temp","path":"."}}`, "params/program: is required"},
		{"proc/run", `{"program":"git","cwd":{"root":"temp","path":"."}}`, "params/args: is required"},
		{"proc/run", `{"program":"git","args":["x",2],"cwd":{"root":"temp","path":"."}}`, "params/args/1: must be a string, not a number"},
		{"proc/run", `{"program":"git","args":[],"cwd":"."}`, "params/cwd: must be an object, not a string"},
		{"proc/run", `{"program":"git","args":[],"cwd":{"path":"."}}`, "params/cwd/root: is required"},
		{"proc/run", `{"program":"git","args":[],"cwd":{"root":"temp","path":".","agent":"a1"}}`, "params/cwd/agent: is not allowed"},
		{"proc/run", `{"program":"git","args":[],"cwd":{"root":"temp","path":"."},"timeoutMs":60001}`, "params/timeoutMs: must be at most 60000"},
		{"proc/run", `{"program":"git","args":[],"cwd":{"root":"temp","path":"."},"timeoutMs":0}`, "params/timeoutMs: must be at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.params, func(t *testing.T) {
			got := errText(ValidateParams(tt.method, json.RawMessage(tt.params)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ValidateParams(%q, %s) (-want +got):\n%s", tt.method, tt.params, diff)
			}
		})
	}
}

func TestValidateParamsHostToPlugin(t *testing.T) {
	tests := []struct {
		method, params, want string
	}{
		{"initialize", `{"protocolVersion":1,"escouade":{"version":"2.2.0"},"plugin":{"id":"dev.escouade.slack","version":"1.1.0"},"lang":"en","capabilities":{"batch":true,"secrets":true,"settings":true,"log":true,"attach":true}}`, ""},
		{"initialize", `{"protocolVersion":2,"escouade":{"version":"2.2.0"},"plugin":{"id":"p.q","version":"1"},"lang":"en","capabilities":{}}`, "params/protocolVersion: must be 1"},
		{"initialize", `{"protocolVersion":1,"escouade":{},"plugin":{"id":"p.q","version":"1"},"lang":"en","capabilities":{}}`, "params/escouade/version: is required"},
		{"initialize", `{"protocolVersion":1,"escouade":{"version":"2"},"plugin":{"id":"p.q","version":"1"},"lang":"en","capabilities":{"batch":"yes"}}`, "params/capabilities/batch: must be a boolean, not a string"},
		{"shutdown", ``, ""},
		{"shutdown", `{}`, ""},
		{"event/ticket.column", `{"project":{"id":"p1"},"ticket":"T-1"}`, ""},
		{"event/ticket.column", `[1]`, "params: must be an object, not an array"},
		{"agent/attach", `{"agent":"a1","session":"s","mode":"default","model":"m"}`, ""},
		{"agent/attach", `{"session":"s"}`, "params/agent: is required"},
		{"agent/attach", `{"agent":""}`, "params/agent: must not be empty"},
		{"permissions/ask", `{"tool":"Bash","input":{"command":"ls"}}`, ""},
		{"tickets/import", `{}`, ""},
		{"engine/oneShot", `"text"`, "params: must be an object, not a string"},
		{"timer/fired", `{"timer":2}`, ""},
		{"net/chunk", `{"stream":1,"data":"abc","bodyEncoding":"utf8"}`, ""},
		{"net/chunk", `{"stream":1,"data":"abc"}`, "params/bodyEncoding: is required"},
		{"net/end", `{"stream":1,"error":"time out"}`, ""},
		{"ws/message", `{"socket":1,"data":"hi","binary":false}`, ""},
		{"ws/closed", `{"socket":1,"code":1000}`, "params/reason: is required"},
	}
	for _, tt := range tests {
		got := errText(ValidateParams(tt.method, json.RawMessage(tt.params)))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ValidateParams(%q, %s) (-want +got):\n%s", tt.method, tt.params, diff)
		}
	}
}

func TestValidateResult(t *testing.T) {
	tests := []struct {
		method, result, want string
	}{
		{"initialize", `{"protocolVersion":1,"capabilities":{"batch":true}}`, ""},
		{"initialize", `{"protocolVersion":1}`, ""},
		{"initialize", `{"protocolVersion":2}`, "result/protocolVersion: must be 1"},
		{"initialize", `{"capabilities":{}}`, "result/protocolVersion: is required"},
		{"initialize", `{"protocolVersion":"1"}`, "result/protocolVersion: must be 1"},
		{"initialize", ``, "result: must be an object, not null"},
		{"shutdown", `null`, ""},
		{"permissions/ask", `{"decision":"allow"}`, ""},
		{"secrets/get", `"s3cret"`, ""},
		{"secrets/get", `null`, ""},
		{"secrets/get", `1`, "result: must be null or a string, not a number"},
		{"settings/get", `{"channel":"#dev"}`, ""},
		{"files/read", `"text"`, ""},
		{"net/fetch", `{"status":200,"headers":{},"body":"","bodyEncoding":"utf8"}`, ""},
		{"net/fetch", `{"status":200,"headers":{},"body":""}`, "result/bodyEncoding: is required"},
		{"net/stream", `{"stream":1,"status":200,"headers":{"A":"b, c"}}`, ""},
		{"ws/open", `{"socket":1}`, ""},
		{"timer/set", `{"timer":1}`, ""},
		{"timer/clear", `null`, ""},
		{"timer/clear", `{}`, "result: must be null, not an object"},
		{"fs/list", `[{"name":"a","dir":false,"size":3}]`, ""},
		{"fs/list", `[{"name":"a","dir":false}]`, "result/0/size: is required"},
		{"fs/stat", `{"size":1,"dir":false,"modified":"2025-01-02T03:04:05Z"}`, ""},
		{"fs/stat", `{"size":1,"dir":false,"modified":"yesterday"}`, "result/modified: must be a valid date-time"},
		{"proc/run", `{"code":0,"stdout":"","stderr":""}`, ""},
		{"proc/run", `{"code":0,"stdout":""}`, "result/stderr: is required"},
		// Notifications and unknown methods have no result to check.
		{"log", `1`, ""},
		{"event/x", `1`, ""},
		{"test/do", `1`, ""},
	}
	for _, tt := range tests {
		got := errText(ValidateResult(tt.method, json.RawMessage(tt.result)))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ValidateResult(%q, %s) (-want +got):\n%s", tt.method, tt.result, diff)
		}
	}
}

func TestValidateUnknownMethodIsLeftToTheCaller(t *testing.T) {
	for _, method := range []string{"test/do", "fs/chmod", "permissions/", ""} {
		if err := ValidateParams(method, json.RawMessage(`not json`)); err != nil {
			t.Errorf("ValidateParams(%q) = %v, want nil: the caller answers -32601", method, err)
		}
	}
}

func TestValidateBadJSON(t *testing.T) {
	for _, params := range []string{`{`, `{"key":"a"} x`, `{"key":"a"}{}`, "{\"key\":\"\xff\"}", `{'key':1}`, `nul`} {
		want := &FieldError{In: InParams, Reason: "is not valid JSON"}
		err := ValidateParams("secrets/get", json.RawMessage(params))
		var got *FieldError
		if !errors.As(err, &got) {
			t.Fatalf("ValidateParams(%q) = %v, want a *FieldError", params, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ValidateParams(%q) (-want +got):\n%s", params, diff)
		}
	}
}

func TestFieldErrorFields(t *testing.T) {
	err := ValidateParams("net/fetch", json.RawMessage(`{"url":"https://a.b","headers":{"a~b":false}}`))
	var got *FieldError
	if !errors.As(err, &got) {
		t.Fatalf("got %v, want a *FieldError", err)
	}
	want := &FieldError{In: InParams, Pointer: "/headers/a~0b", Reason: "must be a string, not a boolean"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestValidateNamesTheSameFieldEveryTime guards the tie-break: several
// fields fail at the same depth, and the one named must not depend on the
// order in which the validator visits members.
func TestValidateNamesTheSameFieldEveryTime(t *testing.T) {
	params := json.RawMessage(`{"url":1,"method":2,"body":3,"zzz":4,"aaa":5}`)
	want := "params/aaa: is not allowed"
	for range 50 {
		if got := errText(ValidateParams("net/fetch", params)); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

func TestValidateConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if err := ValidateParams("secrets/get", json.RawMessage(`{"key":"a"}`)); err != nil {
					t.Errorf("ValidateParams = %v", err)
				}
				if err := ValidateParams("secrets/get", json.RawMessage(`{}`)); err == nil {
					t.Error("ValidateParams({}) = nil, want an error")
				}
			}
		})
	}
	wg.Wait()
}

func FuzzValidateParams(f *testing.F) {
	seeds := []struct{ method, params string }{
		{"secrets/get", `{"key":"webhook"}`},
		{"secrets/get", `{}`},
		{"net/fetch", `{"url":"https://a.b","headers":{"a/b":1}}`},
		{"proc/run", `{"program":"git","args":[1],"cwd":{}}`},
		{"log", `{"level":"x","message":[]}`},
		{"initialize", `{"protocolVersion":1e400}`},
		{"timer/set", `{"ms":-0.0}`},
		{"permissions/ask", `[`},
		{"test/do", ``},
		{"fs/read", "{\"root\":\"\xff\"}"},
	}
	for _, s := range seeds {
		f.Add(s.method, []byte(s.params))
	}
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		for _, err := range []error{
			ValidateParams(method, params),
			ValidateResult(method, params),
		} {
			if err == nil {
				continue
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("%s: got %T %v, want a *FieldError", method, err, err)
			}
			if fe.Reason == "" || (fe.Pointer != "" && fe.Pointer[0] != '/') {
				t.Errorf("%s: malformed field error %#v", method, fe)
			}
		}
	})
}
