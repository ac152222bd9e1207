#!/bin/sh
# build.sh builds jsrt/quickjs.wasm, the JS engine of run.js plugins:
# QuickJS from Debian's quickjs source package (2025.04.26-1), compiled with
# Debian's clang-19, lld-19, wasi-libc and libclang-rt-19-dev-wasm32 to a
# WASI reactor, together with engine.c. The same inputs give the same bytes.
#
#   jsrt/build/build.sh           rebuild jsrt/quickjs.wasm and its .sha256
#   jsrt/build/build.sh --check   rebuild in a temporary folder and fail if
#                                 the bytes differ from the committed module
#
# The source tarball is fetched with apt's own tooling under a private
# sources list and state folder (the system's apt configuration is left
# alone), or taken from QUICKJS_ORIG (a path to quickjs_2025.04.26.orig.tar.xz).
# It is checked against the SHA-256 Debian's .dsc gives for it.
set -eu

VERSION=2025.04.26
DEBIAN_VERSION=2025.04.26-1
ORIG_SHA256=ec81da5b3249ed648dbc7df4a1654988910e66a118d9b71cb63534216efcfbbe
SUITE=${QUICKJS_SUITE:-trixie}

here=$(cd "$(dirname "$0")" && pwd)
jsrt=$(dirname "$here")
check=0
[ "${1:-}" = "--check" ] && check=1

for tool in clang-19 wasm-ld-19 sha256sum tar xz; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is missing (apt-get install clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32 xz-utils)" >&2; exit 1; }
done
[ -f /usr/lib/wasm32-wasi/libc.a ] || { echo "build.sh: wasi-libc is missing (apt-get install wasi-libc)" >&2; exit 1; }
[ -f /usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a ] || { echo "build.sh: libclang-rt-19-dev-wasm32 is missing" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fetch_orig downloads the orig tarball of the source package with
# apt-get source --download-only, under a private apt configuration.
fetch_orig() {
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/escouade/quickjs
  orig=$cache/quickjs_$VERSION.orig.tar.xz
  if [ -f "$orig" ]; then echo "$orig"; return; fi
  apt=$work/apt
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/src" "$cache"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" >"$apt/sources.list"
  set -- -o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o APT::Sandbox::User=root
  apt-get "$@" -qq update >&2
  (cd "$apt/src" && apt-get "$@" -qq source --download-only "quickjs=$DEBIAN_VERSION" >&2)
  cp "$apt/src/quickjs_$VERSION.orig.tar.xz" "$orig"
  echo "$orig"
}

orig=${QUICKJS_ORIG:-$(fetch_orig)}
echo "$ORIG_SHA256  $orig" | sha256sum -c --quiet - || { echo "build.sh: $orig is not Debian's quickjs_$VERSION.orig.tar.xz" >&2; exit 1; }

src=$work/src
mkdir -p "$src"
tar -C "$src" --strip-components=1 -xJf "$orig"
cp "$here/engine.c" "$src/"

# Two lines of QuickJS assume a POSIX host; WASI has neither threads (so no
# Atomics) nor setjmp.h (which dtoa.c includes but does not use).
sed -i 's|^#define CONFIG_ATOMICS$|/* CONFIG_ATOMICS: WASI has no threads */|' "$src/quickjs.c"
sed -i 's|^#include <setjmp.h>$|/* setjmp.h: unused, absent from WASI */|' "$src/dtoa.c"
grep -q 'CONFIG_ATOMICS: WASI' "$src/quickjs.c" && grep -q 'setjmp.h: unused' "$src/dtoa.c" || {
  echo "build.sh: the QuickJS sources changed: review the two edits above" >&2; exit 1; }

# Only the WASI sysroot and clang's own headers: never the host's glibc.
cflags="--target=wasm32-wasi -nostdinc -isystem /usr/lib/llvm-19/lib/clang/19/include -isystem /usr/include/wasm32-wasi
  -O2 -D_GNU_SOURCE -DCONFIG_VERSION=\"$(echo $VERSION | tr . -)\" -include malloc.h
  -fno-ident -ffile-prefix-map=$src=quickjs -Wno-implicit-const-int-float-conversion"
objs=
for f in quickjs libregexp libunicode cutils dtoa engine; do
  # Relative names: __FILE__ in assert messages must not hold the folder.
  (cd "$src" && clang-19 $cflags -c "$f.c" -o "$f.o")
  objs="$objs $f.o"
done

# 1 MB of C stack first in memory (an overflow traps instead of writing over
# data), at most 64 MB of linear memory (1024 pages), no names section.
# clang-19's WASI driver links with wasm-ld-19.
(cd "$src" && clang-19 --target=wasm32-wasi -mexec-model=reactor \
  -L/usr/lib/wasm32-wasi -resource-dir /usr/lib/llvm-19/lib/clang/19 \
  -Wl,-z,stack-size=1048576 -Wl,--stack-first -Wl,--max-memory=67108864 \
  -Wl,--strip-all -Wl,--no-entry \
  -o quickjs.wasm $objs)

sum=$(cd "$src" && sha256sum quickjs.wasm)
if [ $check = 1 ]; then
  if cmp -s "$src/quickjs.wasm" "$jsrt/quickjs.wasm" && [ "$sum" = "$(cat "$jsrt/quickjs.wasm.sha256")" ]; then
    echo "jsrt/quickjs.wasm is reproducible: $sum"
    exit 0
  fi
  echo "build.sh --check: the rebuilt module differs from jsrt/quickjs.wasm" >&2
  echo "  rebuilt:   $sum" >&2
  echo "  committed: $(cat "$jsrt/quickjs.wasm.sha256" 2>/dev/null || echo none)" >&2
  exit 1
fi
cp "$src/quickjs.wasm" "$jsrt/quickjs.wasm"
echo "$sum" >"$jsrt/quickjs.wasm.sha256"
echo "built jsrt/quickjs.wasm: $sum ($(wc -c <"$jsrt/quickjs.wasm") bytes)"
