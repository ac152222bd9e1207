package protocol

import (
	"time"

	"github.com/escouade-dev/escouade-plugin/vocab"
)

// The protocol's numbers, typed, under names that say the rule. Each is
// written once, in the schema's x-limits (generated into vocab, where
// jsonrpc, below this package, reads its own); docs/protocol.md#numbers
// lists them all, and TestNumbersTableMatchesConstants holds that table
// to these constants. The packages that apply a rule take their default
// from here; their options may still set another value.
const (
	// MaxLineBytes is the longest line either side reads (§3).
	MaxLineBytes = vocab.LimitMaxLineBytes
	// ExcerptBytes is how much of a bad line the journal quotes (§3).
	ExcerptBytes = vocab.LimitExcerptBytes
	// MaxRequests, MaxHeldBytes, MaxNotifications and MaxLater bound what
	// a connection holds for its peer before it pauses reading (§3).
	MaxRequests      = vocab.LimitMaxRequests
	MaxHeldBytes     = vocab.LimitMaxHeldBytes
	MaxNotifications = vocab.LimitMaxNotifications
	MaxLater         = vocab.LimitMaxLater
	// LateMemory is how many timed-out calls are remembered, so that
	// their late answers are journaled as late (§3).
	LateMemory = vocab.LimitLateMemory
	// StderrPieceBytes is the longest stderr line the journal takes
	// whole (§3).
	StderrPieceBytes = vocab.LimitStderrPieceBytes
	// CrashStderrLines is how many last stderr lines a crash entry
	// quotes (§6).
	CrashStderrLines = vocab.LimitCrashStderrLines
	// WriteTimeout ends a program that takes no line of its stdin (§5).
	WriteTimeout = vocab.LimitWriteTimeoutMs * time.Millisecond
	// QueueSize bounds what waits while a program starts (§6).
	QueueSize = vocab.LimitQueueSize
	// MaxRestarts crashes are restarted within CrashWindow; the next one
	// stops the plugin (§6).
	MaxRestarts = vocab.LimitMaxRestarts
	CrashWindow = vocab.LimitCrashWindowMs * time.Millisecond
	// StopGrace is each step of stopping a program (§6, §9).
	StopGrace = vocab.LimitStopGraceMs * time.Millisecond
	// ShutdownWait is how long closing the host waits for the shutdown
	// answers, all plugins together (§9).
	ShutdownWait = vocab.LimitShutdownWaitMs * time.Millisecond
	// ProgramMemory is the resident memory past which a program is
	// stopped, read every MemoryPeriod (§8).
	ProgramMemory = vocab.LimitProgramMemoryBytes
	MemoryPeriod  = vocab.LimitMemoryPeriodMs * time.Millisecond
	// ReadFileBytes is the largest file files/read hands out (§7).
	ReadFileBytes = vocab.LimitReadFileBytes
	// ProjectFileBytes is the largest .escouade.yml settings/get reads (§7).
	ProjectFileBytes = vocab.LimitProjectFileBytes
	// JournalRotateBytes is the size past which a journal file is rotated
	// (§11); JournalQueueLines the lines that may wait for the disk.
	JournalRotateBytes = vocab.LimitJournalRotateBytes
	JournalQueueLines  = vocab.LimitJournalQueueLines
)

// The sizes of the files the host reads (§1: how the host reads a
// plugin's files), and the bounds of a plugin's folder and of an install
// from git.
const (
	ManifestBytes     = vocab.LimitManifestBytes
	ModuleBytes       = vocab.LimitModuleBytes
	VersionFileBytes  = vocab.LimitVersionFileBytes
	BundleBytes       = vocab.LimitBundleBytes
	BenchFileBytes    = vocab.LimitBenchFileBytes
	RegistryFileBytes = vocab.LimitRegistryFileBytes
	SettingsFileBytes = vocab.LimitSettingsFileBytes
	// FolderEntries and FolderBytes bound a plugin's folder, each file
	// and folder counted as one entry and as at least FolderBlockBytes.
	FolderEntries    = vocab.LimitFolderEntries
	FolderBytes      = vocab.LimitFolderBytes
	FolderBlockBytes = vocab.LimitFolderBlockBytes
	// CloneTime and CloneBytes bound the fetch of an install from git.
	CloneTime  = vocab.LimitCloneTimeMs * time.Millisecond
	CloneBytes = vocab.LimitCloneBytes
)

