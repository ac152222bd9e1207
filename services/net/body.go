package net

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// errTooLarge is the error of a body past its limit.
var errTooLarge = errors.New("the body is over the limit")

// errFetchTooLarge is the error of a body past MaxFetchBytes that
// limits.netMaxBytes would let through net/stream.
var errFetchTooLarge = errors.New("the body is over what a net/fetch answer carries")

// errUndecodable is the error of a body in an encoding the host did not
// ask for.
var errUndecodable = errors.New("an encoding the host cannot decode")

// decodedBody gives the body of resp as the server meant it, its
// Content-Encoding undone, and whether there was one to undo.
func decodedBody(resp *http.Response) (io.Reader, bool, error) {
	var r io.Reader = resp.Body
	encodings := strings.Split(resp.Header.Get("Content-Encoding"), ",")
	decoded := false
	for i := len(encodings) - 1; i >= 0; i-- {
		enc := strings.ToLower(strings.TrimSpace(encodings[i]))
		next, err := decoder(enc, r)
		if err != nil {
			return nil, false, err
		}
		decoded = decoded || next != r
		r = next
	}
	return r, decoded, nil
}

// decoder undoes one content coding. deflate is zlib by the RFC but raw
// deflate from some servers, so the zlib header is looked for.
func decoder(enc string, r io.Reader) (io.Reader, error) {
	switch enc {
	case "", "identity":
		return r, nil
	case "gzip", "x-gzip":
		return gzip.NewReader(r)
	case "deflate":
		br := bufio.NewReader(r)
		head, _ := br.Peek(2)
		if len(head) == 2 && head[0]&0x0f == 8 && (uint(head[0])<<8|uint(head[1]))%31 == 0 {
			return zlib.NewReader(br)
		}
		return flate.NewReader(br), nil
	}
	return nil, fmt.Errorf("%w: %s", errUndecodable, enc)
}

// capped counts what is read through it and fails one byte past max:
// never a truncation.
type capped struct {
	r    io.Reader
	max  int64
	read int64
}

func (c *capped) Read(p []byte) (int, error) {
	if room := c.max + 1 - c.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	if c.read > c.max {
		return n, errTooLarge
	}
	return n, err
}

// badEncoding reports an error of a decoder: the body is not what its
// Content-Encoding says.
func badEncoding(err error) bool {
	var corrupt flate.CorruptInputError
	return errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) ||
		errors.Is(err, zlib.ErrHeader) || errors.Is(err, zlib.ErrChecksum) ||
		errors.Is(err, zlib.ErrDictionary) || errors.As(err, &corrupt)
}
