#!/usr/bin/env bash
# Issue 20's before and after in one benchmark run: the library at an earlier commit (default 8133e89, the
# last one before sessions) and the working tree's, side by side against one MongoDB (cases 6 and 8, see
# docs/benchmark.md, "Issue 20: sessions, before and after").
#
#   bash benchmark/before-after.sh [commit] [more key=value options for the benchmark]
#
# The earlier commit's sources are exported with `git archive` into target/before-src (no worktree, no
# checkout) and packaged there; nothing is installed, so the local Maven repository (shared by every worktree
# on the machine) is left alone. The working tree's library is packaged into target/ as the benchmark's
# "Run it" command does.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
commit="${1:-8133e89}"
shift || true
before="$root/benchmark/target/before-src/$commit"
if [ ! -f "$before/target/mongolock-0.1.0-SNAPSHOT.jar" ]; then
  rm -rf "$before"
  mkdir -p "$before"
  git -C "$root" archive "$commit" | tar -x -C "$before"
  mvn -B -ntp -q -f "$before" -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true package
fi
mvn -B -ntp -q -f "$root" -DskipTests package
mvn -B -ntp -q -f "$root/benchmark" compile exec:exec -Dbench.args="cases=renewal,crash \
before-jar=$before/target/mongolock-0.1.0-SNAPSHOT.jar before-label=$commit $*"
