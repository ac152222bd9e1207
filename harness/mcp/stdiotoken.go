package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// readToken reads the bearer token from the first line of r. The line must
// be the token alone (RFC 7235 token68), "\n" or "\r\n" ended; it is at
// most r's buffer size.
func readToken(r *bufio.Reader) (string, error) {
	line, err := r.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return "", fmt.Errorf("the first line of stdin must be the token: it is longer than %d bytes", r.Size())
	case errors.Is(err, io.EOF) && len(line) == 0:
		return "", errors.New("stdin ended before the token (its first line)")
	case err != nil && !errors.Is(err, io.EOF):
		return "", fmt.Errorf("reading the token: %w", err)
	}
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	if looksLikeJSON(line) {
		return "", errors.New("the first line of stdin must be the token, not an MCP message")
	}
	if !isToken68(line) {
		return "", errors.New("the first line of stdin is not a bearer token")
	}
	return string(line), nil
}

func looksLikeJSON(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	return len(line) > 0 && (line[0] == '{' || line[0] == '[')
}

// isToken68 reports whether b is a token68 (RFC 7235 §2.1):
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isToken68(b []byte) bool {
	body := bytes.TrimRight(b, "=")
	if len(body) == 0 {
		return false
	}
	for _, c := range body {
		if !isToken68Char(c) {
			return false
		}
	}
	return true
}

func isToken68Char(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
}
