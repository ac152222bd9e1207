package perf

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/process"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// maxStartRatio is the target for starting a plugin: from the host's Add
// to the first call's answer, against a bare child process started and
// sent the same two lines (initialize, then the call).
const maxStartRatio = 1.5

// startRounds is how many interleaved samples of each start are taken.
const startRounds = 15

// TestReportStart measures the start of a plugin through the host against
// a bare child, in interleaved rounds, and checks the median ratio.
func TestReportStart(t *testing.T) {
	if os.Getenv(perfEnv) != "1" {
		t.Skipf("set %s=1 to measure starts", perfEnv)
	}
	var bare, hosted []time.Duration
	for round := range startRounds {
		order := []bool{false, true} // hosted or not, alternating who goes first
		if round%2 == 1 {
			order = []bool{true, false}
		}
		for _, throughHost := range order {
			start := startBare
			if throughHost {
				start = startHosted
			}
			took := start(t)
			switch {
			case round == 0: // warms the page cache for both
			case throughHost:
				hosted = append(hosted, took)
			default:
				bare = append(bare, took)
			}
		}
	}
	ratios := make([]float64, len(bare))
	for i := range bare {
		ratios[i] = float64(hosted[i]) / float64(bare[i])
	}
	ratio := median(ratios)
	t.Logf("start to first answer: bare child %v, through the host %v, %.2f×", median(bare), median(hosted), ratio)
	if ratio > maxStartRatio {
		t.Errorf("start through the host %.2f× a bare child's, target at most %.1f×", ratio, maxStartRatio)
	}
}

// startBare starts the inline plugin as a bare child, sends initialize
// and one echo call, and returns the time to the echo's answer.
func startBare(tb testing.TB) time.Duration {
	start := time.Now()
	prog := startProgram(tb, programInline)
	defer prog.stop()
	out := bufio.NewReader(prog.out)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n",
		string(echoLine(2)),
	} {
		if _, err := prog.in.Write([]byte(line)); err != nil {
			tb.Fatal(err)
		}
		if _, err := out.ReadSlice('\n'); err != nil {
			tb.Fatal(err)
		}
	}
	return time.Since(start)
}

// startHosted adds the same plugin to a new host and returns the time
// from Add to the answer of its first call, which starts it.
func startHosted(tb testing.TB) time.Duration {
	h := host.New(host.Options{
		Home:       tb.TempDir(),
		Keychain:   keychain.NewMemory(),
		Env:        append(os.Environ(), programEnv+"="+programInline),
		Transports: map[manifest.RunKind]transport.Transport{manifest.RunProcess: process.NewTransport(0).Passing(programEnv, programProfileEnv)},
	})
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		defer cancel()
		h.Close(ctx)
	}()
	m := perfManifest(tb, []string{testBinary(tb), "-test.run=^$"})
	start := time.Now()
	p, err := h.Add(m, host.Config{Admit: registry.AnyFolder})
	if err != nil {
		tb.Fatal(err)
	}
	one := json.RawMessage(echoParams)
	if err := checkOutcome(p.Call(context.Background(), echoMethod, one), one); err != nil {
		tb.Fatal(fmt.Errorf("first call: %w", err))
	}
	return time.Since(start)
}
