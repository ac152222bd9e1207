package kit

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// ErrServing is returned by Serve when the plugin is already serving.
var ErrServing = errors.New("kit: the plugin is already serving")

// Run serves the host on stdin and stdout until the host sends shutdown
// or closes stdin. It returns nil then, or the read or write error that
// ended the connection.
//
// Built as a module (GOOS=wasip1, -buildmode=c-shared) the same call
// serves the host turn by turn: each escouade-turn reads the lines the
// host appended, lets the handlers run until each has returned or waits
// on the host, and writes what they produced (see the package doc).
func (p *Plugin) Run() error {
	return p.run()
}

// Serve is Run on any stream: it reads the host's lines from r and writes
// the plugin's to w. It also returns when ctx ends, with ctx's error.
//
// When it stops, for shutdown, the end of r or ctx, it takes no new
// message, ends the handlers' contexts and waits at most Options.StopGrace
// for them to return and for their answers, shutdown's first, to be
// written. Serve does not close r.
func (p *Plugin) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	if !p.reserve() {
		return ErrServing
	}
	defer p.disconnect()
	in := newInput(r)
	s := newSession(ctx, p)
	conn := jsonrpc.NewConn(in, w, jsonrpc.Options{Handle: s.handle, OnEvent: s.trace, Context: s.ctx})
	p.connect(conn)
	close(s.ready)

	err := s.waitEnd(ctx, conn)
	in.stop()
	s.stop()
	p.waitBounded(conn)
	conn.Close()
	if err == nil {
		err = conn.Err()
	}
	return err
}

// reserve marks the plugin serving, unless another Serve runs.
func (p *Plugin) reserve() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.serving {
		return false
	}
	p.serving = true
	return true
}

// connect makes conn the host that the plugin's calls go to.
func (p *Plugin) connect(conn *jsonrpc.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.host = conn
}

// disconnect forgets the host: later calls fail with ErrNotConnected, and
// the plugin may serve again.
func (p *Plugin) disconnect() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.host = nil
	p.serving = false
	p.timers.forgetHost() // the host's timer ids were this connection's
}

// waitBounded waits, at most StopGrace, for conn's reader to stop and its
// handlers to return with their answers written. Past the grace the
// waiting goroutine ends with the last handler.
func (p *Plugin) waitBounded(conn *jsonrpc.Conn) {
	ended := make(chan struct{})
	go func() {
		conn.Wait()
		close(ended)
	}()
	grace := time.NewTimer(p.stopGrace)
	defer grace.Stop()
	select {
	case <-ended:
	case <-grace.C:
		p.tracef("handlers still running %v after the end; leaving them", p.stopGrace)
	}
}
