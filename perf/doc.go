// Package perf measures what the plugin host costs on top of the pipe it
// speaks over, and places it among its peers. It is a module of its own,
// so that the peers it compares with (hashicorp/go-plugin over net/rpc,
// the MCP Go SDK over stdio) stay out of the main module. It holds only
// tests and benchmarks: the test binary re-runs itself as the programs at
// the other end of the pipe (TestMain reads ESCOUADE_PERF_PROGRAM), so
// both sides of every comparison pay the same process start, pipe and
// scheduler costs.
//
// The programs are:
//
//   - raw-echo: reads lines from stdin and writes each one back, flushed
//     per line, with no JSON at all. It is the physical limit of the pipe.
//   - conn-plugin: a protocol-1 plugin built on jsonrpc.Conn that answers
//     initialize and echoes the params of perf/echo, the least a real
//     plugin does per line.
//   - kit-plugin: the same plugin written with the Go kit.
//   - inline-plugin: the same plugin answering each line on its reader
//     goroutine, to tell the cost of JSON from that of goroutine handoffs;
//     fed fixed bytes it is the baseline ("pipe"), under the host the side
//     the targets are for ("host").
//   - goplugin-echo and mcp-echo: the echo as a go-plugin net/rpc plugin
//     and as an MCP tool; testdata/echo-plugin.mjs is the echo in node.
//
// The benchmarks run the raw pipe and the host side by side in one run,
// with sides that take the host or the plugin's concurrency away to show
// where the time goes (see rigs):
//
//	cd perf && go test -run '^$' -bench . -count 2 .
//
// ESCOUADE_PERF_PROGRAM_PROFILE names a folder where each program writes
// its CPU profile, since -cpuprofile only sees the calling side.
//
// Benchmarks do not interleave, so on a busy machine their ratios drift.
// TestReportRatios runs every side in turn, several rounds, and compares
// the medians against the targets (round trip within 1.5× the pipe,
// batches of 100 at least 0.5× its throughput, 4× faster than go-plugin);
// TestReportStart compares a plugin's start through the host with a bare
// child's. They run only when ESCOUADE_PERF=1:
//
//	cd perf && ESCOUADE_PERF=1 go test -run 'TestReportRatios|TestReportStart' -v .
//
// docs/PERFORMANCE.md holds the results and the profile findings.
package perf
