package proto

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeInitialize decodes the initialize params of docs/protocol.md#4-the-handshake.
func TestDecodeInitialize(t *testing.T) {
	params := `{"protocolVersion":1,"escouade":{"version":"2.2.0"},
		"plugin":{"id":"dev.escouade.slack","version":"1.1.0"},"lang":"en",
		"capabilities":{"batch":true,"secrets":true,"settings":true,"log":true,"attach":true}}`
	var got InitializeParams
	if err := json.Unmarshal([]byte(params), &got); err != nil {
		t.Fatal(err)
	}
	want := InitializeParams{
		ProtocolVersion: 1,
		Escouade:        InitializeParamsEscouade{Version: "2.2.0"},
		Plugin:          InitializeParamsPlugin{ID: "dev.escouade.slack", Version: "1.1.0"},
		Lang:            "en",
		Capabilities:    Capabilities{"batch": true, "secrets": true, "settings": true, "log": true, "attach": true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("InitializeParams (-want +got):\n%s", diff)
	}
}

// TestEncode checks that optional members are left out and required ones
// kept, as the schema says.
func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"settings/get without project", SettingsGetParams{}, `{}`},
		{"log", LogParams{Level: LogParamsLevelWarn, Message: "m"}, `{"level":"warn","message":"m"}`},
		{"fetch", FetchParams{URL: "https://x.org", BodyEncoding: BodyEncodingBase64},
			`{"url":"https://x.org","bodyEncoding":"base64"}`},
		{"proc/run", ProcRunParams{Program: "git", Args: []string{"status"}, Cwd: FsLocation{Root: FileRootAgentRepo, Path: "."}},
			`{"program":"git","args":["status"],"cwd":{"root":"agentRepo","path":"."}}`},
		{"secret absent", SecretsGetResult(nil), `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
