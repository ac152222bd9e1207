package main

import (
	"cmp"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// cmdAgents lists the agents of the described harnesses kept under the
// home, each with its status: an agent whose harness is gone (its plugin
// uninstalled or disabled, or the ACP harness off) stays, marked Harness
// absent, with its conversation (docs/harness.md#persistence-and-harness-absent).
func cmdAgents(e env, args []string) error {
	home, asJSON, pos, err := homeFlags("agents", args, nil)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("agents takes no arguments")
	}
	return listAgents(e, home, asJSON)
}

// listAgents writes the agents of home, as a table or as JSON.
func listAgents(e env, home string, asJSON bool) error {
	list, err := agentListing(home)
	if err != nil {
		return err
	}
	if asJSON {
		if list == nil {
			list = []harness.Listing{}
		}
		return writeJSON(e.stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no agent under this home (escouade-plugin harness DIR starts one)")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tHARNESS\tSTATUS\tLAST ACTIVITY\tITEMS")
	for _, l := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", l.ID, safetext.Line(l.Harness), agentStatus(l), when(l.LastActivity), l.Items)
	}
	return tw.Flush()
}

// agentListing reads the agents of home with their status; a home with
// no harness folder has none (and none is made).
func agentListing(home string) ([]harness.Listing, error) {
	store, err := harness.ExistingStore(home)
	if err != nil || store == nil {
		return nil, err
	}
	reg, err := registry.Open(home)
	if err != nil {
		return nil, err
	}
	acpOn, err := harness.ACPEnabled(home)
	if err != nil {
		return nil, err
	}
	return store.List(reg, acpOn)
}

func agentStatus(l harness.Listing) string {
	if l.Absent {
		return harness.Absent + " (" + safetext.Line(l.Reason) + ")"
	}
	return harness.Available
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// resumeAgent finds what the harness command needs to start a kept agent
// again by its id alone: its plugin's installed folder, its harness, its
// folder and mode. An agent whose harness is absent is refused, saying why
// and that its conversation is kept.
func resumeAgent(home string, f *harnessFlags) (dir string, err error) {
	list, err := agentListing(home)
	if err != nil {
		return "", err
	}
	for _, l := range list {
		if l.ID != f.agent {
			continue
		}
		if l.Absent {
			return "", fmt.Errorf("agent %s: %s: %s; its conversation of %d items is kept (escouade-plugin agents lists them)", l.ID, harness.Absent, l.Reason, l.Items)
		}
		reg, err := registry.Open(home)
		if err != nil {
			return "", err
		}
		en, _ := reg.Get(l.Plugin)
		f.harness = cmp.Or(f.harness, l.HarnessID)
		f.mode = cmp.Or(f.mode, l.Mode)
		if !f.cwdSet {
			f.cwd = l.Cwd
		}
		if f.model == "" {
			f.model = l.Model
		}
		return en.Dir, nil
	}
	return "", fmt.Errorf("no agent %s under %s (escouade-plugin agents lists them)", f.agent, home)
}