// The numbers of modules and bundles (§13, §14): the limits of an
// instance, run.wasm and run.js alike, its files, its compile and its
// network answers.
const (
	// TurnLimit is the time of one turn, and of a reactor's start;
	// DecisionTurnLimit the time of a turn while the instance holds a
	// decision an agent waits for (a permissions/… call).
	TurnLimit         = vocab.LimitTurnMs * time.Millisecond
	DecisionTurnLimit = vocab.LimitDecisionTurnMs * time.Millisecond
	// ModuleMemory is an instance's linear memory.
	ModuleMemory = vocab.LimitModuleMemoryBytes
	// ModuleStdoutBytes is what an instance may write unread before its
	// write waits, its turn clock running.
	ModuleStdoutBytes = vocab.LimitModuleStdoutBytes
	// ModuleFileBytes and ModuleFilesBytes bound the root JSON files
	// given at /plugin, each and in all.
	ModuleFileBytes  = vocab.LimitModuleFileBytes
	ModuleFilesBytes = vocab.LimitModuleFilesBytes
	// CompileTime and CompileMemory bound one module's compile.
	CompileTime   = vocab.LimitCompileTimeMs * time.Millisecond
	CompileMemory = vocab.LimitCompileMemoryBytes
	// MaxFetchBytes is the largest body a net/fetch answer carries,
	// whatever limits.netMaxBytes says (the answer is one line of at most
	// MaxLineBytes, and base64 makes a body a third larger: half of a
	// line leaves room for the headers); MaxNetMaxBytes the most limits.netMaxBytes
	// gives net/stream. The install window says them.
	MaxFetchBytes  = vocab.LimitMaxFetchBytes
	MaxNetMaxBytes = vocab.LimitMaxNetMaxBytes
)

// The numbers of the services of modules and bundles (§14), each named by
// its family.
const (
	// NetTimeout and NetBodyBytes bound one net/fetch or net/stream
	// request unless the manifest's limits say otherwise, up to
	// NetMaxTimeout and MaxNetMaxBytes; NetFlightBytes bounds the bodies
	// an instance's fetches hold at once, NetMaxStreams its streams.
	NetTimeout     = vocab.LimitNetTimeoutMs * time.Millisecond
	NetMaxTimeout  = vocab.LimitNetMaxTimeoutMs * time.Millisecond
	NetBodyBytes   = vocab.LimitNetBodyBytes
	NetFlightBytes = vocab.LimitNetFlightBytes
	NetMaxStreams  = vocab.LimitNetMaxStreams
	// WsMaxSockets bounds an instance's sockets, WsMessageBytes a message.
	WsMaxSockets   = vocab.LimitWsMaxSockets
	WsMessageBytes = vocab.LimitWsMessageBytes
	// TimerMinDelay is the shortest timer; TimerMaxPending how many an
	// instance holds.
	TimerMinDelay   = vocab.LimitTimerMinDelayMs * time.Millisecond
	TimerMaxPending = vocab.LimitTimerMaxPending
	// FsReadBytes is the largest file fs/read hands out.
	FsReadBytes = vocab.LimitFsReadBytes
	// ProcTimeout bounds one proc/run, ProcOutputBytes what it keeps of
	// each output, ProcMaxRunning how many run at once.
	ProcTimeout     = vocab.LimitProcTimeoutMs * time.Millisecond
	ProcOutputBytes = vocab.LimitProcOutputBytes
	ProcMaxRunning  = vocab.LimitProcMaxRunning
)
