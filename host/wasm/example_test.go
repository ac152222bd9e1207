package wasm_test

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// The host makes one Transport for every module plugin, precompiles at
// install, and launches at each start; the supervisor speaks JSON-RPC over
// the Program's stdin and stdout and journals the sentence it says of the Exit.
func Example() {
	ctx := context.Background()
	home := "escouade-home"
	t, err := wasm.New(ctx, wasm.Options{CacheDir: filepath.Join(home, "wasm-cache"), HostVersion: "2.2.0"})
	if err != nil {
		return
	}
	defer t.Close(ctx)
	m, err := manifest.Load(filepath.Join("plugins", "dev.escouade.hello"), manifest.LoadOptions{})
	if err != nil {
		return
	}
	if err := t.Precompile(ctx, m, func(line string) { fmt.Println(line) }); err != nil {
		fmt.Println("not installed:", err)
		return
	}
	prog, err := t.Launch(ctx, host.LaunchSpecOf(m))
	if err != nil {
		fmt.Println("could not start:", err)
		return
	}
	conn := jsonrpc.NewConn(prog.Stdout(), prog.Stdin(), jsonrpc.Options{})
	defer conn.Close()
	_, _ = conn.Call(ctx, "initialize", map[string]any{})
	_ = prog.Stop(ctx, transport.StopOptions{})
	<-prog.Done()
	fmt.Println(prog.ID(), host.CrashSentence(prog.Exit()))
}
