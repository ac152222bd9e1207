package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// Resolver looks names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ControlFunc is the hook a net.Dialer calls with the address of the
// socket just before it connects.
type ControlFunc func(ctx context.Context, network, address string, c syscall.RawConn) error

// ConnectFunc opens a TCP connection to address, an IP:port, calling
// control before it connects, as net.Dialer does with ControlContext.
type ConnectFunc func(ctx context.Context, network, address string, control ControlFunc) (net.Conn, error)

// Dialer connects for an http.Transport within a Policy. Its zero fields
// mean the system's resolver and a plain net.Dialer; tests inject both.
type Dialer struct {
	Policy *Policy
	// Resolver resolves names; nil is net.DefaultResolver.
	Resolver Resolver
	// Connect opens one connection; nil is a net.Dialer whose
	// ControlContext is the guard's.
	Connect ConnectFunc
	// Proxy is the host:port of the app's proxy, or "". The proxy dials
	// for the plugin, so a connection to it is not judged: the policy has
	// judged the name the plugin asked for.
	Proxy string
}

// DialContext is the http.Transport hook: address is host:port as the
// request's URL gives it (or the proxy's).
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if d.Proxy != "" && address == d.Proxy {
		return d.connect(ctx, network, address, allowAll)
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("netguard: %w", err)
	}
	local, refusal := d.Policy.allowsDial(host, port)
	if refusal != nil {
		return nil, refusal
	}
	addrs, err := d.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	if !local {
		if refusal := judgeAll(host, addrs); refusal != nil {
			return nil, refusal
		}
	}
	return d.dialEach(ctx, network, host, port, addrs, local)
}

// resolve looks host up once: the addresses it gives are the ones dialed.
func (d *Dialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if addr, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{addr}, nil
	}
	r := d.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be resolved: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s cannot be resolved: no address", host)
	}
	return addrs, nil
}

// judgeAll refuses a name when any of its addresses is forbidden: a name
// that mixes a public address with a local one is a rebinding attempt,
// and trying the others in turn would let the answer's order decide.
func judgeAll(host string, addrs []netip.Addr) *Refusal {
	for _, a := range addrs {
		if Forbidden(a) {
			return forbiddenAddress(host, a.Unmap().String())
		}
	}
	return nil
}

// dialEach tries the addresses in order and returns the first connection.
// Each one is judged again in Control, on the address the socket dials.
func (d *Dialer) dialEach(ctx context.Context, network, host, port string, addrs []netip.Addr, local bool) (net.Conn, error) {
	control := guardControl(host)
	if local {
		control = allowAll
	}
	var errs []error
	for i, a := range addrs {
		actx, cancel := partialDeadline(ctx, len(addrs)-i)
		conn, err := d.connect(actx, network, net.JoinHostPort(a.Unmap().String(), port), control)
		cancel()
		if err == nil {
			return conn, nil
		}
		var refusal *Refusal
		if errors.As(err, &refusal) {
			return nil, refusal
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// minAttempt is the least time one address gets when several share what
// is left of the request's time, as net.Dialer gives.
const minAttempt = 2 * time.Second

// partialDeadline gives one of left addresses its share of the time left,
// so that one black-holed address does not eat the whole limit.
func partialDeadline(ctx context.Context, left int) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok || left <= 1 {
		return ctx, func() {}
	}
	share := time.Until(deadline) / time.Duration(left)
	if share < minAttempt {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, share)
}

func (d *Dialer) connect(ctx context.Context, network, address string, control ControlFunc) (net.Conn, error) {
	if d.Connect != nil {
		return d.Connect(ctx, network, address, control)
	}
	nd := net.Dialer{ControlContext: control}
	return nd.DialContext(ctx, network, address)
}

// guardControl judges the address a socket is about to connect to: the
// last word, whatever resolved it.
func guardControl(host string) ControlFunc {
	return func(_ context.Context, network, address string, _ syscall.RawConn) error {
		if network != "tcp4" && network != "tcp6" {
			return refusef("%s: only TCP connections are allowed, not %s", host, network)
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return refusef("%s: the dialed address %q is not an IP address", host, address)
		}
		if Forbidden(ap.Addr()) {
			return forbiddenAddress(host, ap.Addr().String())
		}
		return nil
	}
}

func allowAll(context.Context, string, string, syscall.RawConn) error { return nil }
