// Command turns is the plugin the kit's tests build twice from this one
// source: as a process, and with GOOS=wasip1 -buildmode=c-shared as a
// reactor module. Its methods reach every part of the kit a module
// changes: calls to the host, timers, goroutines, batches and exits.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/kit"
)

func main() {
	p := kit.New()
	register(p)
	if err := p.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "turns:", err)
		os.Exit(1)
	}
}

func register(p *kit.Plugin) {
	p.Handle("t/echo", func(_ context.Context, params json.RawMessage) (any, error) { return params, nil })
	p.Handle("t/secret", func(ctx context.Context, _ json.RawMessage) (any, error) {
		value, found, err := p.Secret(ctx, "token")
		return map[string]any{"found": found, "length": len(value)}, err
	})
	p.Handle("t/file", func(ctx context.Context, _ json.RawMessage) (any, error) {
		text, err := p.ReadFile(ctx, "data/words.txt")
		return map[string]int{"bytes": len(text)}, err
	})
	p.Handle("t/settings", func(ctx context.Context, _ json.RawMessage) (any, error) {
		return p.Settings(ctx, "")
	})
	p.Handle("t/sleep", func(ctx context.Context, params json.RawMessage) (any, error) {
		in, err := kit.Decode[struct{ Ms int }](params)
		if err != nil {
			return nil, err
		}
		if err := p.Sleep(ctx, time.Duration(in.Ms)*time.Millisecond); err != nil {
			return nil, err
		}
		return map[string]int{"slept": in.Ms}, nil
	})
	p.Handle("t/sleeps", func(ctx context.Context, params json.RawMessage) (any, error) {
		return sleeps(ctx, p, params)
	})
	p.Handle("t/stop", func(ctx context.Context, _ json.RawMessage) (any, error) {
		t, err := p.After(ctx, time.Hour)
		if err != nil {
			return nil, err
		}
		return map[string]bool{"stopped": t.Stop(), "again": t.Stop()}, nil
	})
	p.Handle("t/after", func(ctx context.Context, _ json.RawMessage) (any, error) {
		called := make(chan struct{})
		if _, err := p.AfterFunc(ctx, 15*time.Millisecond, func() { close(called) }); err != nil {
			return nil, err
		}
		<-called
		return map[string]bool{"called": true}, nil
	})
	p.Handle("t/gosleep", func(context.Context, json.RawMessage) (any, error) {
		time.Sleep(time.Hour) // a Go timer, which a module's turns never run
		return nil, nil
	})
	p.Handle("t/ring", ring)
	p.Handle("t/panic", func(context.Context, json.RawMessage) (any, error) { panic("on purpose") })
	p.Handle("t/exit", func(_ context.Context, params json.RawMessage) (any, error) {
		in, err := kit.Decode[struct{ Code int }](params)
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(os.Stderr, "turns: exiting with", in.Code)
		os.Exit(in.Code)
		return nil, nil
	})
	p.OnEvent("note", func(_ context.Context, params json.RawMessage) {
		p.Log(kit.LevelInfo, "note "+string(params))
	})
}

// sleeps sleeps each of ms at once, on goroutines of their own, and
// answers what they slept, sorted.
func sleeps(ctx context.Context, p *kit.Plugin, params json.RawMessage) (any, error) {
	in, err := kit.Decode[struct{ Ms []int }](params)
	if err != nil {
		return nil, err
	}
	var (
		mu    sync.Mutex
		woke  []int
		wg    sync.WaitGroup
		first error
	)
	for _, ms := range in.Ms {
		wg.Go(func() {
			err := p.Sleep(ctx, time.Duration(ms)*time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && first == nil {
				first = err
			}
			woke = append(woke, ms)
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	slices.Sort(woke)
	return map[string][]int{"woke": woke}, nil
}

// ring passes a count around a ring of goroutines: every hop is a
// goroutine waking another, which a module's turn must run to the end.
func ring(_ context.Context, params json.RawMessage) (any, error) {
	in, err := kit.Decode[struct{ Goroutines, Laps int }](params)
	if err != nil {
		return nil, err
	}
	if in.Goroutines < 1 {
		return nil, fmt.Errorf("goroutines must be 1 or more")
	}
	first := make(chan int)
	in0 := first
	for range in.Goroutines - 1 {
		out := make(chan int)
		go func(in <-chan int, out chan<- int) {
			for n := range in {
				out <- n + 1
			}
			close(out)
		}(in0, out)
		in0 = out
	}
	last := in0
	count := 0
	for range in.Laps {
		first <- count
		count = <-last + 1
	}
	close(first)
	return map[string]int{"hops": count}, nil
}
