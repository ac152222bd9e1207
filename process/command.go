package process

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotFound reports that the program a Command names does not exist.
var ErrNotFound = errors.New("program not found")

// ErrEmptyCommand reports a Spec without a Command.
var ErrEmptyCommand = errors.New("the command is empty")

// folderPrefix marks a program that ships in the plugin folder (docs/protocol.md#1-the-manifest,
// `run.command`).
const folderPrefix = "./"

// resolveProgram returns the absolute path of the program command names.
// The path is made absolute because exec.Cmd evaluates a relative Path
// against Dir, which would apply a relative plugin folder twice.
func resolveProgram(dir string, command []string) (string, error) {
	if len(command) == 0 || command[0] == "" {
		return "", ErrEmptyCommand
	}
	name := command[0]
	if strings.HasPrefix(name, folderPrefix) {
		return resolveInFolder(dir, name)
	}
	path, err := exec.LookPath(name)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("%w: %q is not in PATH", ErrNotFound, name)
		}
		return "", fmt.Errorf("program %q: %w", name, err)
	}
	return path, nil
}

func resolveInFolder(dir, name string) (string, error) {
	path, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return "", fmt.Errorf("program %q: %w", name, err)
	}
	path = programFile(path)
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%w: %q is not in the plugin folder %s", ErrNotFound, name, dir)
	case err != nil:
		return "", fmt.Errorf("program %q: %w", name, err)
	case info.IsDir():
		return "", fmt.Errorf("program %q: %s is a directory", name, path)
	}
	return path, nil
}

// FolderProgram is the path, in dir and with forward slashes, of the file
// the "./" program rel names: rel itself, or on Windows the file with the
// extension PATHEXT gives it (./tool is tool.exe). The consent record pins
// that file, the one a start runs.
func FolderProgram(dir, rel string) string {
	full := programFile(filepath.Join(dir, filepath.FromSlash(rel)))
	found, err := filepath.Rel(dir, full)
	if err != nil || found == ".." || strings.HasPrefix(found, ".."+string(filepath.Separator)) {
		return rel
	}
	return filepath.ToSlash(found)
}
