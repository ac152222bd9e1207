package kit

import "io"

// input feeds the host's stream to the connection through a pipe the kit
// controls. Stopping it makes the connection read the end of the stream,
// so it stops taking new work but still writes the answers under way —
// which closing the connection would not — and it works even when a read
// of the real stream (stdin) cannot be interrupted.
type input struct {
	io.Reader
	stop func() // makes the connection read the end of the stream
}

// stoppable is a stream whose reads the kit can end itself, as a module's
// stdin: the connection reads it directly, without the pipe's goroutine
// and its two hand-offs per read.
type stoppable interface {
	io.Reader
	stopReading()
}

// newInput starts copying r. The copying goroutine ends when a read of r
// returns after stop, or when r ends: Serve cannot wait for it, since a
// blocked read of stdin never returns early; the caller ends it by closing
// r (the host closes the plugin's stdin).
func newInput(r io.Reader) *input {
	if s, ok := r.(stoppable); ok {
		return &input{Reader: s, stop: s.stopReading}
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err) // nil: the connection reads io.EOF
	}()
	return &input{Reader: pr, stop: func() { pw.Close() }}
}
