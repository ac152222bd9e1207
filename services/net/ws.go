package net

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// socket is one websocket of ws/open.
type socket struct {
	id   proto.SocketID
	conn *websocket.Conn
	url  string
	// closing is the close ws/close asked for, once it did: the reads may
	// end on the closed connection before they see the peer's answer.
	closing atomic.Pointer[proto.WsClosedParams]
}

// maxCloseReason is the longest close reason a close frame carries.
const maxCloseReason = 123

// wsOpen serves ws/open: the socket's id once the handshake is done; its
// messages follow as ws/message, its end as ws/closed.
func (s *Service) wsOpen(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.WsOpenParams
	if bad := services.DecodeParams(params, &p); bad != nil {
		return nil, bad
	}
	target, refusal := s.policy.CheckURL(p.URL, netguard.WebSocket)
	if refusal != nil {
		return nil, refused(refusal.Reason)
	}
	header := http.Header{}
	if bad := setHeaders(header, p.Headers); bad != nil {
		return nil, bad
	}
	dropHandshakeHeaders(header)
	if !s.reserveSocket() {
		return nil, refused(fmt.Sprintf("%d sockets are open, the most a plugin may hold", MaxSockets))
	}
	conn, err := s.dialSocket(ctx, target, header, p.Protocols)
	if err != nil {
		s.releaseSocket(nil)
		return nil, err
	}
	sock := s.addSocket(conn, target.URL.Redacted())
	if sock == nil {
		conn.CloseNow()
		return nil, failed(target.URL.Redacted() + ": " + errClosed.Error())
	}
	s.wg.Go(func() { s.readSocket(sock) })
	return proto.SocketRef{Socket: sock.id}, nil
}

// dialSocket does the handshake within the time limit.
func (s *Service) dialSocket(ctx context.Context, target netguard.Target, header http.Header, protocols []string) (*websocket.Conn, *services.Error) {
	dctx, cancel := s.within(ctx)
	defer cancel()
	conn, resp, err := websocket.Dial(dctx, target.URL.String(), &websocket.DialOptions{
		HTTPClient: s.wsClient, HTTPHeader: header, Subprotocols: protocols})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, failed(fmt.Sprintf("%s: the server answered %d, not a websocket", target.URL.Redacted(), resp.StatusCode))
		}
		return nil, s.failure(dctx, target, err)
	}
	conn.SetReadLimit(MaxMessageBytes)
	return conn, nil
}

// dropHandshakeHeaders leaves the handshake's own headers to the library.
func dropHandshakeHeaders(h http.Header) {
	for name := range h {
		if strings.HasPrefix(name, "Sec-Websocket-") {
			delete(h, name)
		}
	}
}

// reserveSocket counts a socket being opened against the limit, so
// concurrent ws/open calls cannot pass it together.
func (s *Service) reserveSocket() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || len(s.sockets) >= MaxSockets {
		return false
	}
	s.nextSocket++
	s.sockets[s.nextSocket] = nil
	return true
}

// releaseSocket gives back a reservation (sock nil) or a socket.
func (s *Service) releaseSocket(sock *socket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, v := range s.sockets {
		if v == sock {
			delete(s.sockets, id)
			return
		}
	}
}

// addSocket turns a reservation into the socket.
func (s *Service) addSocket(conn *websocket.Conn, url string) *socket {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, v := range s.sockets {
		if v == nil {
			if s.closed {
				delete(s.sockets, id)
				return nil
			}
			sock := &socket{id: id, conn: conn, url: url}
			s.sockets[id] = sock
			return sock
		}
	}
	return nil
}

