package jsonrpc

import (
	"bufio"
	"testing"
)

// BenchmarkPipeEchoHandoffs is BenchmarkPipeEcho with the goroutine
// handoffs a Conn makes and no JSON: the server's reader hands each line to
// a goroutine that writes it back, and the client's reader hands each line
// to the waiting caller. It is the floor of BenchmarkRoundTrip's design.
func BenchmarkPipeEchoHandoffs(b *testing.B) {
	aIn, aOut, bIn, bOut := pipePair(b)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"secrets/get","params":{"key":"webhook"}}` + "\n")
	serverDone, clientDone := make(chan struct{}), make(chan struct{})
	go func() { // the server's reader
		defer close(serverDone)
		in := bufio.NewReader(bIn)
		for {
			l, err := in.ReadSlice('\n')
			if err != nil {
				return
			}
			l = append([]byte(nil), l...)
			go bOut.Write(l)
		}
	}()
	answers := make(chan []byte, 1)
	go func() { // the client's reader
		defer close(clientDone)
		in := bufio.NewReader(aIn)
		for {
			l, err := in.ReadSlice('\n')
			if err != nil {
				return
			}
			answers <- append([]byte(nil), l...)
		}
	}()
	defer func() {
		aOut.Close()
		<-serverDone
		bOut.Close()
		<-clientDone
		aIn.Close()
		bIn.Close()
	}()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := aOut.Write(line); err != nil {
			b.Fatal(err)
		}
		<-answers
	}
}
