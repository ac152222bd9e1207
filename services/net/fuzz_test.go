package net

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/services"
)

// anyResolver answers every name with a public address.
type anyResolver struct{}

func (anyResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr(publicAddr)}, nil
}

// FuzzParams: whatever the params, every method answers a refusal with a
// code its schema lists, or an answer; nothing leaves the machine (the
// connect refuses after the guard's hook has run).
func FuzzParams(f *testing.F) {
	for _, seed := range []string{
		`{"url":"https://slack.com/"}`, `{"url":"http://slack.com/","method":"TRACE"}`,
		`{"url":"https://slack.com/","headers":{"Host":"x"},"body":"!!","bodyEncoding":"base64"}`,
		`{"url":"wss://slack.com/ws","protocols":["a"]}`, `{"socket":1,"data":"x"}`, `{"stream":1}`,
		`{"socket":1,"code":1005}`, `null`, `[]`, `{"url":1}`, `{"url":"https://slack.com@10.0.0.1/"}`,
	} {
		f.Add(seed)
	}
	s, err := New(Config{PluginID: pluginID, Granted: manifest.Permissions{Network: []string{"slack.com", "10.0.0.1"}},
		Resolver: anyResolver{},
		Connect: func(ctx context.Context, network, address string, control netguard.ControlFunc) (net.Conn, error) {
			if err := control(ctx, "tcp4", address, nil); err != nil {
				return nil, err
			}
			return nil, errors.New("no network in this test")
		}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	codes := map[string][]int64{
		"net/fetch": {-32602, -32003, -32004}, "net/stream": {-32602, -32003, -32004}, "net/cancel": {-32602},
		"ws/open": {-32602, -32003, -32004}, "ws/send": {-32602, -32004}, "ws/close": {-32602},
	}
	f.Fuzz(func(t *testing.T, params string) {
		for method, handle := range s.Methods() {
			_, err := services.Call(context.Background(), handle, json.RawMessage(params))
			if err == nil {
				continue
			}
			var se *services.Error
			if !errors.As(err, &se) || !slices.Contains(codes[method], se.Code) || se.Reason == "" {
				t.Fatalf("%s %q: %v, not a refusal its schema lists", method, params, err)
			}
		}
	})
}

// FuzzJSONTextLen: the bound encodeFetchBody relies on is never below
// what encoding/json writes for valid UTF-8 text.
func FuzzJSONTextLen(f *testing.F) {
	for _, seed := range []string{"", "<&>", "\x00\u2028", "é\"\\"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if !utf8.Valid(text) {
			return
		}
		raw, err := json.Marshal(string(text))
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonTextLen(text); got < len(raw)-2 {
			t.Fatalf("jsonTextLen(%q) = %d, encoding/json writes %d", text, got, len(raw)-2)
		}
	})
}
