package registry

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// walkBatch is how many entries of a folder are read at once.
const walkBatch = 256

// walkFolder is filepath.WalkDir for folders a plugin's author controls:
// it reads each folder walkBatch entries at a time, so that a folder of
// millions of entries meets fn's bound after the first batch past it, not
// once all of them are listed, sorted and held in memory (WalkDir reads a
// folder whole). Entries come in the system's order, not by name. fn is
// called as WalkDir calls it: with the root first, then each entry; an
// error reading a folder is given to fn with that folder's path; fs.SkipDir
// on a folder skips it, fs.SkipAll ends the walk with no error.
func walkFolder(root string, fn fs.WalkDirFunc) error {
	info, err := os.Lstat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = walkEntries(root, fs.FileInfoToDirEntry(info), fn)
	}
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

// walkEntries calls fn on path, then walks it if it is a folder.
func walkEntries(path string, d fs.DirEntry, fn fs.WalkDirFunc) error {
	if err := fn(path, d, nil); err != nil || !d.IsDir() {
		if errors.Is(err, fs.SkipDir) && d.IsDir() {
			return nil
		}
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return folderError(path, d, err, fn)
	}
	defer f.Close()
	for {
		batch, err := f.ReadDir(walkBatch)
		for _, e := range batch {
			err := walkEntries(filepath.Join(path, e.Name()), e, fn)
			if errors.Is(err, fs.SkipDir) {
				return nil // a file's SkipDir skips the rest of its folder
			}
			if err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return folderError(path, d, err, fn)
		}
	}
}

// folderError gives fn the error of reading a folder, as WalkDir does.
func folderError(path string, d fs.DirEntry, err error, fn fs.WalkDirFunc) error {
	if err := fn(path, d, err); err != nil && !errors.Is(err, fs.SkipDir) {
		return err
	}
	return nil
}
