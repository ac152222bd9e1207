package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioOptions configures [ServeStdio]. The zero value of every field but
// URL, In and Out means the documented default.
type StdioOptions struct {
	// URL is the server's endpoint ([Server.URL]); it must be on loopback,
	// since the token goes with every request.
	URL string
	// In gives the token on its first line (unless Token is set), then the
	// client's MCP messages, one per line. It is closed at the end when it
	// is an io.Closer.
	In io.Reader
	// Token, when set, is the bearer token, and In carries MCP messages
	// only: the form an ACP agent can start (see Server.StdioEntryFile).
	Token string
	// Out receives the bridge's MCP messages. It is closed at the end when
	// it is an io.Closer.
	Out io.Writer
	// HTTPClient talks to the server; the token is added to each of its
	// requests. Default: a client that never goes through a proxy.
	HTTPClient *http.Client
}

// errUpstreamGone ends the bridge when the HTTP server ends the session
// (closed, or the token revoked).
var errUpstreamGone = errors.New("the MCP server ended the session")

// ServeStdio bridges MCP over stdio to the HTTP server: it reads the token
// from the first line of opts.In, opens an MCP session with the server, and
// serves the client on In/Out with the server's tools (tools/list answered
// from the server's list, kept in step with its list-changed notices;
// tools/call forwarded). It returns when In ends (nil), the server ends the
// session, or ctx ends.
func ServeStdio(ctx context.Context, opts StdioOptions) error {
	if err := checkLoopbackURL(opts.URL); err != nil {
		return err
	}
	in := bufio.NewReader(opts.In)
	token := opts.Token
	if token == "" {
		var err error
		if token, err = readToken(in); err != nil {
			return err
		}
	} else if !isToken68([]byte(token)) {
		return errors.New("the token given is not a bearer token")
	}
	m := &mirror{}
	upstream, err := connectUpstream(ctx, opts, token, m)
	if err != nil {
		return err
	}
	defer upstream.Close()
	local, err := m.start(ctx, upstream)
	if err != nil {
		return err
	}
	return serveLocal(ctx, local, upstream, stdioTransport(in, opts))
}

// serveLocal serves the client until it leaves, ctx ends, or the upstream
// session ends, whichever comes first.
func serveLocal(ctx context.Context, local *sdk.Server, upstream *sdk.ClientSession, t sdk.Transport) error {
	ctx, cancel := context.WithCancelCause(ctx)
	upstreamDone := make(chan struct{})
	go func() {
		defer close(upstreamDone)
		upstream.Wait()
		cancel(errUpstreamGone)
	}()
	err := local.Run(ctx, t)
	if cause := context.Cause(ctx); errors.Is(cause, errUpstreamGone) {
		err = cause
	}
	upstream.Close()
	<-upstreamDone
	cancel(nil)
	return err
}

func checkLoopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	if u.Scheme != "http" || !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("--url %q: want http:// on %w", raw, ErrNotLoopback)
	}
	return nil
}

// connectUpstream opens the MCP session with the HTTP server, as the token's
// agent. m hears the server's tool list changes.
func connectUpstream(ctx context.Context, opts StdioOptions, token string, m *mirror) (*sdk.ClientSession, error) {
	client := sdk.NewClient(&sdk.Implementation{Name: ServerName + "-" + StdioCommand, Version: DefaultVersion},
		&sdk.ClientOptions{ToolListChangedHandler: m.toolsChanged})
	transport := &sdk.StreamableClientTransport{
		Endpoint:   opts.URL,
		HTTPClient: withBearer(opts.HTTPClient, token),
		// No reconnection: on loopback a broken stream means the server
		// ended the session, and the bridge should end with it.
		MaxRetries: -1,
	}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", opts.URL, err)
	}
	return cs, nil
}

// stdioTransport serves MCP on the rest of In (after the token line) and on
// Out, closing them at the end when they can be closed: closing In is what
// unblocks a pending read.
func stdioTransport(in *bufio.Reader, opts StdioOptions) sdk.Transport {
	rc := readCloser{Reader: in, close: func() error { return nil }}
	if c, ok := opts.In.(io.Closer); ok {
		rc.close = c.Close
	}
	wc := writeCloser{Writer: opts.Out, close: func() error { return nil }}
	if c, ok := opts.Out.(io.Closer); ok {
		wc.close = c.Close
	}
	return &sdk.IOTransport{Reader: rc, Writer: wc}
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

type writeCloser struct {
	io.Writer
	close func() error
}

func (w writeCloser) Close() error { return w.close() }
