//go:build wasip1

// Command kitmod is a test module of the reactor shape, written with the
// project's Go kit (escouade-turn exported by the kit).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"
	"unsafe"

	"github.com/escouade-dev/escouade-plugin/kit"
)

var (
	kept [][]byte
	spin int
	seen int
)

func main() {
	p := kit.New()
	p.Handle("kit/echo", func(_ context.Context, params json.RawMessage) (any, error) {
		seen++
		return params, nil
	})
	p.Handle("kit/seen", func(context.Context, json.RawMessage) (any, error) { return seen, nil })
	p.Handle("kit/secret", func(ctx context.Context, _ json.RawMessage) (any, error) {
		v, found, err := p.Secret(ctx, "token")
		if err != nil {
			return nil, err
		}
		p.Log(kit.LevelInfo, "the token is "+v)
		fmt.Fprintln(os.Stderr, "stderr says the token is "+v)
		return found, nil
	})
	p.Handle("kit/sleep", func(ctx context.Context, params json.RawMessage) (any, error) {
		var ms int
		argument(params, &ms)
		return ms, p.Sleep(ctx, time.Duration(ms)*time.Millisecond)
	})
	p.Handle("kit/arm", func(ctx context.Context, params json.RawMessage) (any, error) {
		var what string
		argument(params, &what)
		p.Log(kit.LevelInfo, "armed "+what)
		_, err := p.AfterFunc(context.Background(), 10*time.Millisecond, func() { fault(what) })
		return nil, err
	})
	if err := p.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "kitmod:", err)
		os.Exit(1)
	}
}

func fault(what string) {
	switch what {
	case "loop":
		for {
			spin++
		}
	case "grow":
		// One allocation past the 64 MB: a single memory.grow the host
		// refuses, so the limit acts at once, however loaded the machine.
		for {
			kept = append(kept, make([]byte, 96<<20))
		}
	case "panic":
		panic("boom")
	case "trap":
		p := (*byte)(unsafe.Pointer(uintptr(0xfffffff0)))
		*p = 1
	}
}

// argument decodes params into v, or their first element when params are
// an array.
func argument(params json.RawMessage, v any) {
	if json.Unmarshal(params, v) == nil {
		return
	}
	var list []json.RawMessage
	if json.Unmarshal(params, &list) == nil && len(list) > 0 {
		json.Unmarshal(list[0], v)
	}
}
