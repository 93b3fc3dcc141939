#!/bin/sh
# The change feed's detection at scale (docs/changes.md): a generated corpus is loaded, then
# again with every 16th record's legal name changed, then again unchanged (the full scan alone).
# Each load logs "changes: N field change(s) against <collection> in S s" beside its own
# "loaded ... in S s". Run from the repository after `npm run build`:
#   sh bench/change-feed.sh [records, default 1000000] [work dir, default /tmp/leidex-change-bench]
set -eu
N=${1:-1000000}
DIR=${2:-/tmp/leidex-change-bench}
rm -rf "$DIR/data"
mkdir -p "$DIR"
[ -f "$DIR/a-$N.csv" ] || node dist/bench/generate.js --records "$N" --out "$DIR/a-$N.csv"
# the first "," of a row ends its LEI: the legal name that follows gets a word in front
awk 'NR > 1 && NR % 16 == 0 { sub(/","/, "\",\"Changed ") } { print }' "$DIR/a-$N.csv" > "$DIR/b-$N.csv"
cp "$DIR/a-$N.csv" "$DIR/corpus.csv"
node dist/src/main.js --source "$DIR/corpus.csv" --data-dir "$DIR/data" --host 127.0.0.1 --port 0 > "$DIR/log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
waitfor() {
  while [ "$(grep -c "$1" "$DIR/log" || true)" -lt "$2" ]; do
    kill -0 $PID 2>/dev/null || { tail -20 "$DIR/log"; exit 1; }
    sleep 1
  done
}
waitfor "listening on" 1
cp "$DIR/b-$N.csv" "$DIR/corpus.csv"
kill -HUP $PID
waitfor "^.*changes: " 1
waitfor "loaded [0-9]* records" 2
kill -HUP $PID
waitfor "^.*changes: " 2
waitfor "loaded [0-9]* records" 3
grep -E "loaded [0-9]+ records|changes: |parsed [0-9]+ records" "$DIR/log"
