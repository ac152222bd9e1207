package conformance

import (
	"context"
	"encoding/json"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// methodFetch is the request the bench can answer from escouade-bench.json.
const methodFetch = vocab.MethodNetFetch

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
		target, refusal := policy.CheckURL(p.URL, netguard.HTTP)
		if refusal == nil && !target.Local {
			refusal = judgeName(ctx, target.Host)
		}
		if refusal != nil {
			return nil, &services.Error{Code: services.CodeForbidden, Message: vocab.MessageForbiddenAddress, Reason: refusal.Reason}
		}
		return fetchResult(answer), nil
	}
}

// judgeName applies the guard's address rules to a listed name the
// scripted answer will not dial: a name of this machine, or one that
// resolves to an address of this machine or the local network, is refused
// as the host refuses it when it dials. A name that does not resolve (the
// bench is offline) gets its scripted answer.
func judgeName(ctx context.Context, host string) *netguard.Refusal {
	if _, err := netip.ParseAddr(host); err == nil {
		return nil // an IP literal: CheckURL judged it
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return &netguard.Refusal{Reason: host + " names this machine, which a plugin never reaches"}
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if netguard.Forbidden(a) {
			return &netguard.Refusal{Reason: host + " resolves to " + a.String() + ", an address of this machine or the local network, which a plugin never reaches"}
		}
	}
	return nil
}

// resolveTimeout bounds the lookup of a scripted URL's host.
const resolveTimeout = 2 * time.Second

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
