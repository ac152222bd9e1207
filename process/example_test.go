package process_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/escouade-dev/escouade-plugin/process"
)

// fakePlugin is the environment under which this test binary plays a
// plugin's program (its TestMain): "echo" says back each line of its
// stdin, "stderr" writes lines on stderr and exits with a code.
func fakePlugin(mode string) []string {
	return append(os.Environ(), "ESCOUADE_PROCESS_TEST_FAKE="+mode, "GORACE=atexit_sleep_ms=0")
}

// A plugin's program as the host runs it: started in its folder with the
// environment the host built, spoken to over its pipes, and stopped with
// everything it started; its stop begins by closing stdin, on which a
// plugin that reads its stdin to the end exits by itself. The program is
// this test binary, playing a plugin that says back each line.
func Example() {
	self, err := os.Executable()
	if err != nil {
		return
	}
	p, err := process.Start(process.Spec{
		Dir:     os.TempDir(),
		Command: []string{self},
		Env:     fakePlugin("echo"),
		Stderr:  func(line string) { fmt.Println("stderr:", line) },
	})
	if err != nil {
		fmt.Println("could not start:", err)
		return
	}
	fmt.Fprintln(p.Stdin(), "hello")
	line, _ := bufio.NewReader(p.Stdout()).ReadString('\n')
	fmt.Print("it says ", line)
	p.Stop(context.Background(), 10*time.Second) // kills what it left behind, frees the pipes
	<-p.Done()
	fmt.Printf("it ended: %v; last lines %q\n", p.Exit(), p.LastStderr())
	// Output:
	// it says hello
	// it ended: exit code 0; last lines []
}

// A program started for something other than the plugin protocol (a
// module's proc/run) is a Family: the caller runs its exec.Cmd as usual,
// and the family reaches what it started, those that left its group
// included.
func ExampleStartFamily() {
	self, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(self, "1", "3") // one line on stderr, then exit code 3
	cmd.Env = fakePlugin("stderr")
	f, err := process.StartFamily(cmd)
	if err != nil {
		fmt.Println("could not start:", err)
		return
	}
	defer f.Release()
	_ = cmd.Wait()
	f.Exited()
	fmt.Println("exit code", f.ExitCode(cmd.ProcessState))
	f.Kill() // what it left running
	// Output:
	// exit code 3
}
