#!/usr/bin/env bash
# Measures ozdoctor on a generated bundle and compares it with grep -F over
# the catalogue's literals on the same files, all pinned to one core.
#   OZDOCTOR_BENCH_MIB  bundle size in MiB (default 1024)
#   OZDOCTOR_BENCH_DIR  where the bundle is generated and kept (default /tmp/ozdoctor-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
export OZDOCTOR_BENCH_MIB=${OZDOCTOR_BENCH_MIB:-1024}
export OZDOCTOR_BENCH_DIR=${OZDOCTOR_BENCH_DIR:-/tmp/ozdoctor-bench}
mkdir -p "$OZDOCTOR_BENCH_DIR"
bin=$(mktemp -d)/ozdoctor
go build -o "$bin" ./cmd/ozdoctor
"$bin" catalogue --literals > "$bin.literals"
timing=(/usr/bin/time -f '%e s wall, %U s user, %M KiB max RSS')

echo "== go test -bench: records + signals, one core"
go test ./internal/analysis -run '^$' -bench 'RecordsSignals' -benchtime 3x -cpu 1 -benchmem

mapfile -t files < <(find "$OZDOCTOR_BENCH_DIR" -name '*.log' | sort)
echo "== bundle: ${#files[@]} files, $(cat "${files[@]}" | wc -c) bytes (now in the page cache)"

echo "== grep -c -F -f <$(wc -l < "$bin.literals") literals>, one core"
"${timing[@]}" taskset -c 0 grep -c -F -f "$bin.literals" "${files[@]}" | awk -F: '{n += $NF} END {print n " matching lines"}'

echo "== ozdoctor analyze (whole run: walk, scan, match, merge, detectors), one core"
"${timing[@]}" taskset -c 0 env GOMAXPROCS=1 "$bin" analyze --format json --fail-on never "$OZDOCTOR_BENCH_DIR" |
  grep -c '"detector":' | awk '{print $1 " findings"}'
