package modules_test

import (
	"context"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/modules"
)

// An app gives its host every kind of plugin: modules.Configure fills the
// host's transports and module services, and the host owns them from then
// on (Close closes the WASM transport). It makes the home's compile cache,
// so it is compiled, not run.
func Example() {
	ctx := context.Background()
	home := "escouade-home"
	opts := host.Options{Home: home}
	if _, err := modules.Configure(ctx, &opts, modules.Options{Home: home}); err != nil {
		fmt.Println("no modules:", err)
		return
	}
	h := host.New(opts)
	defer h.Close(ctx) // closes the WASM transport too
}
