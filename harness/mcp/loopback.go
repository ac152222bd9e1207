package mcp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// ErrNotLoopback is returned for an address or URL that is not on the
// loopback interface: the server holds agent tokens and answers for the
// user, so nothing beyond this machine may reach it.
var ErrNotLoopback = errors.New("not a loopback address")

// checkLoopbackAddr accepts "host:port" where host is a loopback IP literal
// or "localhost". An empty host would listen on every interface.
func checkLoopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if !isLoopbackHost(host) {
		return fmt.Errorf("address %q: %w", addr, ErrNotLoopback)
	}
	return nil
}

// isLoopbackHost reports whether host (no port, no brackets) is a loopback
// IP literal or the name localhost.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

// checkListener makes sure the socket really is on loopback: "localhost"
// is resolved by the system, and its answer is what counts.
func checkListener(ln net.Listener) error {
	tcp, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return fmt.Errorf("listening on %s: %w", ln.Addr(), ErrNotLoopback)
	}
	return nil
}
