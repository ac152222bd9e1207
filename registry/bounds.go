package registry

import (
	"math"

	"github.com/escouade-dev/escouade-plugin/protocol"
)

// The bounds of a plugin's folder (docs/protocol.md#how-the-host-reads-a-plugins-files):
// what an install from git may write, and what the consent's fingerprint
// walks. A plugin's folder is a manifest, a program and a few assets; a
// folder past these is a way to fill the user's disk, not a plugin.
const (
	// MaxFolderFiles is the most entries a plugin's folder may hold: its
	// files and its folders, each counted as one, since each takes an
	// inode and a block whatever its size.
	MaxFolderFiles = protocol.FolderEntries
	// MaxFolderBytes is the most disk a plugin's folder may take, the sum
	// of AllocatedBytes over its files and folders: for small files the
	// blocks they take, not their sizes, are what fills a disk.
	MaxFolderBytes = protocol.FolderBytes
	// FolderBlock is the least a file or a folder is counted to take on
	// disk: a file system's usual block.
	FolderBlock = protocol.FolderBlockBytes
)

// AllocatedBytes is what a file of size bytes is counted to take on disk:
// its size rounded up to whole FolderBlocks, at least one (an empty file,
// a folder). A size too large to round saturates.
func AllocatedBytes(size int64) int64 {
	if size <= FolderBlock {
		return FolderBlock
	}
	if size > math.MaxInt64-FolderBlock {
		return math.MaxInt64
	}
	return (size + FolderBlock - 1) / FolderBlock * FolderBlock
}
