package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/services"
)

func (s *session) checkHostRequests() []Result {
	o := about(CheckHostRequests)
	asked, refusals := s.desk.report()
	if len(refusals) > 0 {
		lines := make([]string, len(refusals))
		for i, r := range refusals {
			lines[i] = r.String()
		}
		res := o.fail("requests inside its permissions, with params the schema allows",
			"the bench refused:\n"+strings.Join(lines, "\n"))
		res.Fix = hostRequestsFix(s.m.Run.Kind(), refusals)
		return []Result{res}
	}
	if len(asked) == 0 {
		return []Result{o.pass("it asked nothing of the host")}
	}
	detail := "it asked " + countMethods(asked)
	if handled := s.desk.handledSoFar(); len(handled) > 0 {
		detail += "; refused and handled by the plugin (its call then answered a result): " + joinRefusals(handled)
	}
	return []Result{o.pass(detail)}
}

// hostRequestsFix says what to change for the refusals the bench made,
// one clause per kind of refusal, naming only the permissions the manifest
// has (docs/protocol.md#1-the-manifest).
func hostRequestsFix(kind manifest.RunKind, refusals []refusal) string {
	var fixes []string
	add := func(f string) {
		if !slices.Contains(fixes, f) {
			fixes = append(fixes, f)
		}
	}
	for _, r := range refusals {
		add(refusalFix(kind, r))
	}
	return strings.Join(fixes, "; ")
}

// moduleOnlyPrefixes are the method families a module is served and a
// process is not.
var moduleOnlyPrefixes = []string{"timer/", "net/", "ws/", "fs/", "proc/"}

func refusalFix(kind manifest.RunKind, r refusal) string {
	family, _, _ := strings.Cut(r.method, "/")
	switch r.code {
	case services.CodeMethodNotFound:
		if kind == manifest.RunProcess && slices.ContainsFunc(moduleOnlyPrefixes, func(p string) bool { return strings.HasPrefix(r.method, p) }) {
			return r.method + " is served to run.wasm and run.js plugins only: a process uses its own language's timers, network, files and programs"
		}
		return "ask only for methods the host serves (docs/protocol.md lists them by kind of program); " + r.method + " is not one"
	case services.CodeInvalidParams:
		return "send " + r.method + " the params the protocol schema gives (docs/protocol.md), as the refusal above names"
	}
	switch family {
	case "secrets":
		return `add the key to "permissions": {"secrets": […]} in escouade-plugin.json, or ask for a key it lists`
	case "files":
		return "read only files of the plugin folder that are not hidden (no name starting with \".\") and within it"
	case "net", "ws":
		return `add the host to "permissions": {"network": […]} in escouade-plugin.json (a name covers its subdomains); ` +
			"an address of this machine or of the local network is never reached, whatever the manifest lists"
	case "fs":
		return `add the root to "permissions": {"files": […]} in escouade-plugin.json (agent, agentRepo, agentHome, temp; ":ro" for read-only), and stay under it`
	case "proc":
		return `add the program's name to "permissions": {"programs": […]} in escouade-plugin.json`
	}
	return fmt.Sprintf("ask only for what the manifest's permissions grant (%s was refused with %d)", r.method, r.code)
}
