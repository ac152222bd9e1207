package netguard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"

	"github.com/escouade-dev/escouade-plugin/netguard"
)

// rebound is a resolver that answers an address of this machine for every
// name, as a name rebound against the plugin's user would.
type rebound struct{}

func (rebound) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// A plugin's request is checked against what the user granted before it
// is sent, and each address is checked again as the connection dials: a
// granted name that resolves to this machine is refused there. The
// transport the plugin's requests go through dials only with the guard.
func Example() {
	p := netguard.NewPolicy(netguard.Config{PluginID: "dev.example.slack", Network: []string{"slack.com"}})
	if _, refusal := p.CheckURL("https://example.com/", netguard.HTTP); refusal != nil {
		fmt.Println("example.com is not granted: refused before it is sent")
	}
	target, refusal := p.CheckURL("https://slack.com/api", netguard.HTTP)
	if refusal != nil {
		fmt.Println("refused:", refusal)
		return
	}
	d := &netguard.Dialer{Policy: p, Resolver: rebound{}}
	_ = &http.Transport{DialContext: d.DialContext, Proxy: nil}
	_, err := d.DialContext(context.Background(), "tcp", target.Host+":"+target.Port)
	fmt.Println(err)
	// Output:
	// example.com is not granted: refused before it is sent
	// slack.com resolves to 127.0.0.1, an address of this machine or of the local network
}
