package net

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// The causes a request's context ends with, besides the handler's own.
var (
	errTimedOut = errors.New("timed out")
	errClosed   = errors.New("the instance ended")
	errCanceled = errors.New("canceled by " + vocab.MethodNetCancel)
)

// fetch serves net/fetch: one request, its whole body in the answer.
func (s *Service) fetch(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.FetchParams
	if bad := services.DecodeParams(params, &p); bad != nil {
		return nil, bad
	}
	// One limit for connect, headers and body together.
	ctx, cancel := s.within(ctx)
	defer cancel()
	req, target, bad := s.newRequest(ctx, p)
	if bad != nil {
		return nil, bad
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, s.failure(ctx, target, err)
	}
	defer resp.Body.Close()
	h := &held{sem: s.inFlight, waits: s.waitsForRoom}
	defer h.release()
	body, decoded, err := s.readBody(ctx, resp, h)
	if err != nil {
		return nil, s.failure(ctx, target, err)
	}
	text, encoding := encodeFetchBody(body)
	return proto.FetchResult{Status: int64(resp.StatusCode), Headers: answerHeaders(resp.Header, decoded),
		Body: text, BodyEncoding: encoding}, nil
}

// requestContext ends with the handler's context, with Close, or with the
// cause given to its cancel.
func (s *Service) requestContext(parent context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	stop := context.AfterFunc(s.ctx, func() { cancel(errClosed) })
	return ctx, func(cause error) {
		stop()
		cancel(cause)
	}
}

// within bounds a request by the time limit and Close. On the real clock
// the limit is a deadline, which the dialer shares among the addresses of
// a name; an injected clock cancels at its own time instead.
func (s *Service) within(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := s.requestContext(parent)
	if s.cfg.AfterFunc == nil {
		tctx, tcancel := context.WithTimeoutCause(ctx, s.timeout, errTimedOut)
		return tctx, func() { tcancel(); cancel(nil) }
	}
	timer := s.cfg.AfterFunc(s.timeout, func() { cancel(errTimedOut) })
	return ctx, func() { timer.Stop(); cancel(nil) }
}

// readBody reads the decoded body within the size limit, taking its
// bytes from those in flight as they come, not the whole limit up front.
func (s *Service) readBody(ctx context.Context, resp *http.Response, h *held) ([]byte, bool, error) {
	r, decoded, err := decodedBody(resp)
	if err != nil {
		return nil, false, err
	}
	body := &capped{r: r, max: s.fetchMax}
	var data bytes.Buffer
	chunk := make([]byte, chunkBytes)
	for {
		if err := h.take(ctx, chunkBytes); err != nil {
			return nil, false, err
		}
		n, err := body.Read(chunk)
		data.Write(chunk[:n])
		h.give(int64(chunkBytes - n))
		switch {
		case errors.Is(err, io.EOF):
			return data.Bytes(), decoded, nil
		case errors.Is(err, errTooLarge) && s.fetchMax < s.maxBytes:
			return nil, false, errFetchTooLarge
		case err != nil:
			return nil, false, err
		}
	}
}

// failure turns the error of a request into its refusal (-32003) or its
// failure on the way (-32004), with the journal sentence.
func (s *Service) failure(ctx context.Context, t netguard.Target, err error) *services.Error {
	var refusal *netguard.Refusal
	if errors.As(err, &refusal) {
		return refused(refusal.Reason)
	}
	where := t.URL.Redacted()
	switch cause := context.Cause(ctx); {
	case errors.Is(err, errWaitedForRoom) && errors.Is(cause, errTimedOut):
		return failed(fmt.Sprintf("%s: no room within %d ms: %s", where, s.timeout.Milliseconds(), noRoomSentence()))
	case errors.Is(cause, errTimedOut):
		return failed(fmt.Sprintf("%s: no complete answer within %d ms", where, s.timeout.Milliseconds()))
	case errors.Is(cause, errClosed), errors.Is(cause, errCanceled):
		return failed(fmt.Sprintf("%s: %v", where, cause))
	}
	return failed(where + ": " + describe(err, s.maxBytes))
}

// describe says what went wrong on the way, without the URL the errors of
// net/http repeat.
func describe(err error, maxBytes int64) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	var (
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		verify    *tls.CertificateVerificationError
		record    tls.RecordHeaderError
	)
	switch {
	case errors.Is(err, errFetchTooLarge):
		return fmt.Sprintf("the body is over the %d bytes a %s answer carries (limits.netMaxBytes %d holds for %s): read it through %s",
			MaxFetchBytes, vocab.MethodNetFetch, maxBytes, vocab.MethodNetStream, vocab.MethodNetStream)
	case errors.Is(err, errTooLarge):
		return fmt.Sprintf("the body is over the limit of %d bytes", maxBytes)
	case errors.Is(err, errNoRoom):
		return noRoomSentence()
	case errors.Is(err, errUndecodable):
		return "the body is in " + err.Error()
	case badEncoding(err):
		return "the body cannot be decoded: " + err.Error()
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid),
		errors.As(err, &verify), errors.As(err, &record):
		return "TLS: " + err.Error()
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed before the end of the body"
	}
	return "unreachable: " + err.Error()
}
