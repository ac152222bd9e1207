// Command hello-wasm is the "hello" example plugin written in Go with the
// kit and built as a WebAssembly module: build.sh makes plugin.wasm, which
// the host loads for the manifest's run.wasm. The same source builds and
// runs as a process, with the same answers. See README.md.
package main

import (
	"fmt"
	"os"

	"github.com/escouade-dev/escouade-plugin/kit"
)

func main() {
	plugin := kit.New()
	register(plugin)
	if err := plugin.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "hello-wasm:", err)
		os.Exit(1)
	}
}
