package jsrt_test

import (
	"fmt"

	"github.com/escouade-dev/escouade-plugin/jsrt"
)

func ExampleCheck() {
	fmt.Println(jsrt.Check([]byte("import { spawn } from 'node:child_process';\nspawn('ls')"), "dist/plugin.mjs"))
	fmt.Println(jsrt.Check([]byte("/*! @escouade-dev/plugin v0.2.4 */\nconsole.log(1)"), "dist/plugin.mjs"))
	fmt.Println(jsrt.Check([]byte("import { readFileSync } from 'node:fs';\nconsole.log(readFileSync)"), "dist/plugin.mjs"))
	// Output:
	// dist/plugin.mjs:1:22: imports "node:child_process": a run.js bundle may import only node:fs and node:readline
	// built with @escouade-dev/plugin 0.2: rebuild it with @escouade-dev/plugin 0.3 or later
	// <nil>
}
