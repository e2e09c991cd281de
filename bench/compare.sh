#!/usr/bin/env bash
# Whole-run comparison of `ozdoctor analyze` with GNU grep, ripgrep and mtail
# counting the catalogue's literals in the same generated bundle, read from
# the page cache, on one core and on two (taskset), as a directory and as one
# .tar.gz. Prints wall and user time and peak memory (the median run of
# OZDOCTOR_BENCH_RUNS) and ozdoctor's wall time relative to each tool.
#
# The tools read text: they get a copy of the bundle with its gzipped
# rotations decompressed ("plain"), and its .tar.gz; ozdoctor reads the same,
# and also the bundle as generated. mtail reads about 2 MB/s: it and
# ozdoctor are compared on the first OZDOCTOR_BENCH_MTAIL_MIB of the plain
# files only. The .tar.gz is also read alone, decompressed and untarred with
# nothing done with its text: one gzip stream decodes on one core, so that
# time bounds what a second core can give an archive.
#
#   OZDOCTOR_BENCH_MIB        bundle size in MiB (default 1024)
#   OZDOCTOR_BENCH_INPUT      fleet (default), dense, day or sample: see internal/analysis/bench_test.go
#   OZDOCTOR_BENCH_DIR        where the bundle is generated and kept
#                             (default /tmp/ozdoctor-bench-<input>-<MiB>)
#   OZDOCTOR_BENCH_RUNS       runs per measurement, and pairs run in turn (default 3)
#   OZDOCTOR_BENCH_MTAIL_MIB  default 64
#   OZDOCTOR_BENCH_TOOLS      0: measure ozdoctor alone on the bundle and its
#                             .tar.gz (no plain copy: for 16 GiB bundles)
set -euo pipefail
cd "$(dirname "$0")/.."
input=${OZDOCTOR_BENCH_INPUT:-fleet}
export OZDOCTOR_BENCH_INPUT=$input
export OZDOCTOR_BENCH_MIB=${OZDOCTOR_BENCH_MIB:-1024}
export OZDOCTOR_BENCH_DIR=${OZDOCTOR_BENCH_DIR:-/tmp/ozdoctor-bench-$input-$OZDOCTOR_BENCH_MIB}
runs=${OZDOCTOR_BENCH_RUNS:-3}
tools=${OZDOCTOR_BENCH_TOOLS:-1}
dir=$OZDOCTOR_BENCH_DIR

sudo=$([ "$(id -u)" = 0 ] || echo sudo)
need() { command -v "$1" > /dev/null || $sudo apt-get install -y -qq "$2" > /dev/null; }
need rg ripgrep
need mtail mtail

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/ozdoctor
go build -o "$bin" ./cmd/ozdoctor
"$bin" catalogue --literals > "$work/literals"

echo "== hot path (go test -bench RecordsSignals, one core; generates the bundle when missing)"
go test -c -o "$work/analysis.test" ./internal/analysis
go test -c -o "$work/bundle.test" ./parsers/bundle
(cd internal/analysis && taskset -c 0 "$work/analysis.test" -test.run '^$' -test.bench 'RecordsSignals' \
  -test.benchtime 3x -test.cpu 1 -test.benchmem | grep Benchmark)

