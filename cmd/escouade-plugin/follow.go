package main

import (
	"bufio"
	"io"
	"os"
	"time"
)

// followJournal writes the lines appended to the journal file as they come,
// reopening it after a rotation, until the command is interrupted.
func followJournal(e env, path string, asJSON bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { f.Close() }()
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return err
	}
	r := bufio.NewReader(f)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			if asJSON {
				writeJSON(e.stdout, map[string]string{"line": line[:len(line)-1]})
			} else {
				io.WriteString(e.stdout, line)
			}
		}
		if rotated(f, path) {
			nf, err := os.Open(path)
			if err != nil {
				continue
			}
			f.Close()
			f, r = nf, bufio.NewReader(nf)
		}
	}
	return nil
}

// rotated reports whether path now names another file than f.
func rotated(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && !os.SameFile(a, b)
}
