//go:build !windows

package process

// programFile is the file a ./ command names: the path itself outside
// Windows, where a program's name has no extension left out.
func programFile(path string) string { return path }
