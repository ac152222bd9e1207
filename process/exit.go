package process

import "strconv"

// Exit is how the program ended.
type Exit struct {
	// Code is the exit code, or -1 when a signal ended the program.
	Code int
	// Signal names the signal that ended the program, as
	// syscall.Signal.String() spells it ("killed", "terminated",
	// "segmentation fault"); empty when it exited by itself.
	Signal string
}

// killedSignal is Exit.Signal of a program SIGKILL ended (and on Windows,
// of one its job object ended).
const killedSignal = "killed"

// signalledCode is Exit.Code for a program ended by a signal, as
// os.ProcessState.ExitCode reports it.
const signalledCode = -1

// String gives the form a crash entry uses: "exit code 3" or
// "signal killed".
func (e Exit) String() string {
	if e.Signal != "" {
		return "signal " + e.Signal
	}
	return "exit code " + strconv.Itoa(e.Code)
}
