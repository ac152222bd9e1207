// Package deps pins the modules that packages under construction import,
// so that go.mod keeps them while those packages land. It is removed once
// every module here has an importer of its own.
package deps

import (
	_ "code.dny.dev/ssrf"
	_ "github.com/chromedp/chromedp"
	_ "github.com/coder/websocket"
	_ "github.com/evanw/esbuild/pkg/api"
	_ "github.com/tetratelabs/wazero"
	_ "golang.org/x/net/idna"
)
