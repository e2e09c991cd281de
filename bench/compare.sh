#!/usr/bin/env bash
# Measures ozdoctor on a generated bundle and compares it with grep -F over
# the catalogue's literals on the same files, all pinned to one core.
#   OZDOCTOR_BENCH_MIB  bundle size in MiB (default 1024)
#   OZDOCTOR_BENCH_INPUT day (default) or sample, see internal/analysis/bench_test.go
#   OZDOCTOR_BENCH_DIR  where the bundle is generated and kept (default /tmp/ozdoctor-bench-<input>)
set -euo pipefail
cd "$(dirname "$0")/.."
export OZDOCTOR_BENCH_MIB=${OZDOCTOR_BENCH_MIB:-1024}
export OZDOCTOR_BENCH_DIR=${OZDOCTOR_BENCH_DIR:-/tmp/ozdoctor-bench-${OZDOCTOR_BENCH_INPUT:-day}}
mkdir -p "$OZDOCTOR_BENCH_DIR"
bin=$(mktemp -d)/ozdoctor
go build -o "$bin" ./cmd/ozdoctor
"$bin" catalogue --literals > "$bin.literals"
timing=(/usr/bin/time -f '%e s wall, %U s user, %M KiB max RSS')

echo "== go test -bench: records + signals, one core"
go test -c -o "$bin.test" ./internal/analysis
(cd internal/analysis && taskset -c 0 "$bin.test" -test.run '^$' -test.bench 'RecordsSignals' -test.benchtime 3x -test.cpu 1 -test.benchmem)

mapfile -t files < <(find "$OZDOCTOR_BENCH_DIR" -name '*.log' | sort)
cat "${files[@]}" > /dev/null; sync; sleep 5  # settle writeback and warm the page cache
echo "== bundle: ${#files[@]} files, $(cat "${files[@]}" | wc -c) bytes (now in the page cache)"

echo "== grep -c -F -f <$(wc -l < "$bin.literals") literals>, one core"
for run in 1 2 3; do
  "${timing[@]}" taskset -c 0 grep -c -F -f "$bin.literals" "${files[@]}" | awk -F: '{n += $NF} END {print n " matching lines"}'
done

echo "== ozdoctor analyze (whole run: walk, scan, match, merge, detectors), one core"
"${timing[@]}" taskset -c 0 env GOMAXPROCS=1 "$bin" analyze --format json --fail-on never "$OZDOCTOR_BENCH_DIR" |
  grep -c '"detector":' | awk '{print $1 " findings"}'
