package netguard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const pluginID = "dev.escouade.slack"

func testPolicy() *Policy {
	return NewPolicy(Config{
		PluginID:     pluginID,
		Network:      []string{"slack.com", "Bücher.example", "203.0.114.7", "[2606:4700::1111]", "10.1.2.3", AccountEntry, LocalSharedEntry},
		AccountHosts: []string{"gitlab.corp:8443", "git.lan"},
		LocalShared:  []string{"127.0.0.1:7777", "[::1]:7778"},
	})
}

// TestCheckURL holds every URL form a plugin could use to reach a host it
// may not, and the forms that must pass.
func TestCheckURL(t *testing.T) {
	type result struct {
		URL, Host, Port string
		Local           bool
		Refusal         string
	}
	tests := []struct {
		raw  string
		kind Kind
		want result
	}{
		// Allowed forms.
		{"https://slack.com/api", HTTP, result{URL: "https://slack.com/api", Host: "slack.com", Port: "443"}},
		{"https://api.slack.com/x", HTTP, result{URL: "https://api.slack.com/x", Host: "api.slack.com", Port: "443"}},
		{"https://a.b.slack.com:8443/", HTTP, result{URL: "https://a.b.slack.com:8443/", Host: "a.b.slack.com", Port: "8443"}},
		{"https://API.Slack.COM/", HTTP, result{URL: "https://api.slack.com/", Host: "api.slack.com", Port: "443"}},
		{"https://slack.com./", HTTP, result{URL: "https://slack.com/", Host: "slack.com", Port: "443"}},
		{"https://api.slack.com。/", HTTP, result{URL: "https://api.slack.com/", Host: "api.slack.com", Port: "443"}},
		{"https://127.0.0.1./", HTTP, result{Refusal: "127.0.0.1 is not in permissions.network of dev.escouade.slack"}},
		{"https://slack.com:0443/", HTTP, result{URL: "https://slack.com:443/", Host: "slack.com", Port: "443"}},
		{"https://ｓｌａｃｋ.com/", HTTP, result{URL: "https://slack.com/", Host: "slack.com", Port: "443"}},
		{"https://www.bücher.example/", HTTP, result{URL: "https://www.xn--bcher-kva.example/", Host: "www.xn--bcher-kva.example", Port: "443"}},
		{"https://xn--bcher-kva.example/", HTTP, result{URL: "https://xn--bcher-kva.example/", Host: "xn--bcher-kva.example", Port: "443"}},
		{"https://203.0.114.7/", HTTP, result{URL: "https://203.0.114.7/", Host: "203.0.114.7", Port: "443"}},
		{"https://[2606:4700:0::1111]:444/", HTTP, result{URL: "https://[2606:4700::1111]:444/", Host: "2606:4700::1111", Port: "444"}},
		{"wss://slack.com/ws", WebSocket, result{URL: "wss://slack.com/ws", Host: "slack.com", Port: "443"}},
		{"https://%73lack.com/", HTTP, result{Refusal: `"https://%73lack.com/": not a valid URL`}},
		// {account} and local:shared: plain http and local addresses, exact host and port.
		{"http://gitlab.corp:8443/api", HTTP, result{URL: "http://gitlab.corp:8443/api", Host: "gitlab.corp", Port: "8443", Local: true}},
		{"https://gitlab.corp:8443/api", HTTP, result{URL: "https://gitlab.corp:8443/api", Host: "gitlab.corp", Port: "8443", Local: true}},
		{"http://git.lan/", HTTP, result{URL: "http://git.lan/", Host: "git.lan", Port: "80", Local: true}},
		{"https://git.lan/", HTTP, result{URL: "https://git.lan/", Host: "git.lan", Port: "443", Local: true}},
		{"http://127.0.0.1:7777/mcp", HTTP, result{URL: "http://127.0.0.1:7777/mcp", Host: "127.0.0.1", Port: "7777", Local: true}},
		{"ws://[::1]:7778/", WebSocket, result{URL: "ws://[::1]:7778/", Host: "::1", Port: "7778", Local: true}},

		// Schemes.
		{"http://api.slack.com/x", HTTP, result{Refusal: "http://api.slack.com/x: only https is allowed"}},
		{"ws://slack.com/", WebSocket, result{Refusal: "ws://slack.com/: only wss is allowed"}},
		{"wss://slack.com/", HTTP, result{Refusal: "wss://slack.com/: only https is allowed"}},
		{"ftp://slack.com/", HTTP, result{Refusal: "ftp://slack.com/: only https is allowed"}},
		{"file:///etc/passwd", HTTP, result{Refusal: "file:///etc/passwd: only https is allowed"}},
		{"//slack.com/", HTTP, result{Refusal: "//slack.com/: only https is allowed"}},
		{"https:slack.com", HTTP, result{Refusal: "https:slack.com: a URL without a host"}},
		{"https:///x", HTTP, result{Refusal: "https:///x: a URL without a host"}},
		{"http://gitlab.corp/", HTTP, result{Refusal: "gitlab.corp is not in permissions.network of dev.escouade.slack"}},
		{"http://127.0.0.1:7778/", HTTP, result{Refusal: "127.0.0.1 is not in permissions.network of dev.escouade.slack"}},
		// Names not listed, look-alikes.
		{"https://example.org/", HTTP, result{Refusal: "example.org is not in permissions.network of dev.escouade.slack"}},
		{"https://evilslack.com/", HTTP, result{Refusal: "evilslack.com is not in permissions.network of dev.escouade.slack"}},
		{"https://slack.com.evil.net/", HTTP, result{Refusal: "slack.com.evil.net is not in permissions.network of dev.escouade.slack"}},
		{"https://slack.co/", HTTP, result{Refusal: "slack.co is not in permissions.network of dev.escouade.slack"}},
		{"https://xn--slck-5qa.com/", HTTP, result{Refusal: "xn--slck-5qa.com is not in permissions.network of dev.escouade.slack"}},
		{"https://slаck.com/", HTTP, result{Refusal: "xn--slck-63d.com is not in permissions.network of dev.escouade.slack"}},
		{"https://gitlab.corp/", HTTP, result{Refusal: "gitlab.corp is not in permissions.network of dev.escouade.slack"}},
		{"https://sub.gitlab.corp:8443/", HTTP, result{Refusal: "sub.gitlab.corp is not in permissions.network of dev.escouade.slack"}},
		{"https://localhost/", HTTP, result{Refusal: "localhost is not in permissions.network of dev.escouade.slack"}},
		// Userinfo tricks.
		{"https://slack.com@127.0.0.1/", HTTP, result{Refusal: "https://slack.com@127.0.0.1/: a URL with userinfo is not allowed"}},
		{"https://user:secret@slack.com/", HTTP, result{Refusal: "https://user:xxxxx@slack.com/: a URL with userinfo is not allowed"}},
		{"https://@slack.com/", HTTP, result{Refusal: "https://@slack.com/: a URL with userinfo is not allowed"}},
		{"https://slack.com%40127.0.0.1/", HTTP, result{Refusal: `"https://slack.com%40127.0.0.1/": not a valid URL`}},
		// Loopback and private addresses in every encoding.
		{"https://127.0.0.1/", HTTP, result{Refusal: "127.0.0.1 is not in permissions.network of dev.escouade.slack"}},
		{"https://10.1.2.3/", HTTP, result{Refusal: "10.1.2.3 is an address of this machine or of the local network"}},
		{"https://2130706433/", HTTP, result{Refusal: `"2130706433": a numeric host that is not a plain IPv4 address`}},
		{"https://0x7f000001/", HTTP, result{Refusal: `"0x7f000001": a numeric host that is not a plain IPv4 address`}},
		{"https://0177.0.0.1/", HTTP, result{Refusal: `"0177.0.0.1": a numeric host that is not a plain IPv4 address`}},
		{"https://0x7f.0.0.1/", HTTP, result{Refusal: `"0x7f.0.0.1": a numeric host that is not a plain IPv4 address`}},
		{"https://127.1/", HTTP, result{Refusal: `"127.1": a numeric host that is not a plain IPv4 address`}},
		{"https://127.0.1/", HTTP, result{Refusal: `"127.0.1": a numeric host that is not a plain IPv4 address`}},
		{"https://slack.com.0x7f/", HTTP, result{Refusal: `"slack.com.0x7f": a numeric host that is not a plain IPv4 address`}},
		{"https://１２７.０.０.１/", HTTP, result{Refusal: "127.0.0.1 is not in permissions.network of dev.escouade.slack"}},
		{"https://127。0。0。1/", HTTP, result{Refusal: "127.0.0.1 is not in permissions.network of dev.escouade.slack"}},
		{"https://[::1]/", HTTP, result{Refusal: "::1 is not in permissions.network of dev.escouade.slack"}},
		{"https://[::ffff:127.0.0.1]/", HTTP, result{Refusal: "::ffff:127.0.0.1 is not in permissions.network of dev.escouade.slack"}},
		{"https://[::ffff:7f00:1]/", HTTP, result{Refusal: "::ffff:127.0.0.1 is not in permissions.network of dev.escouade.slack"}},
		{"https://[0:0:0:0:0:0:0:1]/", HTTP, result{Refusal: "::1 is not in permissions.network of dev.escouade.slack"}},
		{"https://[fe80::1%25eth0]/", HTTP, result{Refusal: `"fe80::1%eth0": a zoned IPv6 address, which names an interface of this machine`}},
		{"https://[64:ff9b::7f00:1]/", HTTP, result{Refusal: "64:ff9b::7f00:1 is not in permissions.network of dev.escouade.slack"}},
		{"https://0.0.0.0/", HTTP, result{Refusal: "0.0.0.0 is not in permissions.network of dev.escouade.slack"}},
		{"https://203.0.114.8/", HTTP, result{Refusal: "203.0.114.8 is not in permissions.network of dev.escouade.slack"}},
		// Malformed hosts and ports.
		{"https://slack.com:0/", HTTP, result{Refusal: "https://slack.com:0/: not a valid port"}},
		{"https://slack.com:65536/", HTTP, result{Refusal: "https://slack.com:65536/: not a valid port"}},
		{"https://slack.com:/", HTTP, result{Refusal: "https://slack.com:/: not a valid port"}},
		{"https://slack.com:x/", HTTP, result{Refusal: `"https://slack.com:x/": not a valid URL`}},
		{"https://sl_ack.com/", HTTP, result{Refusal: `"sl_ack.com": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://-slack.com/", HTTP, result{Refusal: `"-slack.com": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://slack..com/", HTTP, result{Refusal: `"slack..com": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://./", HTTP, result{Refusal: `".": an empty host name`}},
		{"https://../", HTTP, result{Refusal: `"..": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://slack.com../", HTTP, result{Refusal: `"slack.com..": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://slack.com.../", HTTP, result{Refusal: `"slack.com...": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://.slack.com/", HTTP, result{Refusal: `".slack.com": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://.slack.com./", HTTP, result{Refusal: `".slack.com.": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://api..slack.com/", HTTP, result{Refusal: `"api..slack.com": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://slack.com.。/", HTTP, result{Refusal: `"slack.com.。": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://.127.0.0.1/", HTTP, result{Refusal: `".127.0.0.1": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"wss://.slack.com/", WebSocket, result{Refusal: `".slack.com": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{"https://slack.com\x00.evil/", HTTP, result{Refusal: `"https://slack.com\x00.evil/": not a valid URL`}},
		{"https://slack.com\\@evil.net/", HTTP, result{Refusal: `"https://slack.com\\@evil.net/": not a valid URL`}},
		{"https://[::1/", HTTP, result{Refusal: `"https://[::1/": not a valid URL`}},
		{"https://[slack.com]/", HTTP, result{Refusal: `"https://[slack.com]/": not a valid URL`}},
		{"https://slack.com:443@127.0.0.1/", HTTP, result{Refusal: "https://slack.com:xxxxx@127.0.0.1/: a URL with userinfo is not allowed"}},
		{"https://127.0.0.1#@slack.com/", HTTP, result{Refusal: "127.0.0.1 is not in permissions.network of dev.escouade.slack"}},
		{"https://127.0.0.1?@slack.com/", HTTP, result{Refusal: "127.0.0.1 is not in permissions.network of dev.escouade.slack"}},
	}
	p := testPolicy()
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			target, refusal := p.CheckURL(tt.raw, tt.kind)
			var got result
			if refusal != nil {
				got.Refusal = refusal.Reason
			} else {
				got = result{URL: target.URL.String(), Host: target.Host, Port: target.Port, Local: target.Local}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckURL(%q) (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

// TestAppHostsNeedTheirEntry: the app's hosts count only while the
// plugin holds {account} or local:shared.
func TestAppHostsNeedTheirEntry(t *testing.T) {
	p := NewPolicy(Config{PluginID: pluginID, Network: []string{"slack.com"},
		AccountHosts: []string{"gitlab.corp"}, LocalShared: []string{"127.0.0.1:7777"}})
	for _, raw := range []string{"https://gitlab.corp/", "http://127.0.0.1:7777/"} {
		if _, refusal := p.CheckURL(raw, HTTP); refusal == nil {
			t.Errorf("CheckURL(%q) passed without its entry in permissions.network", raw)
		}
	}
}
