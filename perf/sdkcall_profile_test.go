package perf

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/jsrt"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
	"github.com/evanw/esbuild/pkg/api"
)

// TestSDKCallProfile times the pieces of one JS SDK call inside the engine,
// where BenchmarkSDKCall only sees whole round trips: testdata's
// sdkcall-profile.mjs, bundled here with the SDK's built dist/, runs each
// piece in a loop in the engine and reports its time per run. The rounds
// take turns and the fastest of each piece is kept: on a loaded machine
// the fastest is the one least interrupted.
//
//	npm ci --prefix sdk/js
//	cd perf && ESCOUADE_PERF=1 go test -run TestSDKCallProfile -v .
func TestSDKCallProfile(t *testing.T) {
	if os.Getenv(perfEnv) != "1" {
		t.Skip("ESCOUADE_PERF=1 runs the profile")
	}
	if _, err := os.Stat(filepath.Join("..", "sdk", "js", "dist", "index.js")); err != nil {
		t.Skip("the SDK is not built: npm ci --prefix sdk/js")
	}
	m := profileBundle(t)
	tr, err := wasm.New(context.Background(), wasm.Options{JS: jsrt.New(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close(context.Background()) })
	spec := host.LaunchSpecOf(m)
	spec.Stderr = func(l string) { t.Log("stderr:", l) }
	prog, err := tr.Launch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = prog.Stop(context.Background(), transport.StopOptions{}) })
	out := bufio.NewReader(prog.Stdout())

	pieces := []string{
		"bare: JSON.parse",
		"bare: JSON.stringify of the answer",
		"bare: parse and stringify",
		"sdk: decode (parse, checks, the id's text)",
		"sdk: encodeResult",
		"sdk: receive, the whole call",
	}
	// Short samples, many rounds: a sample of a few ms is often one the
	// machine's load left alone, and its runs stay far inside a turn's 2 s.
	const rounds, runs = 25, 60
	fastest := map[string]float64{}
	for range rounds {
		for _, piece := range pieces {
			us := profilePiece(t, prog.Stdin(), out, piece, runs)
			if f, ok := fastest[piece]; !ok || us < f {
				fastest[piece] = us
			}
		}
	}
	var b strings.Builder
	b.WriteString("| piece, in the engine | µs per run (fastest of the rounds) |\n|---|---:|\n")
	for _, piece := range pieces {
		fmt.Fprintf(&b, "| %s | %.1f |\n", piece, fastest[piece])
	}
	fmt.Fprintf(&b, "\nSDK call ÷ bare parse and stringify: %.2f×", fastest["sdk: receive, the whole call"]/fastest["bare: parse and stringify"])
	t.Logf("%d rounds of %d runs\n%s", rounds, runs, b.String())
}

// profileBundle bundles the profile with the SDK into a plugin folder.
func profileBundle(t *testing.T) *manifest.Manifest {
	dir := t.TempDir()
	res := api.Build(api.BuildOptions{
		EntryPoints: []string{filepath.Join("testdata", "sdkcall-profile.mjs")},
		Bundle:      true,
		Format:      api.FormatESModule,
		Platform:    api.PlatformNeutral,
		External:    []string{"node:*"},
		Banner:      map[string]string{"js": "/*! @escouade-dev/plugin v0.3.0 */"},
		Outfile:     filepath.Join(dir, "dist", "plugin.mjs"),
		Write:       true,
		LogLevel:    api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		t.Fatalf("bundling the profile: %s", res.Errors[0].Text)
	}
	return &manifest.Manifest{ID: "dev.escouade.sdkcall-profile", Dir: dir, Run: &manifest.Run{JS: "dist/plugin.mjs"}}
}

func profilePiece(t *testing.T, in io.Writer, out *bufio.Reader, piece string, runs int) float64 {
	line, _ := json.Marshal(map[string]any{"piece": piece, "n": runs})
	if _, err := in.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	answer, err := out.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		US    float64 `json:"us"`
		Error string  `json:"error"`
	}
	if err := json.Unmarshal(answer, &got); err != nil || got.Error != "" {
		t.Fatalf("%s: %s", piece, answer)
	}
	return got.US
}
