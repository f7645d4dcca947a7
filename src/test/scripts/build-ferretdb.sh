#!/usr/bin/env bash
# Builds FerretDB (a MongoDB-compatible server, SQLite backend) from the Go module proxy, once, into a
# cache outside the repository, and prints the binary's path. Nothing of FerretDB is kept in the repository.
#   bash src/test/scripts/build-ferretdb.sh        # prints e.g. /root/.cache/mongolock/ferretdb-v1.24.2/ferretdb
# FerretDB 1.24.2 is the last version with a pure-Go SQLite backend (2.x needs PostgreSQL with DocumentDB).
set -euo pipefail

version=v1.24.2
cache="${MONGOLOCK_FERRETDB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mongolock}/ferretdb-$version"
binary="$cache/ferretdb"

if [ -x "$binary" ] && [ "$("$binary" --version 2>/dev/null | sed -n 1p)" = "version: $version" ]; then
  echo "$binary"
  exit 0
fi
# Go 1.24 or newer builds it. Without a go command, the Go toolchain itself is fetched from the Go module
# proxy (it serves toolchains as the module golang.org/toolchain) into the same cache.
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    PATH="/usr/local/go/bin:$PATH"
  else
    toolchain="${cache%/*}/go1.24.3"
    if [ ! -x "$toolchain/bin/go" ]; then
      proxy="${GOPROXY:-https://proxy.golang.org}"; proxy="${proxy%%,*}"
      echo "build-ferretdb: no go command; fetching Go 1.24.3 from $proxy" >&2
      mkdir -p "$toolchain.tmp"
      curl -fsSL "$proxy/golang.org/toolchain/@v/v0.0.1-go1.24.3.linux-amd64.zip" -o "$toolchain.tmp/go.zip"
      python3 - "$toolchain.tmp" <<'PYTHON'
import os, sys, zipfile
root = sys.argv[1]
with zipfile.ZipFile(os.path.join(root, "go.zip")) as archive:
    for entry in archive.infolist():
        target = archive.extract(entry, root)
        mode = entry.external_attr >> 16
        if mode:
            os.chmod(target, mode & 0o777)
PYTHON
      rm -rf "$toolchain" && mv "$toolchain.tmp/golang.org/toolchain@v0.0.1-go1.24.3.linux-amd64" "$toolchain" && rm -rf "$toolchain.tmp"
    fi
    PATH="$toolchain/bin:$PATH"
  fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
# The module as the proxy serves it lacks build/version/version.txt (FerretDB's own build generates it
# from git, and its binary refuses to start without it), so it is built from a writable copy that has one.
source_dir=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$version" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$source_dir" ] || { echo "build-ferretdb: go mod download gave no source directory for FerretDB $version" >&2; exit 1; }
cp -R "$source_dir" "$work/src"
chmod -R u+w "$work/src"
echo "$version" > "$work/src/build/version/version.txt"
mkdir -p "$cache"
(cd "$work/src" && go build -trimpath -o "$work/ferretdb" ./cmd/ferretdb) >&2
mv "$work/ferretdb" "$binary"   # the same file system is not guaranteed, but a half-copied binary fails --version above
echo "build-ferretdb: built FerretDB $version in $(( $(date +%s) - started )) s" >&2
echo "$binary"
