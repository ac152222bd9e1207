#!/bin/sh
# Builds plugin.wasm, the module the host loads for run.wasm, from this
# folder's Go source: a WASI reactor (GOOS=wasip1, -buildmode=c-shared)
# exporting escouade-turn. The module is not committed; run this before
# installing the plugin, and again after a change of the source or the kit.
# The same source builds as a process too: go build -o bin/hello-wasm .
set -e
cd "$(dirname "$0")"
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm .
