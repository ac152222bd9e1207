package netguard

import (
	"context"
	"net/netip"
	"testing"
)

// The guard's own cost, apart from any network:
//
//	go test -run XXX -bench . -benchmem ./netguard/

func BenchmarkCheckURL(b *testing.B) {
	p := testPolicy()
	for b.Loop() {
		if _, refusal := p.CheckURL("https://api.slack.com/api/chat.postMessage?channel=C1", HTTP); refusal != nil {
			b.Fatal(refusal)
		}
	}
}

func BenchmarkForbidden(b *testing.B) {
	addrs := []netip.Addr{netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("2606:4700::1111"), netip.MustParseAddr("10.0.0.1")}
	for b.Loop() {
		for _, a := range addrs {
			Forbidden(a)
		}
	}
}

// BenchmarkDial is one guarded dial: judgement, resolution (injected),
// the Control hook, and a connection that costs nothing.
func BenchmarkDial(b *testing.B) {
	counter := &countingConnect{}
	d := &Dialer{Policy: testPolicy(), Connect: counter.connect,
		Resolver: newResolver(map[string][][]string{"slack.com": {{"93.184.215.14", "2606:4700::1111"}}})}
	for b.Loop() {
		conn, err := d.DialContext(context.Background(), "tcp", "slack.com:443")
		if err != nil {
			b.Fatal(err)
		}
		conn.Close()
		counter.dialed = counter.dialed[:0]
	}
}
