package jsrt_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsrt"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// The host's module transport runs the Engine's Module like any reactor,
// with the bundle's files (Engine.Bundle) mounted read-only at /bundle
// beside /plugin; each turn is escouade-budget(2000 or 500) then
// escouade-turn(), and ExitOf reads the engine's own exit codes as a
// transport.Exit.
func Example() {
	dir, err := os.MkdirTemp("", "plugin")
	if err != nil {
		return
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "plugin.mjs"), []byte("console.log('hello')\n"), 0o644); err != nil {
		return
	}
	m := &manifest.Manifest{ID: "dev.escouade.hello", Dir: dir, Run: &manifest.Run{JS: "plugin.mjs"}}
	e := jsrt.New()
	bundle, err := e.Bundle(m) // the refusal text is the stop reason
	if err != nil {
		fmt.Println("not run:", err)
		return
	}
	files, _ := fs.Glob(bundle, "*")
	fmt.Println("/bundle holds", files)
	exit := e.ExitOf(jsrt.ExitTurnTooLong, nil, 2*time.Second) // its proc_exit code
	fmt.Println(errors.Is(exit, transport.ErrTurnTooLong), exit.Limit)
	// Output:
	// /bundle holds [meta.json plugin.mjs runtime.js]
	// true 2s
}
