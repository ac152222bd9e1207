package journal

import (
	"strings"
	"testing"
)

// BenchmarkMaskLine is the cost of masking one ordinary stderr line once
// secrets are registered (a token and a PEM key).
func BenchmarkMaskLine(b *testing.B) {
	var m masker
	m.add("tok-0123456789abcdef0123456789abcdef")
	m.add(testPEM)
	for _, size := range []int{80, 4 << 10, 64 << 10} {
		line := strings.Repeat("deadbeef connecting to api.example.com ", size/30+1)[:size]
		b.Run(sizeName(size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				m.applyLine(m.apply(line))
			}
		})
	}
}

// BenchmarkMaskEscapedLine is the same for a line of JSON full of escapes.
func BenchmarkMaskEscapedLine(b *testing.B) {
	var m masker
	m.add("tok-0123456789abcdef0123456789abcdef")
	line := strings.Repeat(`{"k":"caf\u00e9 \"q\" \/path"} `, 4<<10/32)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		m.applyLine(m.apply(line))
	}
}

func sizeName(n int) string {
	switch {
	case n >= 1<<10:
		return itoa(n>>10) + "KiB"
	}
	return itoa(n) + "B"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// BenchmarkMaskURLLine is the same for a line of URLs with percent
// escapes and Basic credentials, none holding the secret.
func BenchmarkMaskURLLine(b *testing.B) {
	var m masker
	m.add("tok-0123456789abcdef0123456789abcdef")
	line := strings.Repeat(`GET /cb?next=https%3A%2F%2Fh%2F%3Fq%3Da+b Authorization: Basic dXNlcjpvdGhlci1wYXNzd29yZA== `, 4<<10/96)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		m.applyLine(m.apply(line))
	}
}
