package safefile

import (
	"errors"
	"io/fs"
	"os"
)

// FileID tells two names of one file apart from two files: its device and
// inode (on Windows its volume and file index).
type FileID struct{ Dev, Ino uint64 }

// errNoIdentity is the error of a system that gives no file identity.
var errNoIdentity = errors.ErrUnsupported

// Identity is the open file f's id and its count of names (hard links),
// the one check the host makes wherever a name could be a file outside
// what a path check sees (fs/* refuses a file with several names, the
// harness fence one with a name in a fenced folder). info is f's Stat
// where the caller has it (nil: Identity reads it); Windows reads the
// handle. It fails with errors.ErrUnsupported where the system does not
// say.
func Identity(f *os.File, info fs.FileInfo) (FileID, uint64, error) {
	return identity(f, info)
}

// IdentityAt is Identity of the file at path, from info (a Stat's or a
// directory listing's, not following a link) where it carries it, else
// (Windows) from the file opened.
func IdentityAt(path string, info fs.FileInfo) (FileID, uint64, error) {
	return identityAt(path, info)
}
