// Command go-notes is the "notes" example plugin, written with the Go kit.
// It runs as a process: the host starts ./run.sh, which builds this
// program into bin/ when needed and then runs it. See README.md.
package main

import (
	"fmt"
	"os"

	"github.com/escouade-dev/escouade-plugin/kit"
)

func main() {
	plugin := kit.New()
	register(plugin, os.Stderr, os.Exit)
	if err := plugin.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "go-notes:", err)
		os.Exit(1)
	}
}
