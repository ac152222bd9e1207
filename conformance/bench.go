package conformance

import (
	"context"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// step is one check of a running program. A failed ground step leaves
// nothing to test after it (no handshake); an always step still runs then,
// as it judges what already happened.
type step struct {
	run       func(*session) []Result
	skips     []string // the rows it makes, to mark skipped
	scenarios bool     // it makes the rows of escouade-bench.json
	ground    bool
	always    bool
}

// steps returns the checks of a started program in the order they run.
func steps() []step {
	return []step{
		{run: (*session).checkInitialize, skips: []string{CheckInitialize}, ground: true},
		{run: (*session).checkIDs, skips: []string{CheckIDs}},
		{run: (*session).checkBatch, skips: []string{CheckBatch}},
		{run: (*session).checkNotificationBatch, skips: []string{CheckNotificationBatch}},
		{run: (*session).checkConcurrent, skips: []string{CheckConcurrent}},
		{run: (*session).checkUnknownMethod, skips: []string{CheckUnknownMethod}},
		{run: (*session).checkDelay, skips: []string{CheckDelay}},
		{run: (*session).playScenarios, scenarios: true},
		{run: (*session).checkHostRequests, skips: []string{CheckHostRequests}},
		{run: (*session).checkMemory, skips: []string{CheckMemory}},
		{run: (*session).checkShutdown, skips: []string{CheckShutdown}},
		{run: (*session).checkChildren, skips: []string{CheckChildren}},
		{run: (*session).stop, always: true},
		{run: (*session).checkStdout, skips: []string{CheckStdout}, always: true},
	}
}

// Run plays the host against the plugin in dir and reports every check.
// It never fails: what goes wrong is a failed check. ctx cancelled cuts
// the final stop short.
func Run(ctx context.Context, dir string, opts Options) *Report {
	opts = opts.withDefaults()
	r := &Report{Dir: dir}
	m, err := manifest.Load(dir, manifest.LoadOptions{AppVersion: opts.AppVersion})
	if err != nil {
		r.add(about(CheckManifest).fail("a manifest that holds", err.Error()))
		r.skipAll("the manifest does not hold")
		return r
	}
	r.Plugin, r.Version = m.ID, m.Version
	r.add(about(CheckManifest).pass(""))
	bench, benchErr := LoadBenchFile(dir)
	if benchErr != nil {
		r.add(about(CheckScenarios).fail("an escouade-bench.json that holds", benchErr.Error()))
	}
	if m.Run.Kind() == manifest.RunNone {
		r.skipAll("a declarative plugin: nothing runs")
		return r
	}
	r.add(checkActivation(m))
	s, res := start(ctx, m, bench, opts)
	r.add(res)
	if s == nil {
		r.skipAll("the program did not start")
		return r
	}
	r.play(ctx, s)
	return r
}

// checkActivation fails a plugin whose program nothing starts: with run
// but no activation the host never starts it, and every call to it gets
// the default answer at once. The bench still plays the program, so the
// author sees every other fault in the same run.
func checkActivation(m *manifest.Manifest) Result {
	o := about(CheckActivation)
	if m.HasActivation() {
		return o.pass(strings.Join(m.Activation, ", "))
	}
	return o.fail(`"activation" naming what starts the program, as "run" gives one`,
		`"run" names a program but "activation" is missing or empty: the host never starts it `+
			`(every call gets the default answer at once; the journal says "not started: it has no activation")`)
}

// start starts the program and the bench's end of its wire.
func start(ctx context.Context, m *manifest.Manifest, bench *BenchFile, opts Options) (*session, Result) {
	o := about(CheckStart)
	t, err := opts.transportFor(m)
	if err != nil {
		res := o.fail("a program the bench can run", err.Error())
		res.Fix = "none in the plugin: test it with an escouade-plugin that runs this kind of program"
		return nil, res
	}
	if missing := modules.BuildOf(m).Missing(); missing != nil {
		res := o.fail("the program of run running", missing.Error())
		res.Fix = buildFix(m)
		return nil, res
	}
	stderr := &stderrLines{keep: opts.StderrKeep}
	spec := host.LaunchSpecOf(m)
	spec.Stderr = stderr.add
	if m.Run.Kind() == manifest.RunProcess {
		spec.Env = host.PluginEnv(opts.Env, m.ID, opts.AppVersion, opts.Lang)
	}
	prog, err := t.Launch(ctx, spec)
	if err != nil {
		res := o.fail("the program of run running", err.Error())
		res.Fix = startFix(m, err)
		return nil, res
	}
	s := &session{opts: opts, m: m, bench: bench, prog: prog, stderr: stderr}
	s.desk = newHostDesk(m, s.deskData())
	// The services are made on the wire before it reads, as the host makes
	// them on the program's connection.
	s.wire = newWire(prog.Stdin(), s.desk.serve)
	s.modules, s.desk.modules = newModuleServices(ctx, m, opts, stderr.add, s.wire)
	if fetch, ok := s.desk.modules[methodFetch]; ok && bench != nil && len(bench.Fetch) > 0 {
		s.desk.modules[methodFetch] = benchFetch(m, bench.Fetch, fetch)
	}
	s.wire.start(prog.Stdout())
	return s, o.pass(runText(m))
}

func (s *session) deskData() deskData {
	d := deskData{secrets: map[string]string{}, projects: s.opts.Projects}
	if s.bench != nil {
		for k, v := range s.bench.Secrets {
			d.secrets[k] = v
		}
		d.settings = s.bench.Settings
	}
	for k, v := range s.opts.Secrets {
		d.secrets[k] = v
	}
	if s.opts.Settings != nil {
		d.settings = s.opts.Settings
	}
	return d
}

// play runs the steps, skipping those left without ground.
func (r *Report) play(ctx context.Context, s *session) {
	s.ctx = ctx
	defer s.stop()
	grounded := true
	for _, st := range steps() {
		switch {
		case st.always:
		case !grounded:
			r.skip(s.rowsOf(st), "initialize failed")
			continue
		case s.crashedIn != "":
			r.skip(s.rowsOf(st), s.crashSkip())
			continue
		}
		s.row = ""
		if rows := s.rowsOf(st); len(rows) == 1 && !st.scenarios {
			s.row = rows[0]
		}
		results := st.run(s)
		if !st.always {
			results = s.noteCrash(results)
		}
		r.Results = append(r.Results, results...)
		if st.ground && hasFailure(results) {
			grounded = false
		}
	}
	rest := s.wire.inbox.drain()
	s.noteLateAnswers(r, rest)
	s.noteBufferedInit(r, rest)
	r.Stderr = s.stderr.last()
}

// rowsOf names the rows a step makes: its checks, or the scenarios.
func (s *session) rowsOf(st step) []string {
	if st.skips != nil || s.bench == nil || !st.scenarios {
		return st.skips
	}
	rows := make([]string, len(s.bench.Scenarios))
	for i, sc := range s.bench.Scenarios {
		rows[i] = ScenarioPrefix + sc.Name
	}
	return rows
}

// stop stops the program and all it started and waits for the bench's
// reader; it makes no row. Calling it again does nothing.
func (s *session) stop() []Result {
	if s.stopped {
		return nil
	}
	s.stopped = true
	_ = s.prog.Stop(s.ctx, transport.StopOptions{})
	// Once the group is dead stdout ends by itself; a process that escaped
	// the group may hold it open, so the bench's end is closed after a grace.
	timer := time.NewTimer(s.opts.StopGrace)
	defer timer.Stop()
	select {
	case <-s.wire.readerDone():
	case <-timer.C:
	}
	s.prog.Stdout().Close()
	s.wire.close()
	s.modules.close()
	return nil
}

func hasFailure(results []Result) bool {
	for _, res := range results {
		if res.Status == Fail {
			return true
		}
	}
	return false
}

func (r *Report) add(res Result) { r.Results = append(r.Results, res) }

func (r *Report) skip(names []string, why string) {
	for _, name := range names {
		r.add(about(name).skip(why))
	}
}

// skipAll marks skipped every built-in check without a row yet.
func (r *Report) skipAll(why string) {
	for _, c := range Checks() {
		if _, done := r.Result(c.Name); !done && c.Name != CheckScenarios {
			r.add(about(c.Name).skip(why))
		}
	}
}

// runText names what runs: the command of a process, the module or bundle
// of the others.
func runText(m *manifest.Manifest) string {
	switch m.Run.Kind() {
	case manifest.RunJS:
		return m.Run.JS
	case manifest.RunWASM:
		return "plugin.wasm"
	}
	return strings.Join(m.Run.Command, " ")
}
