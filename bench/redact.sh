#!/usr/bin/env bash
# Whole-run figures of `ozdoctor redact` on the generated fleet bundle, and
# GNU sed -E with as many patterns as the redactor has kinds of pattern (16)
# on the same text as a sanity baseline. Prints wall and user time, peak
# memory and text MB/s per run, pinned to one core (taskset), from the page
# cache.
#
#   OZDOCTOR_BENCH_MIB      bundle size in MiB (default 1024)
#   OZDOCTOR_BENCH_DIR      where the bundle is generated and kept
#                           (default /tmp/ozdoctor-bench-fleet-<MiB>, shared with bench/compare.sh)
#   OZDOCTOR_BENCH_SED_MIB  MiB of text sed reads (default 256: sed is slow)
set -euo pipefail
cd "$(dirname "$0")/.."
export OZDOCTOR_BENCH_MIB=${OZDOCTOR_BENCH_MIB:-1024}
export OZDOCTOR_BENCH_DIR=${OZDOCTOR_BENCH_DIR:-/tmp/ozdoctor-bench-fleet-$OZDOCTOR_BENCH_MIB}
sedmib=${OZDOCTOR_BENCH_SED_MIB:-256}
dir=$OZDOCTOR_BENCH_DIR

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/ozdoctor
go build -o "$bin" ./cmd/ozdoctor
go test -c -o "$work/redact.test" ./internal/redact

echo "== in process, one core (go test -bench; generates the bundle when missing)"
(cd internal/redact && taskset -c 0 "$work/redact.test" -test.run '^$' -test.bench 'RedactText|GzipOnly' \
  -test.benchtime 1x -test.cpu 1 -test.benchmem | grep Benchmark)

logs=$(find "$dir" -type f -name '*.log' -printf '%s\n' | awk '{ s += $1 } END { print s }')
gz=$(find "$dir" -type f -name '*.gz' -exec zcat {} + | wc -c)
text=$((logs + gz))
echo "== bundle: $(find "$dir" -type f | wc -l) files, $(du -sb "$dir" | cut -f1) bytes on disk, $text bytes of text"

# run NAME TEXTBYTES CMD...: one run pinned to core 0; wall, user, peak RSS, MB/s of text
run() {
  local name=$1 bytes=$2
  shift 2
  /usr/bin/time -f '%e %U %M' -o "$work/time" taskset -c 0 "$@" > /dev/null 2> "$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
  read -r wall user rss < "$work/time"
  printf '%-52s %7.2f s wall %7.2f s user %5d MiB  %6.1f MB/s\n' "$name" "$wall" "$user" "$((rss / 1024))" \
    "$(awk -v b="$bytes" -v w="$wall" 'BEGIN { print b / w / 1e6 }')"
}

find "$dir" -type f -exec cat {} + > /dev/null # page cache
rm -rf "$work/out"
run "ozdoctor redact (directory -> directory)" "$text" "$bin" redact --output "$work/out" "$dir"
rm -rf "$work/out"
tar -C "$dir" -czf "$work/bundle.tar.gz" .
run "ozdoctor redact (.tar.gz -> .tar.gz)" "$text" "$bin" redact --output "$work/out.tar.gz" "$work/bundle.tar.gz"
rm -f "$work/out.tar.gz" "$work/bundle.tar.gz"

# sed -E: one expression per kind of pattern ozdoctor redact has
cat > "$work/redact.sed" << 'EOF'
s/\b([0-9]{1,3}\.){3}[0-9]{1,3}\b/198.18.0.1/g
s/\b([0-9a-fA-F]{0,4}:){2,7}[0-9a-fA-F]{1,4}\b/2001:db8::1/g
s/\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|net|org|io|local|internal|corp|lan|example|test)\b/host-1.domain-1.example/g
s/\b([a-zA-Z0-9]+)\/([a-z0-9.-]+)@([A-Z0-9.-]+)\b/\1\/host-1@REALM-1.EXAMPLE/g
s/\b([a-zA-Z0-9._-]+)@([A-Z][A-Z0-9.-]+)\b/user-1@REALM-1.EXAMPLE/g
s/\b(user|ugi|owner|admin|realUser|proxyUser)=[^ ,}|]+/\1=user-1/g
s/\b(volume|volumeName)=[^ ,}|]+/\1=vol-1/g
s/\b(bucket|bucketName)=[^ ,}|]+/\1=bucket-1/g
s/\b(key|keyName)=[^ ,}|]+/\1=key-1/g
s/"(volume|bucket|key)":"[^"]*"/"\1":"x-1"/g
s/\b(USER|GROUP):[^:,]+:/\1:user-1:/g
s/\b(awsAccessKey|accessKeyId|accessKey)=[^ ,}|]+/\1=ACCESSKEY-1/g
s/(encodedToken|token|delegationToken): "[^"]*"/\1: "TOKEN-1"/g
s/\b(password|secret|secretKey|awsSecret)=[^ ,}|]+/\1=SECRET-1/g
s/\b(host|hostname) = [^ ]+/\1 = host-1/g
s/\b([a-z0-9.-]*(password|secret|keytab|keystore|truststore)[a-z0-9.-]*)=[^ ,}]+/\1=SECRET-1/g
EOF
head -c "$((sedmib << 20))" < <(find "$dir" -type f -name '*.log' -exec cat {} +) > "$work/text"
gzip -1 < "$work/text" > "$work/text.gz"
n=$((sedmib << 20))
run "sed -E, 16 expressions ($sedmib MiB of text)" "$n" sed -E -f "$work/redact.sed" "$work/text"
run "ozdoctor redact, the same text (plain -> plain)" "$n" "$bin" redact --output "$work/text-out" "$work/text"
run "zcat | sed -E, 16 expressions | gzip -1" "$n" sh -c "zcat '$work/text.gz' | sed -E -f '$work/redact.sed' | gzip -1"
run "ozdoctor redact, the same text (.gz -> .gz)" "$n" "$bin" redact --output "$work/text-out.gz" "$work/text.gz"
