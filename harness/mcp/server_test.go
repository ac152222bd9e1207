package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStartRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{
		"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "10.0.0.1:0",
		"example.com:0", "[fe80::1%lo]:0", "[::ffff:192.0.2.1]:0", "localhost.example.com:0",
	} {
		t.Run(addr, func(t *testing.T) {
			s, err := Start(t.Context(), Options{Addr: addr, Ask: (&recorder{}).ask})
			if !errors.Is(err, ErrNotLoopback) {
				if s != nil {
					s.Close()
				}
				t.Errorf("Start: %v, want ErrNotLoopback", err)
			}
		})
	}
}

func TestStartBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"no Asker", Options{}},
		{"no port", Options{Addr: "127.0.0.1", Ask: (&recorder{}).ask}},
		{"bad port", Options{Addr: "127.0.0.1:http-alt-x", Ask: (&recorder{}).ask}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s, err := Start(t.Context(), tt.opts); err == nil {
				s.Close()
				t.Error("Start succeeded")
			}
		})
	}
}

func TestStartOnLoopback(t *testing.T) {
	for _, addr := range []string{"", "127.0.0.1:0", "localhost:0", "[::1]:0", "[::ffff:127.0.0.1]:0"} {
		t.Run(addr, func(t *testing.T) {
			s, err := Start(t.Context(), Options{Addr: addr, Ask: (&recorder{}).ask})
			if errors.Is(err, ErrNotLoopback) {
				t.Fatalf("Start: %v", err)
			}
			if err != nil {
				t.Skipf("cannot listen on %s here: %v", addr, err)
			}
			defer s.Close()
			if !strings.HasPrefix(s.URL(), "http://") || !strings.HasSuffix(s.URL(), endpointPath) {
				t.Errorf("URL %q", s.URL())
			}
			mustConnect(t, s.URL(), s.NewToken("a1"))
		})
	}
}

func TestStartCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if s, err := Start(ctx, Options{Ask: (&recorder{}).ask}); err == nil {
		s.Close()
		t.Error("Start succeeded with a cancelled context")
	}
}

func TestClose(t *testing.T) {
	b := newBlockingAsker()
	s, err := Start(t.Context(), Options{Ask: b.ask})
	if err != nil {
		t.Fatal(err)
	}
	cs := mustConnect(t, s.URL(), s.NewToken("a1"))
	go cs.CallTool(t.Context(), askParams())
	<-b.started
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if diff := cmp.Diff(errServerClosed.Error(), errText(<-b.ended)); diff != "" {
		t.Errorf("pending question ended by (-want +got):\n%s", diff)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL(), strings.NewReader(initializeBody))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("server still answers after Close: %s", resp.Status)
	}
	if _, err := cs.ListTools(t.Context(), nil); err == nil {
		t.Error("session still answers after Close")
	}
}

func TestCloseIdle(t *testing.T) {
	s, err := Start(t.Context(), Options{Ask: (&recorder{}).ask})
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(s.URL(), "http://"), endpointPath)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Error("still listening after Close")
	}
}

func TestHTTPEntry(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	tok := s.NewToken("a1")
	want := `{"type":"http","name":"escouade","url":"` + s.URL() +
		`","headers":[{"name":"Authorization","value":"Bearer ` + tok + `"}]}`
	if diff := cmp.Diff(want, string(s.HTTPEntry("a1"))); diff != "" {
		t.Errorf("HTTPEntry (-want +got):\n%s", diff)
	}
}

func TestHTTPEntryIssuesAToken(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	var entry struct {
		Headers []struct{ Name, Value string }
	}
	if err := json.Unmarshal(s.HTTPEntry("fresh"), &entry); err != nil {
		t.Fatal(err)
	}
	tok, ok := strings.CutPrefix(entry.Headers[0].Value, "Bearer ")
	if !ok {
		t.Fatalf("header %q", entry.Headers[0].Value)
	}
	mustConnect(t, s.URL(), tok)
	var again struct {
		Headers []struct{ Name, Value string }
	}
	json.Unmarshal(s.HTTPEntry("fresh"), &again)
	if diff := cmp.Diff(entry, again); diff != "" {
		t.Errorf("a second HTTPEntry changed the token (-first +second):\n%s", diff)
	}
}

func TestStdioEntry(t *testing.T) {
	s := start(t, (&recorder{}).ask)
	tok := s.NewToken("a1")
	raw := s.StdioEntry("a1", "/opt/escouade/escouade-plugin")
	var got struct {
		Name, Command string
		Args          []string
		Env           []any
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Args) != 5 {
		t.Fatalf("args %q, want mcp-stdio --url URL --token-file PATH", got.Args)
	}
	path := got.Args[4]
	got.Args[4] = "PATH"
	want := []string{"mcp-stdio", "--url", s.URL(), "--token-file", "PATH"}
	if diff := cmp.Diff(want, got.Args); diff != "" || got.Name != "escouade" || got.Command != "/opt/escouade/escouade-plugin" || len(got.Env) != 0 {
		t.Errorf("StdioEntry %s (-want +got args):\n%s", raw, diff)
	}
	if strings.Contains(string(raw), tok) {
		t.Error("the token is in the stdio entry")
	}
	if file, err := ReadTokenFile(path); err != nil || file != tok {
		t.Errorf("token file holds %q (%v), want the agent's token", file, err)
	}
	s.Close()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("the token folder outlives Close: %v", err)
	}
}
