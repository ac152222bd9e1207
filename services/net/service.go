package net

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
	"golang.org/x/sync/semaphore"
)

// The limits of docs/protocol.md#netfetch and #netstream.
const (
	DefaultTimeout  = protocol.NetTimeout
	MaxTimeout      = protocol.NetMaxTimeout
	DefaultMaxBytes = protocol.NetBodyBytes
	MaxMaxBytes     = protocol.MaxNetMaxBytes
	MaxSockets      = protocol.WsMaxSockets
	MaxStreams      = protocol.NetMaxStreams
	MaxMessageBytes = protocol.WsMessageBytes
)

// TagNet is the journal tag of the network's own lines (the proxy).
const TagNet = "net"

// Timer is a timer of the service's clock; *time.Timer is one.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// Config is what a Service is made from. Zero injection fields mean the
// real network and clock.
type Config struct {
	PluginID string
	// Granted is what the user granted now; only Network is read.
	Granted manifest.Permissions
	// Limits is the manifest's limits.
	Limits manifest.Limits
	// Journal writes a journal line (tag, text).
	Journal func(tag, text string)
	// Peer receives net/chunk, net/end, ws/message and ws/closed.
	Peer services.Peer
	// AccountHosts are the hosts ({account}) of the accounts the user
	// typed, host[:port]; LocalShared the harnesses' local servers
	// (local:shared), host:port.
	AccountHosts []string
	LocalShared  []string
	// Proxy is the app's proxy URL (http, https or socks5), or "".
	Proxy string

	// Resolver and Connect replace the system's resolver and the plain
	// net.Dialer of the guard (tests).
	Resolver netguard.Resolver
	Connect  netguard.ConnectFunc
	// TLS is the base TLS configuration (tests give their RootCAs).
	TLS *tls.Config
	// AfterFunc is the clock of the time limits; nil is time.AfterFunc.
	AfterFunc func(d time.Duration, f func()) Timer
}

// Service is the network of one instance of a program.
type Service struct {
	cfg      Config
	policy   *netguard.Policy
	shared   *netguard.Policy // local:shared alone: what skips the proxy
	proxy    *url.URL
	client   *http.Client // net/fetch, net/stream
	wsClient *http.Client // ws/open: HTTP/1.1 only
	timeout  time.Duration
	maxBytes int64 // limits.netMaxBytes within its ceiling: net/stream's
	fetchMax int64 // maxBytes within MaxFetchBytes: net/fetch's
	inFlight *semaphore.Weighted
	// waitsForRoom, when set, is told each time a fetch waits for room
	// among the bytes in flight (tests).
	waitsForRoom func()

	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once // the proxy's journal line

	mu         sync.Mutex
	closed     bool
	nextStream proto.StreamID
	streams    map[proto.StreamID]context.CancelCauseFunc
	// streamSlots counts the streams open and those whose request is on
	// its way: each holds a connection, so at most MaxStreams.
	streamSlots int
	nextSocket  proto.SocketID
	sockets     map[proto.SocketID]*socket
}

// New makes the network of one instance. A proxy URL that does not parse
// is an error: the app's settings are wrong, and requests must not go out
// directly instead.
func New(c Config) (*Service, error) {
	s := &Service{cfg: c, streams: map[proto.StreamID]context.CancelCauseFunc{}, sockets: map[proto.SocketID]*socket{}}
	s.policy = netguard.NewPolicy(netguard.Config{PluginID: c.PluginID, Network: c.Granted.Network,
		AccountHosts: c.AccountHosts, LocalShared: c.LocalShared})
	s.shared = netguard.NewPolicy(netguard.Config{Network: []string{netguard.LocalSharedEntry}, LocalShared: c.LocalShared})
	if c.Proxy != "" {
		u, err := url.Parse(c.Proxy)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("netsvc: the proxy %q of the network settings is not a URL", c.Proxy)
		}
		s.proxy = u
	}
	s.timeout, s.maxBytes = limits(c.Limits)
	s.fetchMax = min(s.maxBytes, MaxFetchBytes)
	s.inFlight = semaphore.NewWeighted(MaxBytesInFlight)
	s.client = s.newClient(true)
	s.wsClient = s.newClient(false)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// limits reads the manifest's limits within their ceilings.
