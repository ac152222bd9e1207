package mcp

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func FuzzReadToken(f *testing.F) {
	for _, seed := range []string{"tok\n{}", "tok\r\n", "", "\n", `{"jsonrpc":"2.0"}`, "a b\n", "==\n", "abc=\nrest"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReader(bytes.NewReader(in))
		tok, err := readToken(r)
		if err != nil {
			return
		}
		if !isToken68([]byte(tok)) || strings.ContainsAny(tok, " \t\r\n{[") {
			t.Fatalf("accepted %q", tok)
		}
		rest, _ := io.ReadAll(r)
		first, after, _ := bytes.Cut(in, []byte("\n"))
		if string(bytes.TrimSuffix(first, []byte("\r"))) != tok || !bytes.Equal(rest, after) {
			t.Fatalf("input %q: token %q, rest %q", in, tok, rest)
		}
	})
}

func FuzzLoopbackAddr(f *testing.F) {
	for _, seed := range []string{"127.0.0.1:0", "localhost:80", "[::1]:0", ":0", "0.0.0.0:1", "[fe80::1%lo]:0", "[::ffff:127.0.0.1]:0"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		if checkLoopbackAddr(addr) != nil {
			return
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("accepted %q: %v", addr, err)
		}
		if strings.EqualFold(host, "localhost") {
			return
		}
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Unmap().IsLoopback() {
			t.Fatalf("accepted %q", addr)
		}
	})
}

func FuzzLoopbackURL(f *testing.F) {
	for _, seed := range []string{"http://127.0.0.1:1/mcp", "http://localhost/mcp", "https://127.0.0.1/", "http://example.com/", "http://[::1]:9/x", "http://127.0.0.1@evil.example/"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if checkLoopbackURL(raw) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" {
			t.Fatalf("accepted %q", raw)
		}
		if ip, err := netip.ParseAddr(u.Hostname()); !strings.EqualFold(u.Hostname(), "localhost") && (err != nil || !ip.Unmap().IsLoopback()) {
			t.Fatalf("accepted %q (host %q)", raw, u.Hostname())
		}
	})
}

func FuzzAnswersText(f *testing.F) {
	f.Add("Which?", "a", "b")
	f.Add("", "", "\n")
	f.Fuzz(func(t *testing.T, question, first, second string) {
		got := answersText([]Question{{Question: question}, {Question: question}}, [][]string{{first, second}, nil})
		if strings.ContainsAny(got, "\n\r") {
			t.Fatalf("a raw line break in %q", got)
		}
		if !strings.HasPrefix(got, "The user answered: ") || !strings.HasSuffix(got, "(nothing).") {
			t.Fatalf("text %q", got)
		}
	})
}
