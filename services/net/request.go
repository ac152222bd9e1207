package net

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
	"golang.org/x/net/http/httpguts"
)

// droppedHeader reports the headers of the plugin the host never sends:
// those of docs/protocol.md#netfetch, and Accept-Encoding, which the host sets itself so that
// it can decode every body before counting it.
func droppedHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Host", "Connection", "Transfer-Encoding", "Accept-Encoding", "Content-Length", "Keep-Alive", "Te", "Upgrade":
		return true
	}
	return strings.HasPrefix(strings.ToLower(name), "proxy-")
}

// newRequest judges and builds the request of a net/fetch or net/stream.
func (s *Service) newRequest(ctx context.Context, p proto.FetchParams) (*http.Request, netguard.Target, *services.Error) {
	method := p.Method
	if method == "" {
		method = http.MethodGet
	}
	if !httpguts.ValidHeaderFieldName(method) {
		return nil, netguard.Target{}, services.InvalidParams("params.method %q is not an HTTP method", method)
	}
	if strings.EqualFold(method, http.MethodConnect) || strings.EqualFold(method, http.MethodTrace) {
		return nil, netguard.Target{}, refused("the method " + strings.ToUpper(method) + " is not allowed")
	}
	target, refusal := s.policy.CheckURL(p.URL, netguard.HTTP)
	if refusal != nil {
		return nil, netguard.Target{}, refused(refusal.Reason)
	}
	body, bad := decodeBody(p.Body, p.BodyEncoding)
	if bad != nil {
		return nil, netguard.Target{}, bad
	}
	req, err := http.NewRequestWithContext(ctx, method, target.URL.String(), body)
	if err != nil {
		return nil, netguard.Target{}, services.InvalidParams("the request cannot be built: %v", err)
	}
	if bad := setHeaders(req.Header, p.Headers); bad != nil {
		return nil, netguard.Target{}, bad
	}
	req.Header.Set("Accept-Encoding", "gzip, deflate")
	return req, target, nil
}

func decodeBody(body string, encoding proto.BodyEncoding) (io.Reader, *services.Error) {
	if body == "" {
		return nil, nil
	}
	switch encoding {
	case "", proto.BodyEncodingUTF8:
		return strings.NewReader(body), nil
	case proto.BodyEncodingBase64:
		data, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			return nil, services.InvalidParams("params.body is not valid base64")
		}
		return bytes.NewReader(data), nil
	}
	return nil, services.InvalidParams("params.bodyEncoding must be utf8 or base64")
}

// setHeaders copies the plugin's headers, dropping those the host never
// sends and refusing names and values HTTP cannot carry.
func setHeaders(h http.Header, headers proto.Headers) *services.Error {
	for name, value := range headers {
		if !httpguts.ValidHeaderFieldName(name) {
			return services.InvalidParams("params.headers: %q is not a header name", name)
		}
		if !httpguts.ValidHeaderFieldValue(value) {
			return services.InvalidParams("params.headers.%s holds a character a header cannot carry", name)
		}
		if !droppedHeader(name) {
			h.Set(name, value)
		}
	}
	return nil
}

// answerHeaders joins repeated headers with ", ". When the body was
// decoded, its encoding and encoded length no longer describe it.
func answerHeaders(h http.Header, decoded bool) proto.Headers {
	out := make(proto.Headers, len(h))
	for name, values := range h {
		if decoded && (name == "Content-Encoding" || name == "Content-Length") {
			continue
		}
		out[name] = strings.Join(values, ", ")
	}
	return out
}

// encodeBody writes a body as a string: as is when it is UTF-8 text,
// base64 otherwise.
func encodeBody(data []byte) (string, proto.BodyEncoding) {
	if utf8.Valid(data) {
		return string(data), proto.BodyEncodingUTF8
	}
	return base64.StdEncoding.EncodeToString(data), proto.BodyEncodingBase64
}
