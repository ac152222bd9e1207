package host_test

import (
	"context"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/keychain"
)

// An app makes one host, adds a plugin installed in its home (with package
// registry) and calls it; the host starts its program at the first call.
// It needs an installed plugin and the transports of package modules, so
// it is compiled, not run: examples/embed runs the whole of it.
func Example() {
	ctx := context.Background()
	h := host.New(host.Options{Home: "escouade-home", Keychain: keychain.NewMemory()})
	defer h.Close(ctx)
	p, err := h.AddInstalled("dev.example.notes")
	if err != nil {
		fmt.Println("not added:", err)
		return
	}
	out := p.Call(ctx, "test/do", map[string]any{"x": 1})
	fmt.Println(out, p.Status().State)
}
