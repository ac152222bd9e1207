package jsonrpc

import (
	"strconv"
	"strings"
	"testing"
)

// BenchmarkDecodeLine decodes a request alone on its line and a batch of
// 100, the lines a host and a plugin read most.
// decodeFn is the decoder measured: as a connection calls it, with its
// layout reused from line to line.
var decodeFn = func(line []byte) Line { return decodeLine(line, &benchLayout) }

var benchLayout layout

func BenchmarkDecodeLine(b *testing.B) {
	one := []byte(`{"jsonrpc":"2.0","id":7,"method":"perf/echo","params":{"n":1}}`)
	var members []string
	for id := range 100 {
		members = append(members, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"result":{"n":1}}`)
	}
	batch := []byte("[" + strings.Join(members, ",") + "]")
	for _, tc := range []struct {
		name string
		line []byte
	}{{"single", one}, {"batch100", batch}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.line)))
			for b.Loop() {
				decodeFn(tc.line)
			}
		})
	}
}

// BenchmarkRefDecodeLine is the two-pass decoder, for comparison.
func BenchmarkRefDecodeLine(b *testing.B) {
	decodeFn = refDecodeLine
	defer func(conn func([]byte) Line) { decodeFn = conn }(decodeFn)
	BenchmarkDecodeLine(b)
}
