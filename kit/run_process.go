//go:build !wasip1

package kit

import (
	"context"
	"os"
)

// moduleBuild is false in a process: the host keeps no timers for it
// (timer/* is for modules), so After uses Go timers at once.
const moduleBuild = false

// run serves stdin and stdout as a process.
func (p *Plugin) run() error {
	return p.Serve(context.Background(), os.Stdin, os.Stdout)
}
