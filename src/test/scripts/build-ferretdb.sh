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
command -v go >/dev/null 2>&1 || { echo "build-ferretdb: Go is needed to build FerretDB $version (the go command is not on PATH)" >&2; exit 1; }

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
