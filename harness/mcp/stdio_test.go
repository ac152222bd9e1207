package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// bridge runs ServeStdio on pipes; the test plays the agent: it writes the
// token line, then speaks MCP with the SDK client on the same pipes.
type bridge struct {
	toBridge   *io.PipeWriter // the bridge's stdin, written by the agent
	fromBridge *io.PipeReader // the bridge's stdout, read by the agent
	done       chan error     // ServeStdio's result
}

func startBridge(t *testing.T, url string) *bridge {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b := &bridge{toBridge: inW, fromBridge: outR, done: make(chan error, 1)}
	go func() { b.done <- ServeStdio(t.Context(), StdioOptions{URL: url, In: inR, Out: outW}) }()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		<-b.done
	})
	return b
}

// agentSession writes the token line, then opens the agent's MCP session
// through the bridge.
func (b *bridge) agentSession(t *testing.T, token string) (*sdk.ClientSession, error) {
	t.Helper()
	if _, err := io.WriteString(b.toBridge, token+"\n"); err != nil {
		return nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "stdio-agent", Version: "1"}, nil)
	return client.Connect(t.Context(), &sdk.IOTransport{Reader: b.fromBridge, Writer: b.toBridge}, nil)
}

func TestServeStdio(t *testing.T) {
	rec := &recorder{answers: [][]string{{"x"}}}
	s := start(t, rec.ask)
	b := startBridge(t, s.URL())
	cs, err := b.agentSession(t, s.NewToken("stdio-agent-1"))
	if err != nil {
		t.Fatalf("connect through the bridge: %v", err)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != ServerName {
		t.Errorf("server name %q through the bridge, want %q", got, ServerName)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != ToolAskQuestion {
		t.Fatalf("ListTools: %+v, %v", tools, err)
	}
	res := callAsk(t, cs, `{"questions":[{"question":"Q?","options":[{"label":"x"}],"multiSelect":false}]}`)
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	if diff := cmp.Diff(`The user answered: "Q?" = "x".`, text(res)); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	var out AskOutput
	remarshal(t, res.StructuredContent, &out)
	if diff := cmp.Diff(AskOutput{Answers: [][]string{{"x"}}}, out); diff != "" {
		t.Errorf("structured content (-want +got):\n%s", diff)
	}
	want := []asked{{"stdio-agent-1", `[{"question":"Q?","options":[{"label":"x"}],"multiSelect":false}]`}}
	if diff := cmp.Diff(want, rec.recorded()); diff != "" {
		t.Errorf("Asker calls (-want +got):\n%s", diff)
	}
	if res := callAsk(t, cs, `{"questions":[]}`); !res.IsError {
		t.Error("bad input through the bridge: no tool error")
	}
	cs.Close() // closes the bridge's stdin: it ends
	if err := <-b.done; err != nil {
		t.Errorf("ServeStdio after stdin ended: %v", err)
	}
	b.done <- nil // for the cleanup
}

func TestServeStdioRefusedToken(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	revoked := s.NewToken("a1")
	s.Revoke("a1")
	for name, token := range map[string]string{"revoked": revoked, "wrong": newToken()} {
		t.Run(name, func(t *testing.T) {
			inR, inW := io.Pipe()
			go func() {
				io.WriteString(inW, token+"\n")
			}()
			err := ServeStdio(t.Context(), StdioOptions{URL: s.URL(), In: inR, Out: io.Discard})
			inW.Close()
			if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
				t.Errorf("ServeStdio: %v, want a 401 error", err)
			}
		})
	}
}

func TestServeStdioRevokedMidway(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	b := startBridge(t, s.URL())
	if _, err := b.agentSession(t, s.NewToken("a1")); err != nil {
		t.Fatal(err)
	}
	s.Revoke("a1")
	err := <-b.done
	if !errors.Is(err, errUpstreamGone) {
		t.Errorf("ServeStdio: %v, want %v", err, errUpstreamGone)
	}
	b.done <- err
}

func TestServeStdioBadStart(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	tok := s.NewToken("a1")
	tests := []struct {
		name, url, stdin string
		wantErr          error
	}{
		{name: "remote URL", url: "http://192.0.2.1:80/mcp", stdin: tok + "\n", wantErr: ErrNotLoopback},
		{name: "https URL", url: strings.Replace(s.URL(), "http:", "https:", 1), stdin: tok + "\n", wantErr: ErrNotLoopback},
		{name: "named host", url: "http://example.com/mcp", stdin: tok + "\n", wantErr: ErrNotLoopback},
		{name: "not a URL", url: "http://[::1", stdin: tok + "\n"},
		{name: "empty URL", url: "", stdin: tok + "\n", wantErr: ErrNotLoopback},
		{name: "no token", url: s.URL(), stdin: ""},
		{name: "MCP message first", url: s.URL(), stdin: initializeBody + "\n"},
		{name: "blank first line", url: s.URL(), stdin: "\n" + tok + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ServeStdio(t.Context(), StdioOptions{URL: tt.url, In: strings.NewReader(tt.stdin), Out: io.Discard})
			if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Errorf("ServeStdio: %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestReadToken(t *testing.T) {
	long := strings.Repeat("a", 5000)
	tests := []struct {
		name, in, want string
		wantErr        bool
		wantRest       string
	}{
		{name: "line", in: "abc-_.~+/9==\n{}", want: "abc-_.~+/9==", wantRest: "{}"},
		{name: "CRLF", in: "tok\r\nrest", want: "tok", wantRest: "rest"},
		{name: "no newline", in: "tok", want: "tok"},
		{name: "empty", in: "", wantErr: true},
		{name: "empty line", in: "\nrest", wantErr: true},
		{name: "JSON object", in: `{"jsonrpc":"2.0"}` + "\n", wantErr: true},
		{name: "JSON batch", in: " [{}]\n", wantErr: true},
		{name: "space inside", in: "a b\n", wantErr: true},
		{name: "Bearer prefix", in: "Bearer tok\n", wantErr: true},
		{name: "padding only", in: "==\n", wantErr: true},
		{name: "padding inside", in: "a=b\n", wantErr: true},
		{name: "control byte", in: "a\x00b\n", wantErr: true},
		{name: "non-ASCII", in: "jeton-é\n", wantErr: true},
		{name: "too long", in: long + "\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReader(strings.NewReader(tt.in))
			got, err := readToken(r)
			if (err != nil) != tt.wantErr {
				t.Fatalf("readToken: %q, %v; want error %v", got, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("token (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			rest, _ := io.ReadAll(r)
			if diff := cmp.Diff(tt.wantRest, string(rest)); diff != "" {
				t.Errorf("what follows the token (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServeStdioCancel(t *testing.T) {
	asker := newBlockingAsker()
	s := start(t, asker.ask)
	b := startBridge(t, s.URL())
	cs, err := b.agentSession(t, s.NewToken("a1"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	callErr := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, askParams())
		callErr <- err
	}()
	<-asker.started
	cancel()
	if err := <-callErr; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool: %v, want context.Canceled", err)
	}
	if cause := <-asker.ended; !errors.Is(cause, context.Canceled) {
		t.Errorf("question behind the bridge ended by %v, want context.Canceled", cause)
	}
}

func TestStdioEntryFileGivesTheTokenOnceThroughAFile(t *testing.T) {
	rec := &recorder{answers: [][]string{{"x"}}}
	s := start(t, rec.ask)
	entry, err := s.StdioEntryFile("file-agent", "/bin/escouade-plugin", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var e struct{ Args []string }
	if err := json.Unmarshal(entry, &e); err != nil || len(e.Args) != 5 || e.Args[3] != "--token-file" {
		t.Fatalf("entry %s: %v", entry, err)
	}
	info, err := os.Stat(e.Args[4])
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", info, err)
	}
	token, err := ReadTokenFile(e.Args[4])
	if err != nil || strings.Contains(string(entry), token) {
		t.Fatalf("token %q, err %v: the entry must not hold it", token, err)
	}
	if _, err := os.Stat(e.Args[4]); !os.IsNotExist(err) {
		t.Errorf("the token file is still there once read: %v", err)
	}
	// The agent starts the bridge and speaks MCP from its first line.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- ServeStdio(t.Context(), StdioOptions{URL: s.URL(), Token: token, In: inR, Out: outW}) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "file-agent", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if res := callAsk(t, cs, `{"questions":[{"question":"Q?","options":[{"label":"x"}],"multiSelect":false}]}`); res.IsError {
		t.Errorf("tool error: %s", text(res))
	}
	cs.Close()
	inW.Close()
	outR.Close()
	<-done
}

func TestRevokeRemovesTheTokenFilesNoBridgeRead(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	var e struct{ Args []string }
	json.Unmarshal(s.StdioEntry("unused", "/bin/escouade-plugin"), &e)
	path := e.Args[len(e.Args)-1]
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("token file: %v", err)
	}
	s.Revoke("unused")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the token file outlives Revoke: %v", err)
	}
}
