package net

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// chunkBytes is the most one net/chunk carries.
const chunkBytes = 32 << 10

// errSilent is the cause a stream ends with after a gap of silence past
// the time limit.
var errSilent = errors.New("silent")

// stream serves net/stream: the answer when the headers arrive, then the
// body as net/chunk notifications and net/end. The size limit is on the
// sum of the chunks, the time limit on each gap of silence, the wait for
// the headers included.
func (s *Service) stream(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.FetchParams
	if bad := services.DecodeParams(params, &p); bad != nil {
		return nil, bad
	}
	if !s.reserveStream() {
		return nil, refused(fmt.Sprintf("%d streams are open, the most a plugin may hold", MaxStreams))
	}
	// The stream outlives the handler: it ends with Close, net/cancel,
	// its limits or its end.
	sctx, cancel := s.requestContext(context.WithoutCancel(ctx))
	req, target, bad := s.newRequest(sctx, p)
	if bad != nil {
		cancel(nil)
		s.releaseStream()
		return nil, bad
	}
	silence := s.afterFunc(s.timeout, func() { cancel(errSilent) })
	resp, err := s.client.Do(req)
	if err != nil {
		silence.Stop()
		defer cancel(nil)
		s.releaseStream()
		return nil, s.streamFailure(sctx, target, err)
	}
	id, ok := s.addStream(cancel)
	if !ok {
		silence.Stop()
		resp.Body.Close()
		cancel(nil)
		s.releaseStream()
		return nil, failed(target.URL.Redacted() + ": " + errClosed.Error())
	}
	r, decoded, err := decodedBody(resp)
	if err != nil {
		r = errReader{err}
	}
	answer := newStreamAnswer(proto.StreamResult{Stream: id, Status: int64(resp.StatusCode), Headers: answerHeaders(resp.Header, decoded)})
	s.wg.Go(func() {
		// The first chunk waits for the answer to be written, so the
		// plugin learns the stream's id before its data.
		select {
		case <-answer.sent:
		case <-sctx.Done():
		}
		s.pump(sctx, cancel, silence, id, target, resp, r)
	})
	return answer, nil
}

// streamAnswer is net/stream's answer. The connection tells it once the
// line holding it is written (jsonrpc.AnswerSent): that opens the way for
// the stream's notifications. (Told when it is encoded, a chunk could
// overtake it: the answer is encoded before its line is written, and a
// batch's answer waits for its every member.)
type streamAnswer struct {
	result proto.StreamResult
	sent   chan struct{}
	once   *sync.Once
}

func newStreamAnswer(r proto.StreamResult) streamAnswer {
	return streamAnswer{result: r, sent: make(chan struct{}), once: &sync.Once{}}
}

func (a streamAnswer) MarshalJSON() ([]byte, error) { return json.Marshal(a.result) }

// AnswerSent opens the way for the stream's chunks.
func (a streamAnswer) AnswerSent() { a.once.Do(func() { close(a.sent) }) }

// streamFailure is failure with the stream's time limit, which is on
// silence rather than on the whole request.
func (s *Service) streamFailure(ctx context.Context, t netguard.Target, err error) error {
	if errors.Is(context.Cause(ctx), errSilent) {
		return failed(s.silenceSentence(t))
	}
	return s.failure(ctx, t, err)
}

func (s *Service) silenceSentence(t netguard.Target) string {
	return fmt.Sprintf("%s: nothing received for %d ms", t.URL.Redacted(), s.timeout.Milliseconds())
}

// reserveStream takes one of the MaxStreams slots of the instance, false
// when none is left or the instance ended.
func (s *Service) reserveStream() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.streamSlots >= MaxStreams {
		return false
	}
	s.streamSlots++
	return true
}

// releaseStream gives back a slot of reserveStream.
func (s *Service) releaseStream() {
	s.mu.Lock()
	s.streamSlots--
	s.mu.Unlock()
}

func (s *Service) addStream(cancel context.CancelCauseFunc) (proto.StreamID, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, false
	}
	s.nextStream++
	s.streams[s.nextStream] = cancel
	return s.nextStream, true
}

// removeStream forgets an ended stream and gives back its slot.
func (s *Service) removeStream(id proto.StreamID) {
	s.mu.Lock()
	delete(s.streams, id)
	s.streamSlots--
	s.mu.Unlock()
}

// pump reads the body and notifies it chunk by chunk, then net/end.
func (s *Service) pump(ctx context.Context, cancel context.CancelCauseFunc, silence Timer, id proto.StreamID, t netguard.Target, resp *http.Response, r io.Reader) {
	end := proto.NetEndParams{Stream: id}
	if err := s.copyChunks(silence, id, r); err != nil {
		end.Error = s.streamEndError(ctx, t, err)
	}
	// Its connection and slot are given back before net/end: a plugin
	// that opens the next stream on it is not refused.
	resp.Body.Close()
	silence.Stop()
	cancel(nil)
	s.removeStream(id)
	s.notify(vocab.MethodNetEnd, end)
}

// copyChunks sends the body as net/chunk notifications, resetting the
// silence timer at each one.
func (s *Service) copyChunks(silence Timer, id proto.StreamID, r io.Reader) error {
	body := &capped{r: r, max: s.maxBytes}
	buf := make([]byte, chunkBytes)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			silence.Reset(s.timeout)
			data, encoding := encodeBody(buf[:n])
			if errors.Is(err, errTooLarge) {
				return err // the chunk that passes the limit is not sent
			}
			s.notify(vocab.MethodNetChunk, proto.NetChunkParams{Stream: id, Data: data, BodyEncoding: encoding})
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// streamEndError is net/end's error: the sentence a failure would have.
func (s *Service) streamEndError(ctx context.Context, t netguard.Target, err error) string {
	if errors.Is(context.Cause(ctx), errSilent) {
		return s.silenceSentence(t)
	}
	return s.failure(ctx, t, err).Reason
}

func (s *Service) notify(method string, params any) {
	if s.cfg.Peer == nil || s.ctx.Err() != nil {
		return
	}
	// A notification that cannot be sent means the instance is ending:
	// Close will follow.
	_ = s.cfg.Peer.Notify(method, params)
}

// cancelStream serves net/cancel: the stream ends with net/end saying so.
func (s *Service) cancelStream(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.StreamRef
	if bad := services.DecodeParams(params, &p); bad != nil {
		return nil, bad
	}
	s.mu.Lock()
	cancel, ok := s.streams[p.Stream]
	s.mu.Unlock()
	if !ok {
		return nil, services.InvalidParams("params.stream %d is no stream under way", p.Stream)
	}
	cancel(errCanceled)
	return nil, nil
}

// errReader is a body that fails at once: its encoding is undecodable.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
