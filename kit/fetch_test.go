package kit

import (
	"context"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

func TestFetch(t *testing.T) {
	tests := []struct {
		name      string
		req       FetchRequest
		answer    hostHandler
		wantAsked string
		want      serviceResult
	}{
		{"text both ways", FetchRequest{URL: "https://api.example.com/x", Method: "POST", Header: map[string]string{"X-A": "1"}, Body: []byte("hi")},
			answerRaw(`{"status":200,"headers":{"Set-Cookie":"a=1, b=2"},"body":"ok","bodyEncoding":"utf8"}`),
			`net/fetch {"url":"https://api.example.com/x","method":"POST","headers":{"X-A":"1"},"body":"hi","bodyEncoding":"utf8"}`,
			serviceResult{Value: &FetchResponse{Status: 200, Header: map[string]string{"Set-Cookie": "a=1, b=2"}, Body: []byte("ok")}}},
		{"binary both ways", FetchRequest{URL: "https://api.example.com/b", Body: []byte{0xff, 0}},
			answerRaw(`{"status":200,"headers":{},"body":"/wA=","bodyEncoding":"base64"}`),
			`net/fetch {"url":"https://api.example.com/b","body":"/wA=","bodyEncoding":"base64"}`,
			serviceResult{Value: &FetchResponse{Status: 200, Header: map[string]string{}, Body: []byte{0xff, 0}}}},
		{"a redirect comes back", FetchRequest{URL: "https://api.example.com/r"},
			answerRaw(`{"status":302,"headers":{"Location":"/there"},"body":"","bodyEncoding":"utf8"}`),
			`net/fetch {"url":"https://api.example.com/r"}`,
			serviceResult{Value: &FetchResponse{Status: 302, Header: map[string]string{"Location": "/there"}, Body: []byte{}}}},
		{"refused", FetchRequest{URL: "http://api.example.com/"}, answerError(jsonrpc.ErrForbidden),
			`net/fetch {"url":"http://api.example.com/"}`, serviceResult{Code: -32003, Err: jsonrpc.ErrForbidden.Error()}},
		{"refused with the host's reason", FetchRequest{URL: "https://example.org/"},
			answerError(jsonrpc.ErrForbidden.WithReason("example.org is not in permissions.network of dev.x")),
			`net/fetch {"url":"https://example.org/"}`,
			serviceResult{Code: -32003, Err: jsonrpc.ErrForbidden.Error() + " (example.org is not in permissions.network of dev.x)"}},
		{"failed on the way", FetchRequest{URL: "https://api.example.com/"}, answerError(jsonrpc.ErrFailed),
			`net/fetch {"url":"https://api.example.com/"}`, serviceResult{Code: -32004, Err: jsonrpc.ErrFailed.Error()}},
		{"not a result", FetchRequest{URL: "https://api.example.com/"}, answerRaw(`"x"`),
			`net/fetch {"url":"https://api.example.com/"}`, serviceResult{Err: `kit: net/fetch answered "x", not a fetch result`}},
		{"a body that does not decode", FetchRequest{URL: "https://api.example.com/"}, answerRaw(`{"status":200,"headers":{},"body":"!","bodyEncoding":"base64"}`),
			`net/fetch {"url":"https://api.example.com/"}`, serviceResult{Err: "kit: net/fetch answered a body that does not decode: illegal base64 data at input byte 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked, got := callService(t, tt.answer, func(ctx context.Context, p *Plugin) (any, error) {
				return p.Fetch(ctx, tt.req)
			})
			if diff := cmp.Diff(tt.wantAsked, asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Fetch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFetchNotConnected(t *testing.T) {
	p, _ := quietPlugin()
	if _, err := p.Fetch(context.Background(), FetchRequest{URL: "https://x/"}); err != ErrNotConnected {
		t.Errorf("Fetch before Run: %v, want ErrNotConnected", err)
	}
}
