package conformance

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// askedThenAnswers is a plugin whose method tickets/x first asks the host
// for the manifest as a file (refused -32003: the manifest is no data of
// the plugin's), waits for the refusal, then answers the call with member
// (`"result":…` or `"error":…`); when ask is false it asks nothing.
func askedThenAnswers(ask bool, member string) fakePlugin {
	var callID string
	return fakePlugin{answer: func(line []byte) ([]string, bool) {
		decoded := jsonrpc.DecodeLine(line)
		if decoded.Batch || len(decoded.Items) != 1 || decoded.Items[0].Msg == nil {
			return wellBehaved(line)
		}
		m := decoded.Items[0].Msg
		switch {
		case m.Method == "tickets/x" && ask:
			callID = m.ID.String()
			return []string{`{"jsonrpc":"2.0","id":"h1","method":"files/read","params":{"path":"escouade-plugin.json"}}`}, false
		case m.Method == "tickets/x":
			return []string{`{"jsonrpc":"2.0","id":` + m.ID.String() + `,` + member + `}`}, false
		case m.Method == "" && m.ID.String() == `"h1"`:
			return []string{`{"jsonrpc":"2.0","id":` + callID + `,` + member + `}`}, false
		}
		return wellBehaved(line)
	}}
}

// docs/CLI.md#the-checks-in-the-order-they-run: a refusal the plugin
// handled (its call then answered a result) is said, not failed; a
// scenario's "refused" holds the refusals its call meets to the list.
func TestHandledRefusals(t *testing.T) {
	const refusal = "files/read: "
	tests := []struct {
		name   string
		plugin fakePlugin
		bench  string
		fails  []string
		got    string // in the failed row, or in the scenario's pass detail
	}{
		{name: "handled: a result after the refusal",
			plugin: askedThenAnswers(true, `"result":{"count":0}`),
			bench:  `{"scenarios":[{"name":"s","call":"tickets/x"}]}`,
			got:    "it answered a result after the bench refused, so it handled: " + refusal},
		{name: "handled, with an expected result",
			plugin: askedThenAnswers(true, `"result":{"count":0}`),
			bench:  `{"scenarios":[{"name":"s","call":"tickets/x","expect":{"includes":{"count":0}}}]}`,
			got:    "so it handled: " + refusal},
		{name: "not handled: an error after the refusal",
			plugin: askedThenAnswers(true, `"error":{"code":-32603,"message":"fetch failed"}`),
			bench:  `{"scenarios":[{"name":"s","call":"tickets/x"}]}`,
			fails:  []string{ScenarioPrefix + "s"}, got: "while it ran, the bench refused:\n" + refusal},
		{name: "listed and met",
			plugin: askedThenAnswers(true, `"result":{"count":0}`),
			bench:  `{"scenarios":[{"name":"s","call":"tickets/x","refused":[{"method":"files/read","code":-32003}]}]}`,
			got:    "met the refusals it lists: " + refusal},
		{name: "listed and met, the call answering the error",
			plugin: askedThenAnswers(true, `"error":{"code":-32003,"message":"refused"}`),
			bench:  `{"scenarios":[{"name":"s","call":"tickets/x","expect":{"error":{"code":-32003}},"refused":[{"method":"files/read"}]}]}`,
			got:    "met the refusals it lists: " + refusal},
		{name: "listed, not met",
			plugin: askedThenAnswers(false, `"result":{"count":0}`),
			bench:  `{"scenarios":[{"name":"s","call":"tickets/x","refused":[{"method":"net/fetch","code":-32003}]}]}`,
			fails:  []string{ScenarioPrefix + "s"}, got: "the bench refused nothing; not met: net/fetch (-32003)"},
		{name: "met, not listed",
			plugin: askedThenAnswers(true, `"result":{"count":0}`),
			bench:  `{"scenarios":[{"name":"s","call":"tickets/x","refused":[{"method":"files/read","code":-32602}]}]}`,
			fails:  []string{ScenarioPrefix + "s"}, got: "the bench refused what the scenario does not list: " + refusal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := pluginDir(t, "", tt.bench)
			synctest.Test(t, func(t *testing.T) {
				r := Run(context.Background(), dir, Options{Transports: fakeTransports(tt.plugin)})
				if diff := cmp.Diff(tt.fails, failures(r)); diff != "" {
					logReport(t, r)
					t.Fatalf("failed checks (-want +got):\n%s", diff)
				}
				res, _ := r.Result(ScenarioPrefix + "s")
				if said := res.Got + res.Detail; !strings.Contains(said, tt.got) {
					t.Errorf("scenario row says %q, want it to hold %q", said, tt.got)
				}
				if tt.fails != nil {
					return
				}
				hr, _ := r.Result(CheckHostRequests)
				if !strings.Contains(hr.Detail, "refused and handled by the plugin (its call then answered a result): "+refusal) {
					t.Errorf("host-requests says %q, want the handled refusal said", hr.Detail)
				}
			})
		})
	}
}

// A refusal outside any scenario's call stays the fault of host-requests:
// nothing tells that the plugin handled it.
func TestRefusalOutsideScenariosStillFails(t *testing.T) {
	dir := pluginDir(t, "", `{"scenarios":[{"name":"s","call":"tickets/x","expect":{"error":{"code":-32601}}}]}`)
	plugin := fakePlugin{atStart: []string{`{"jsonrpc":"2.0","id":"h1","method":"files/read","params":{"path":"escouade-plugin.json"}}`},
		answer: wellBehaved}
	synctest.Test(t, func(t *testing.T) {
		r := Run(context.Background(), dir, Options{Transports: fakeTransports(plugin)})
		if diff := cmp.Diff([]string{CheckHostRequests}, failures(r)); diff != "" {
			logReport(t, r)
			t.Fatalf("failed checks (-want +got):\n%s", diff)
		}
	})
}
