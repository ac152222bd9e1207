#!/bin/sh
# Builds dist/plugin.mjs from src/ with the SDK of this repository: installs
# the SDK's pinned dependencies (npm ci, from its package-lock.json), builds
# the SDK, then bundles this plugin. The bundle is committed; the SDK's tests
# check that it is what this script makes.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
sdk="$here/../../sdk/js"
npm ci --prefix "$sdk" --no-audit --no-fund >&2
node "$sdk/bin/escouade-plugin-build.mjs" "$here"