// readSocket notifies each message, then the close.
func (s *Service) readSocket(sock *socket) {
	for {
		typ, data, err := sock.conn.Read(s.ctx)
		if err != nil {
			code, reason := closeOf(err)
			var ce websocket.CloseError
			if asked := sock.closing.Load(); asked != nil && !errors.As(err, &ce) {
				code, reason = asked.Code, asked.Reason
			}
			sock.conn.CloseNow()
			// Gone before the plugin hears of it: a ws/send after
			// ws/closed names no socket.
			s.releaseSocket(sock)
			s.notify(vocab.MethodWsClosed, proto.WsClosedParams{Socket: sock.id, Code: code, Reason: reason})
			return
		}
		msg := proto.WsMessageParams{Socket: sock.id, Binary: typ == websocket.MessageBinary}
		if msg.Binary || !utf8.Valid(data) {
			msg.Binary, msg.Data = true, base64.StdEncoding.EncodeToString(data)
		} else {
			msg.Data = string(data)
		}
		s.notify(vocab.MethodWsMessage, msg)
	}
}

// closeOf gives the code and reason ws/closed reports for the error that
// ended the reads.
func closeOf(err error) (int64, string) {
	var ce websocket.CloseError
	switch {
	case errors.As(err, &ce):
		return int64(ce.Code), ce.Reason
	case errors.Is(err, websocket.ErrMessageTooBig):
		return int64(websocket.StatusMessageTooBig), fmt.Sprintf("a message over the limit of %d bytes", MaxMessageBytes)
	case errors.Is(err, context.Canceled):
		return int64(websocket.StatusGoingAway), "the instance ended"
	}
	return int64(websocket.StatusAbnormalClosure), err.Error()
}

func (s *Service) socketOf(id proto.SocketID) (*socket, *services.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sock := s.sockets[id]
	if sock == nil {
		return nil, services.InvalidParams("params.socket %d is no open socket", id)
	}
	return sock, nil
}

// wsSend serves ws/send.
func (s *Service) wsSend(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.WsSendParams
	if bad := services.DecodeParams(params, &p); bad != nil {
		return nil, bad
	}
	sock, bad := s.socketOf(p.Socket)
	if bad != nil {
		return nil, bad
	}
	typ, data := websocket.MessageText, []byte(p.Data)
	if p.Binary {
		decoded, err := base64.StdEncoding.DecodeString(p.Data)
		if err != nil {
			return nil, services.InvalidParams("params.data is not valid base64")
		}
		typ, data = websocket.MessageBinary, decoded
	}
	if len(data) > MaxMessageBytes {
		return nil, failed(fmt.Sprintf("%s: a message of %d bytes, over the limit of %d", sock.url, len(data), MaxMessageBytes))
	}
	wctx, cancel := s.within(ctx)
	defer cancel()
	if err := sock.conn.Write(wctx, typ, data); err != nil {
		return nil, failed(fmt.Sprintf("%s: the message could not be sent: %v", sock.url, err))
	}
	return nil, nil
}

// wsClose serves ws/close: the close handshake runs on, ws/closed follows.
func (s *Service) wsClose(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WsCloseParams
	if bad := services.DecodeParams(params, &p); bad != nil {
		return nil, bad
	}
	code := websocket.StatusNormalClosure
	if p.Code != 0 {
		if !sendableCode(p.Code) {
			return nil, services.InvalidParams("params.code %d is not a code a close frame may carry (1000-1003, 1007-1014, 3000-4999)", p.Code)
		}
		code = websocket.StatusCode(p.Code)
	}
	if len(p.Reason) > maxCloseReason {
		return nil, services.InvalidParams("params.reason is over %d bytes", maxCloseReason)
	}
	sock, bad := s.socketOf(p.Socket)
	if bad != nil {
		return nil, bad
	}
	sock.closing.CompareAndSwap(nil, &proto.WsClosedParams{Socket: sock.id, Code: int64(code), Reason: p.Reason})
	s.wg.Go(func() { sock.conn.Close(code, p.Reason) })
	return nil, nil
}

// sendableCode reports a close code an endpoint may send (RFC 6455 §7.4):
// 1004-1006 and 1015 are reserved, 1016-2999 unassigned.
func sendableCode(code int64) bool {
	return code >= 1000 && code <= 1003 || code >= 1007 && code <= 1014 || code >= 3000 && code <= 4999
}
