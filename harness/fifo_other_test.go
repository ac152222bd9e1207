//go:build !unix

package harness

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs") }
