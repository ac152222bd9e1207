package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
)

// pipePair returns the two ends of a duplex stream made of two os.Pipe.
func pipePair(b *testing.B) (aIn, aOut, bIn, bOut *os.File) {
	b.Helper()
	bIn, aOut, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	aIn, bOut, err = os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	return aIn, aOut, bIn, bOut
}

// benchParams is a small request like most of the protocol's.
var benchParams = json.RawMessage(`{"key":"webhook"}`)

// BenchmarkRoundTrip measures one call from a Conn to a Conn that echoes,
// over os.Pipe pairs. Compare with BenchmarkPipeEcho:
//
//	go test -run '^$' -bench 'RoundTrip|PipeEcho' -benchmem ./jsonrpc
func BenchmarkRoundTrip(b *testing.B) {
	aIn, aOut, bIn, bOut := pipePair(b)
	echo := func(_ context.Context, m *Message) (any, error) { return m.Params, nil }
	caller := NewConn(aIn, aOut, Options{})
	server := NewConn(bIn, bOut, Options{Handle: echo})
	defer func() {
		caller.Close()
		server.Close()
		aOut.Close()
		bOut.Close()
		caller.Wait()
		server.Wait()
	}()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := caller.Call(ctx, "secrets/get", benchParams); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPipeEcho is the floor BenchmarkRoundTrip is held to: the same
// lines echoed raw over the same pipes, with no JSON at all.
func BenchmarkPipeEcho(b *testing.B) {
	aIn, aOut, bIn, bOut := pipePair(b)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"secrets/get","params":{"key":"webhook"}}` + "\n")
	done := make(chan struct{})
	go func() {
		defer close(done)
		in := bufio.NewReader(bIn)
		for {
			l, err := in.ReadSlice('\n')
			if err != nil {
				return
			}
			if _, err := bOut.Write(l); err != nil {
				return
			}
		}
	}()
	defer func() {
		aOut.Close()
		<-done
		bOut.Close()
		aIn.Close()
		bIn.Close()
	}()
	in := bufio.NewReader(aIn)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := aOut.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := in.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}
