#!/bin/sh
# Starts the go-notes plugin. The host runs this script in the plugin folder.
# With Go installed it (re)builds bin/go-notes first: go build only relinks
# when a source changed, so a start with nothing to build costs a fraction
# of a second. Without Go it runs the binary built earlier.
# Stdout carries the protocol only: the build's messages go to stderr.
set -e
cd "$(dirname "$0")"
if command -v go >/dev/null 2>&1; then
	go build -o bin/go-notes . >&2
fi
if [ ! -x bin/go-notes ]; then
	echo "go-notes: bin/go-notes is missing and Go is not installed to build it" >&2
	exit 1
fi
exec ./bin/go-notes
