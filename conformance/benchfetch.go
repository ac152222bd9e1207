package conformance

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/escouade-dev/escouade-plugin/kit/proto"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/services"
)

// methodFetch is the request the bench can answer from escouade-bench.json.
const methodFetch = "net/fetch"

// benchFetch answers net/fetch for the URLs escouade-bench.json gives,
// after the same URL policy as the host's egress guard (the hosts of
// permissions.network, https only): a plugin tested offline gets the
// answer its scenario needs, and a URL its manifest does not allow is
// still refused. Every other URL goes to the real network service.
func benchFetch(m *manifest.Manifest, answers map[string]FetchAnswer, next services.Handler) services.Handler {
	policy := netguard.NewPolicy(netguard.Config{PluginID: m.ID, Network: m.Permissions.Network})
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		var p proto.FetchParams
		if json.Unmarshal(params, &p) != nil {
			return next(ctx, params)
		}
		answer, ok := answers[p.URL]
		if !ok {
			return next(ctx, params)
		}
		if _, refusal := policy.CheckURL(p.URL, netguard.HTTP); refusal != nil {
			return nil, &services.Error{Code: services.CodeForbidden, Message: "The plugin may not reach this address.", Reason: refusal.Reason}
		}
		return fetchResult(answer), nil
	}
}

func fetchResult(a FetchAnswer) proto.FetchResult {
	status := a.Status
	if status == 0 {
		status = 200
	}
	headers := proto.Headers{}
	for k, v := range a.Headers {
		headers[strings.ToLower(k)] = v
	}
	return proto.FetchResult{Status: status, Headers: headers, Body: a.Body, BodyEncoding: proto.BodyEncodingUTF8}
}