# measure NAME CORES CMD...: runs CMD (its stdout a pipe to wc) pinned to
# CORES cores, prints the median run and keeps its wall time in $wall.
measure() {
  local name=$1 cores=$2
  shift 2
  local out=()
  for _ in $(seq "$runs"); do
    if ! /usr/bin/time -f '%e %U %M' -o "$work/time" taskset -c "0-$((cores - 1))" "$@" 2> "$work/stderr" | wc -c > /dev/null; then
      echo "$name failed:" >&2
      cat "$work/stderr" >&2
      exit 1
    fi
    out+=("$(cat "$work/time")")
  done
  read -r wall user rss < <(printf '%s\n' "${out[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
  printf '%-44s %d core(s)  %6.2f s wall  %6.2f s user  %5d MiB\n' "$name" "$cores" "$wall" "$user" "$((rss / 1024))"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
analyze=("$bin" analyze --format json --fail-on never)
# The archive read as analyze reads it, its text discarded (see the top).
walk=(env "OZDOCTOR_BENCH_ARCHIVE=$work/plain.tar.gz" "$work/bundle.test" -test.run '^$' -test.bench WalkTarGz -test.benchtime 1x)

echo "== bundle: $(find "$dir" -type f | wc -l) files, $(du -sb "$dir" | cut -f1) bytes"
tar -C "$dir" -czf "$work/bundle.tar.gz" .
if [ "$tools" = 0 ]; then
  for cores in 1 2; do
    cat "$work/bundle.tar.gz" > /dev/null
    find "$dir" -type f -exec cat {} + > /dev/null
    measure "ozdoctor analyze (directory)" "$cores" "${analyze[@]}" "$dir"
    measure "ozdoctor analyze (.tar.gz)" "$cores" "${analyze[@]}" "$work/bundle.tar.gz"
  done
  exit 0
fi

plain=$work/plain
(cd "$dir" && find . -type f) | while read -r f; do
  mkdir -p "$plain/$(dirname "$f")"
  case $f in
    *.gz) zcat "$dir/$f" > "$plain/${f%.gz}" ;;
    *) cp "$dir/$f" "$plain/$f" ;;
  esac
done
tar -C "$plain" -czf "$work/plain.tar.gz" .
mapfile -t files < <(find "$plain" -type f | sort)
echo "== plain copy: ${#files[@]} files, $(du -sb "$plain" | cut -f1) bytes; .tar.gz $(stat -c %s "$work/plain.tar.gz") bytes"
echo "   matching lines: grep $(cat "${files[@]}" | grep -c -F -f "$work/literals"), findings: $("${analyze[@]}" "$plain" | grep -c '"detector":')"

for cores in 1 2; do
  cat "${files[@]}" "$work/plain.tar.gz" "$work/bundle.tar.gz" > /dev/null
  echo "== $cores core(s)"
  measure "grep -c -F -f literals" "$cores" grep -c -F -f "$work/literals" "${files[@]}"
  grep=$wall
  measure "rg -c -F -f literals" "$cores" rg -c -F -f "$work/literals" "${files[@]}"
  rg=$wall
  measure "ozdoctor analyze (plain directory)" "$cores" "${analyze[@]}" "$plain"
  echo "   ozdoctor / grep $(ratio "$wall" "$grep"), ozdoctor / rg $(ratio "$wall" "$rg")"
  measure "ozdoctor analyze (bundle as generated)" "$cores" "${analyze[@]}" "$dir"
  measure "zcat plain.tar.gz | grep -c -F -f literals" "$cores" sh -c "zcat '$work/plain.tar.gz' | grep -c -F -f '$work/literals'"
  grep=$wall
  measure "zcat plain.tar.gz | rg -c -F -f literals" "$cores" sh -c "zcat '$work/plain.tar.gz' | rg -c -F -f '$work/literals'"
  rg=$wall
  measure "ozdoctor analyze (plain.tar.gz)" "$cores" "${analyze[@]}" "$work/plain.tar.gz"
  echo "   ozdoctor / zcat|grep $(ratio "$wall" "$grep"), ozdoctor / zcat|rg $(ratio "$wall" "$rg")"
  oz=$wall
  measure "plain.tar.gz read alone (no analysis)" "$cores" "${walk[@]}"
  echo "   ozdoctor / reading alone $(ratio "$oz" "$wall")"
  measure "ozdoctor analyze (bundle.tar.gz)" "$cores" "${analyze[@]}" "$work/bundle.tar.gz"
done