func limits(l manifest.Limits) (time.Duration, int64) {
	timeout, maxBytes := DefaultTimeout, int64(DefaultMaxBytes)
	if l.NetTimeoutMs > 0 {
		timeout = min(time.Duration(l.NetTimeoutMs)*time.Millisecond, MaxTimeout)
	}
	if l.NetMaxBytes > 0 {
		maxBytes = min(l.NetMaxBytes, MaxMaxBytes)
	}
	return timeout, maxBytes
}

// newClient builds a client whose every connection goes through the
// guard, that follows no redirect and never reads the environment's
// proxy variables.
func (s *Service) newClient(http2 bool) *http.Client {
	d := &netguard.Dialer{Policy: s.policy, Resolver: s.cfg.Resolver, Connect: s.cfg.Connect}
	if s.proxy != nil {
		d.Proxy = proxyAddress(s.proxy)
	}
	tr := &http.Transport{
		Proxy:               s.proxyFor,
		DialContext:         d.DialContext,
		TLSClientConfig:     s.cfg.TLS.Clone(),
		ForceAttemptHTTP2:   http2,
		DisableCompression:  true,
		MaxIdleConnsPerHost: 4,
		// Bounded so that the headers and a body of MaxFetchBytes fit
		// in one answer line.
		MaxResponseHeaderBytes: MaxHeaderBytes,
		IdleConnTimeout:        90 * time.Second,
	}
	if !http2 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// proxyAddress is host:port of the proxy as the transport dials it.
func proxyAddress(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
		if port == "" {
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// proxyFor is the transport's proxy: the app's, except for the harnesses'
// local servers; never the environment's.
func (s *Service) proxyFor(req *http.Request) (*url.URL, error) {
	if s.proxy == nil || s.isLocalShared(req.URL) {
		return nil, nil
	}
	s.once.Do(func() {
		s.journal(TagNet, fmt.Sprintf("requests go through the proxy %s of the network settings: only host names are judged", s.proxy.Redacted()))
	})
	return s.proxy, nil
}

func (s *Service) isLocalShared(u *url.URL) bool {
	_, refusal := s.shared.CheckURL(u.String(), netguard.HTTP)
	return refusal == nil
}

func (s *Service) journal(tag, text string) {
	if s.cfg.Journal != nil {
		s.cfg.Journal(tag, text)
	}
}

// afterFunc runs f after d on the service's clock.
func (s *Service) afterFunc(d time.Duration, f func()) Timer {
	if s.cfg.AfterFunc != nil {
		return s.cfg.AfterFunc(d, f)
	}
	return time.AfterFunc(d, f)
}

// Methods gives the handlers of net/* and ws/*.
func (s *Service) Methods() map[string]services.Handler {
	return map[string]services.Handler{
		vocab.MethodNetFetch:  services.AnswerLater(s.fetch), // no slot held while on the way
		vocab.MethodNetStream: s.stream,
		vocab.MethodNetCancel: s.cancelStream,
		vocab.MethodWsOpen:    s.wsOpen,
		vocab.MethodWsSend:    s.wsSend,
		vocab.MethodWsClose:   s.wsClose,
	}
}

// Close ends every fetch and stream under way, closes every socket, and
// waits for their goroutines.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closed = true
	sockets := make([]*socket, 0, len(s.sockets))
	for _, sock := range s.sockets {
		sockets = append(sockets, sock)
	}
	s.mu.Unlock()
	s.cancel()
	for _, sock := range sockets {
		sock.conn.CloseNow()
	}
	s.wg.Wait()
	s.client.CloseIdleConnections()
	s.wsClient.CloseIdleConnections()
	return nil
}

// Errors.

func refused(reason string) *services.Error {
	return &services.Error{Code: services.CodeForbidden, Message: vocab.MessageForbiddenAddress, Reason: reason}
}

func failed(reason string) *services.Error {
	return &services.Error{Code: services.CodeFailed, Message: vocab.MessageFailed, Reason: reason}
}
