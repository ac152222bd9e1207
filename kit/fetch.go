package kit

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// methodNetFetch is the host's net/fetch (docs/protocol.md#netfetch).
const methodNetFetch = vocab.MethodNetFetch

// FetchRequest is one HTTP request for Fetch. Method "" is GET; the body is
// sent as text when it is valid UTF-8, in base64 otherwise.
type FetchRequest struct {
	URL    string
	Method string
	Header map[string]string
	Body   []byte
}

// FetchResponse is the host's answer: a redirect is not followed, so a 3xx
// comes back as it is. Header values of a repeated header are joined
// with ", "; Body is decoded (Content-Encoding undone by the host).
type FetchResponse struct {
	Status int
	Header map[string]string
	Body   []byte
}

// Fetch asks the host for an https request (net/fetch, WASM plugins
// only) to a host of permissions.network. The host refuses what the
// plugin may not reach with jsonrpc.ErrForbidden (-32003: another host,
// plain http, an address of the local network), and a request that fails
// on the way with jsonrpc.ErrFailed (-32004: time out, too large,
// unreachable, TLS); a process plugin gets jsonrpc.ErrMethodNotFound and
// uses net/http itself.
func (p *Plugin) Fetch(ctx context.Context, req FetchRequest) (*FetchResponse, error) {
	params := proto.FetchParams{URL: req.URL, Method: req.Method, Headers: proto.Headers(req.Header)}
	params.Body, params.BodyEncoding = encodeFetchBody(req.Body)
	raw, err := p.call(ctx, methodNetFetch, params)
	if err != nil {
		return nil, err
	}
	var answer proto.FetchResult
	if err := json.Unmarshal(raw, &answer); err != nil {
		return nil, badAnswer(methodNetFetch, "a fetch result", raw)
	}
	body, err := decodeFetchBody(answer.Body, answer.BodyEncoding)
	if err != nil {
		return nil, fmt.Errorf("kit: %s answered a body that does not decode: %w", methodNetFetch, err)
	}
	return &FetchResponse{Status: int(answer.Status), Header: map[string]string(answer.Headers), Body: body}, nil
}

func encodeFetchBody(body []byte) (string, proto.BodyEncoding) {
	switch {
	case len(body) == 0:
		return "", ""
	case utf8.Valid(body):
		return string(body), proto.BodyEncodingUTF8
	}
	return base64.StdEncoding.EncodeToString(body), proto.BodyEncodingBase64
}

func decodeFetchBody(body string, encoding proto.BodyEncoding) ([]byte, error) {
	switch encoding {
	case proto.BodyEncodingBase64:
		return base64.StdEncoding.DecodeString(body)
	case proto.BodyEncodingUTF8, "":
		return []byte(body), nil
	}
	return nil, fmt.Errorf("unknown bodyEncoding %q", encoding)
}