# paired NAME A B: the median over OZDOCTOR_BENCH_RUNS of A's wall time over
# B's, A and B (names of arrays: "cores command...") run in turn, so that
# both see the machine at the same speed (it varies by tens of percent
# within minutes here).
paired() {
  local name=$1 r=() i
  for _ in $(seq "$runs"); do
    for i in 2 3; do
      local -n cmd=${!i}
      /usr/bin/time -f '%e' -o "$work/t$i" taskset -c "0-$((cmd[0] - 1))" "${cmd[@]:1}" | wc -c > /dev/null
    done
    r+=("$(ratio "$(cat "$work/t2")" "$(cat "$work/t3")")")
  done
  printf '%-60s %s (pairs: %s)\n' "$name" "$(printf '%s\n' "${r[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")" "${r[*]}"
}
echo "== in turn: ozdoctor's one-core time over its two-core time, and ozdoctor over rg on two cores"
for input in "plain directory:$plain" "bundle as generated:$dir" "plain.tar.gz:$work/plain.tar.gz"; do
  one=(1 "${analyze[@]}" "${input#*:}")
  two=(2 "${analyze[@]}" "${input#*:}")
  paired "speed-up, ozdoctor analyze (${input%%:*})" one two
done
rg2=(2 rg -c -F -f "$work/literals" "${files[@]}")
two=(2 "${analyze[@]}" "$plain")
paired "ozdoctor (plain directory) / rg, two cores" two rg2
zrg2=(2 sh -c "zcat '$work/plain.tar.gz' | rg -c -F -f '$work/literals'")
two=(2 "${analyze[@]}" "$work/plain.tar.gz")
paired "ozdoctor (plain.tar.gz) / zcat|rg, two cores" two zrg2
walk2=(2 "${walk[@]}")
paired "ozdoctor (plain.tar.gz) / reading it alone, two cores" two walk2
one=(1 "${analyze[@]}" "$work/plain.tar.gz")
paired "the most two cores can give on plain.tar.gz: ozdoctor on one / reading alone on two" one walk2

# mtail's programs are regular expressions of at most 1,024 bytes: the
# literals are split into a chain of alternations, each tried when the ones
# before did not match, so a line counts once.
mkdir -p "$work/progs" "$work/mtail"
python3 - "$work/literals" > "$work/progs/literals.mtail" << 'EOF'
import re, sys
lits = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
groups, cur = [], []
for l in lits:
    e = re.sub(r"([\\.^$|?*+()\[\]{}/])", r"\\\1", l)
    if cur and len("|".join(cur + [e])) > 1000:
        groups.append(cur)
        cur = []
    cur.append(e)
groups.append(cur)
def chain(i, ind):
    s = f"{ind}/{'|'.join(groups[i])}/ {{\n{ind}  ozdoctor_literal_lines++\n{ind}}}"
    if i + 1 < len(groups):
        s += f" otherwise {{\n{chain(i + 1, ind + '  ')}\n{ind}}}"
    return s
print("counter ozdoctor_literal_lines\n\n" + chain(0, ""))
EOF
limit=$((${OZDOCTOR_BENCH_MTAIL_MIB:-64} << 20))
sub=()
total=0
for f in "${files[@]}"; do
  [ "$total" -ge "$limit" ] && break
  sub+=("$f")
  total=$((total + $(stat -c %s "$f")))
  mkdir -p "$work/mtail/$(dirname "${f#"$plain"}")"
  cp "$f" "$work/mtail/${f#"$plain"}"
done
echo "== mtail on ${#sub[@]} plain files, $total bytes (one run each)"
runs=1
for cores in 1 2; do
  measure "mtail --one_shot (counting program)" "$cores" mtail --one_shot --one_shot_format prometheus \
    --progs "$work/progs" --log_dir "$work" --logs "$(IFS=,; echo "${sub[*]}")"
  mtail=$wall
  measure "ozdoctor analyze (same files)" "$cores" "${analyze[@]}" "$work/mtail"
  echo "   ozdoctor / mtail $(ratio "$wall" "$mtail")"
done
