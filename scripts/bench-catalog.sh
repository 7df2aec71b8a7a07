#!/usr/bin/env bash
# make bench-catalog: the SQLite catalogue against a PostgreSQL one, side by side in one run.
#  (a) shelf index of /usr/share into a new SQLite file and into a new PostgreSQL database;
#  (b) a synthetic catalogue of 1,000,000 entries (scripts/bench-catalog-generate.py writes
#      it into a SQLite catalogue that shelf index made; shelf catalog copy loads it into
#      PostgreSQL): ls queries (a kind, a size range, a tag, a full-text word, a glob, a sort)
#      with --limit 100 and without (the table into /dev/null, as into a pipe), and stats,
#      the median of BENCH_QUERY_RUNS alternating runs each, beside their targets (200 ms a
#      query, 1 s for stats), and the floor under the largest listing: sqlite3 and psql's
#      COPY writing the columns it shows into /dev/null;
#  (c) two indexers of two roots (copies of /usr/share/doc) at once into one PostgreSQL
#      database, one worker each, against each alone.
# Then the size on disk of each catalogue. The server is a throwaway one started by
# scripts/test-postgres.sh (durable: fsync on) and removed at the end. The machine may be
# shared: the ratios are what count.
#
# usage: scripts/bench-catalog.sh [path/to/shelf]
#   BENCH_CATALOG_ENTRIES (default 1000000) sets the synthetic catalogue's size.
#   BENCH_PART (default abc) runs only the parts named: BENCH_PART=b for the queries alone.
#   BENCH_INDEX_RUNS (default 3) sets how many alternating runs (a) and (c) take the medians of.
#   BENCH_QUERY_RUNS (default 5) sets how many alternating runs (b) takes the medians of.
set -euo pipefail

SHELF=${1:-.build/release/shelf}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_DIR:-$ROOT/.build/bench-catalog}
ENTRIES=${BENCH_CATALOG_ENTRIES:-1000000}
RUNS=3
QUERY_RUNS=${BENCH_QUERY_RUNS:-5}
PARTS=${BENCH_PART:-abc}
INDEX_RUNS=${BENCH_INDEX_RUNS:-3}
[[ -x "$SHELF" ]] || { echo "bench-catalog: $SHELF not found; run 'make release' first" >&2; exit 1; }
SHELF=$(cd "$(dirname "$SHELF")" && pwd)/$(basename "$SHELF")
mkdir -p "$WORK"

server=$(bash "$ROOT/scripts/test-postgres.sh" start --durable --owner $$)
trap 'bash "$ROOT/scripts/test-postgres.sh" stop "$server"' EXIT
admin=$(cat "$server/url")
# The URL of database $1 on the benchmark's server.
database_url() { echo "${admin%/*}/$1"; }
new_database() { psql -X -q -v ON_ERROR_STOP=1 -d "$admin" -c "CREATE DATABASE $1"; }
database_size() { psql -X -A -t -d "$admin" -c "SELECT pg_database_size('$1')"; }
# Bytes of a SQLite catalogue with its write-ahead log.
file_size() { stat -c %s "$1" "$1-wal" 2>/dev/null | awk '{ s += $1 } END { print s }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.0f MiB", b / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }

# Seconds the command took (its output discarded). shelf index exits 1 when some files could
# not be read, which /usr/share has; anything else is a failure.
seconds() {
  local start=$EPOCHREALTIME status=0
  "$@" >/dev/null 2>&1 || status=$?
  ((status <= 1)) || { echo "bench-catalog: failed ($status): $*" >&2; exit 1; }
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'
}

# The median of $RUNS timings of one command.
median_seconds() {
  local times=() run
  for ((run = 0; run < RUNS; run++)); do times+=("$(seconds "$@")"); done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

# The median of the numbers given.
median_of() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

entries_in() { "$SHELF" --db "$1" ls -0 "${@:2}" 2>/dev/null | tr -cd '\0' | wc -c; }

echo "bench-catalog: $(nproc) processors, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"

# --- (a) /usr/share into SQLite and into PostgreSQL ------------------------------------------
usr_share_sizes=()
if [[ $PARTS == *a* ]]; then
echo
echo "(a) shelf index /usr/share, the median of $INDEX_RUNS alternating runs each"
rm -f "$WORK"/usr-share*.sqlite*
# A first, untimed pass, so that both timed runs find the files in the page cache.
seconds "$SHELF" --db "$WORK/usr-share-warmup.sqlite" index --progress never /usr/share >/dev/null
rm -f "$WORK"/usr-share-warmup.sqlite*
sqlite_times=() postgres_times=()
for ((run = 0; run < INDEX_RUNS; run++)); do
  # Each run starts from an empty catalogue; the last run's are kept for the counts and sizes.
  rm -f "$WORK"/usr-share.sqlite*
  psql -X -q -d "$admin" -c "DROP DATABASE IF EXISTS usr_share" 2>/dev/null
  new_database usr_share
  sqlite_times+=("$(seconds "$SHELF" --db "$WORK/usr-share.sqlite" index --progress never /usr/share)")
  postgres_times+=("$(seconds "$SHELF" --db "$(database_url usr_share)" index --progress never /usr/share)")
done
sqlite_index=$(median_of "${sqlite_times[@]}")
postgres_index=$(median_of "${postgres_times[@]}")
echo "  runs: SQLite ${sqlite_times[*]}; PostgreSQL ${postgres_times[*]}"
sqlite_entries=$(entries_in "$WORK/usr-share.sqlite")
postgres_entries=$(entries_in "$(database_url usr_share)")
printf '  %-28s %10s %12s %8s\n' "" SQLite PostgreSQL ratio
printf '  %-28s %9ss %11ss %7sx\n' "index ($sqlite_entries entries)" "$sqlite_index" "$postgres_index" \
  "$(ratio "$sqlite_index" "$postgres_index")"
[[ "$sqlite_entries" == "$postgres_entries" ]] \
  || echo "  note: PostgreSQL holds $postgres_entries entries, SQLite $sqlite_entries"
usr_share_sizes=("$(file_size "$WORK/usr-share.sqlite")" "$(database_size usr_share)")
fi

# --- (b) a synthetic catalogue of $ENTRIES entries --------------------------------------------
synthetic_sizes=()
if [[ $PARTS == *b* ]]; then
echo
echo "(b) $ENTRIES synthetic entries"
synthetic=$WORK/synthetic-$ENTRIES.sqlite
seed=$WORK/synthetic-root
mkdir -p "$seed"
echo "The root the synthetic entries are catalogued under." >"$seed/README.txt"
# The generated catalogue is kept between runs while the schema and the generator stay the same.
rm -f "$WORK/schema-probe.sqlite"*
"$SHELF" --db "$WORK/schema-probe.sqlite" index --progress never "$seed" >/dev/null
schema=$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA user_version').fetchone()[0])" "$WORK/schema-probe.sqlite")
stamp="$schema $(sha1sum <"$ROOT/scripts/bench-catalog-generate.py")"
if [[ ! -f "$synthetic" || "$(cat "$synthetic.stamp" 2>/dev/null)" != "$stamp" ]]; then
  rm -f "$synthetic"*
  mv "$WORK/schema-probe.sqlite" "$synthetic"
  python3 "$ROOT/scripts/bench-catalog-generate.py" "$synthetic" "$ENTRIES"
  echo "$stamp" >"$synthetic.stamp"
fi
rm -f "$WORK/schema-probe.sqlite"*
new_database synthetic
synthetic_url=$(database_url synthetic)
copy_time=$(seconds "$SHELF" catalog copy "$synthetic" "$synthetic_url")
echo "  shelf catalog copy into PostgreSQL: ${copy_time}s"
# What autovacuum does within a minute of a bulk load, done now so that the timings do not
# depend on when it comes: the visibility map (the copy ends by refreshing the statistics).
psql -X -q -d "$synthetic_url" -c "VACUUM ANALYZE"

queries=(
  "a kind|kind:video"
  "a size range|size:10M..12M"
  "a tag|artist:holloway"
  "a full-text word|lighthouse"
  "a glob|name:*.flac"
  "a sort|kind:image --sort size:desc"
)
# What any command costs before it opens a catalogue: the floor under every time below.
startup=$(median_seconds "$SHELF" --version)
echo "  median of $QUERY_RUNS alternating runs (SQLite, then PostgreSQL, with --limit 100 and without),"
echo "  the table written into /dev/null as into a pipe; start-up (shelf --version) ${startup}s"
printf '  %-44s %8s %9s %9s %9s %9s  %s\n' "ls …" matches "SQLite" "" PostgreSQL "" target
printf '  %-44s %8s %9s %9s %9s %9s\n' "" "" "limit 100" all "limit 100" all
# The median of each of the commands given (one a line, words separated by tabs), run in
# turn $QUERY_RUNS times, so that a change of load spreads over all of them alike; the
# medians in order, one a line.
alternating_medians() {
  local commands=() run index line words
  while IFS= read -r line; do commands+=("$line"); done
  local -a times
  for ((run = 0; run < QUERY_RUNS; run++)); do
    for index in "${!commands[@]}"; do
      IFS=$'\t' read -r -a words <<<"${commands[$index]}"
      times[index]+="$(seconds "${words[@]}") "
    done
  done
  for index in "${!commands[@]}"; do
    # shellcheck disable=SC2086
    median_of ${times[index]}
  done
}
# "ok" when every time given is under the target in seconds, else "MISSED".
verdict() {
  local target=$1 time
  for time in "${@:2}"; do
    awk -v t="$time" -v limit="$target" 'BEGIN { exit !(t < limit) }' || { echo "MISSED"; return; }
  done
  echo "ok"
}
tab=$'\t'
for query in "${queries[@]}"; do
  label=${query%%|*}
  read -r -a terms <<<"${query#*|}"
  matches=$(entries_in "$synthetic" "${terms[@]}")
  postgres_matches=$(entries_in "$synthetic_url" "${terms[@]}")
  joined=$(printf "%s$tab" "${terms[@]}")
  mapfile -t medians < <(alternating_medians <<EOF2
$SHELF$tab--db$tab$synthetic${tab}ls$tab$joined--limit${tab}100
$SHELF$tab--db$tab$synthetic${tab}ls$tab${joined%"$tab"}
$SHELF$tab--db$tab$synthetic_url${tab}ls$tab$joined--limit${tab}100
$SHELF$tab--db$tab$synthetic_url${tab}ls$tab${joined%"$tab"}
EOF2
)
  printf '  %-44s %8s %8ss %8ss %8ss %8ss  < 0.2 s %s\n' "$label (${terms[*]})" "$matches" "${medians[@]}" \
    "$(verdict 0.2 "${medians[@]}")"
  [[ "$matches" == "$postgres_matches" ]] || echo "  note: PostgreSQL matches $postgres_matches"
done
mapfile -t medians < <(alternating_medians <<EOF2
$SHELF$tab--db$tab$synthetic${tab}stats
$SHELF$tab--db$tab$synthetic_url${tab}stats
EOF2
)
printf '  %-44s %8s %8ss %9s %8ss %9s  < 1 s %s\n' "stats" "" "${medians[0]}" "" "${medians[1]}" "" \
  "$(verdict 1 "${medians[@]}")"
# The floor under a listing of many rows: each database's own client writing the columns the
# table shows into /dev/null, with no shelf at all, through the plan shelf's query takes (the
# kind index; PostgreSQL with the session settings of a shelf reader).
floor_columns="path, kind, mime, size, width, height, color_type, bit_depth, cgbi, frames, duration, codec"
floors=(
  "kind:video|kind = 'video' COLLATE NOCASE ORDER BY +path|lower(kind) = 'video' ORDER BY path"
  "kind:image --sort size:desc|kind = 'image' COLLATE NOCASE ORDER BY size DESC, +path|lower(kind) = 'image' ORDER BY size DESC, path"
)
for floor in "${floors[@]}"; do
  IFS='|' read -r label sqlite_order postgres_order <<<"$floor"
  mapfile -t medians < <(alternating_medians <<EOF2
sqlite3$tab-cmd${tab}PRAGMA mmap_size=1099511627776$tab$synthetic${tab}SELECT $floor_columns FROM files WHERE $sqlite_order
psql$tab-X$tab-q$tab-d$tab$synthetic_url$tab-c${tab}SET jit = off; SET work_mem = '64MB'$tab-c${tab}COPY (SELECT $floor_columns FROM files WHERE $postgres_order) TO STDOUT
EOF2
)
  printf '  %-44s %8s %9s %8ss %9s %8ss\n' "floor: sqlite3, psql COPY ($label)" "" "" "${medians[0]}" "" \
    "${medians[1]}"
done
synthetic_sizes=("$(file_size "$synthetic")" "$(database_size synthetic)")
fi

# --- (c) two indexers of two roots at once ----------------------------------------------------
if [[ $PARTS == *c* ]]; then
echo
echo "(c) two indexers into PostgreSQL, one worker each, of two copies of /usr/share/doc, the median of $INDEX_RUNS alternating runs"
# Two copies of one tree: two roots that cost the same, so that "the slower alone" is either.
first_root=$WORK/two-roots/first
second_root=$WORK/two-roots/second
rm -rf "$WORK/two-roots"
mkdir -p "$WORK/two-roots"
cp -a /usr/share/doc "$first_root"
cp -a /usr/share/doc "$second_root"
# The CPU one indexer alone keeps busy, its own and its server session's, bounds what two can
# do at once: together they need twice that CPU from the machine's cores.
postmaster=$(head -n 1 "$server/data/postmaster.pid")
ticks=$(getconf CLK_TCK)
# CPU seconds the benchmark's server has used so far: the postmaster with the sessions it has
# reaped, and its processes still running.
server_cpu() {
  {
    awk '{ print $14 + $15 + $16 + $17 }' "/proc/$postmaster/stat"
    for process in $(pgrep -P "$postmaster"); do awk '{ print $14 + $15 }' "/proc/$process/stat" 2>/dev/null; done
  } | awk -v ticks="$ticks" '{ sum += $1 } END { printf "%.2f", sum / ticks }'
}
# Sets client_cpu to the CPU seconds this script's finished child processes have used so far
# (the builtin `times`, run in this shell, not in a command substitution's subshell, which has
# children of its own).
read_client_cpu() {
  times >"$WORK/times.txt"
  client_cpu=$(awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); printf "%.2f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$WORK/times.txt")
}
# Alternating runs (each alone, then both at once), each into new databases; the median of each.
first_times=() second_times=() together_times=() client_cpus=() server_cpus=()
for ((run = 0; run < INDEX_RUNS; run++)); do
  for name in first_alone second_alone together; do
    psql -X -q -d "$admin" -c "DROP DATABASE IF EXISTS $name" 2>/dev/null
    new_database "$name"
  done
  read_client_cpu
  client_before=$client_cpu server_before=$(server_cpu)
  first_times+=("$(seconds "$SHELF" --db "$(database_url first_alone)" index -j 1 --progress never "$first_root")")
  read_client_cpu
  client_cpus+=("$(awk -v a="$client_before" -v b="$client_cpu" 'BEGIN { printf "%.2f", b - a }')")
  server_cpus+=("$(awk -v a="$server_before" -v b="$(server_cpu)" 'BEGIN { printf "%.2f", b - a }')")
  second_times+=("$(seconds "$SHELF" --db "$(database_url second_alone)" index -j 1 --progress never "$second_root")")
  start=$EPOCHREALTIME
  "$SHELF" --db "$(database_url together)" index -j 1 --progress never "$first_root" >/dev/null 2>&1 &
  first_pid=$!
  "$SHELF" --db "$(database_url together)" index -j 1 --progress never "$second_root" >/dev/null 2>&1 &
  second_pid=$!
  for pid in "$first_pid" "$second_pid"; do
    status=0
    wait "$pid" || status=$?
    ((status <= 1)) || { echo "bench-catalog: an indexer of both at once failed ($status)" >&2; exit 1; }
  done
  together_times+=("$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')")
done
first_alone=$(median_of "${first_times[@]}")
second_alone=$(median_of "${second_times[@]}")
together=$(median_of "${together_times[@]}")
echo "  runs: first alone ${first_times[*]}; second alone ${second_times[*]}; both ${together_times[*]}"
slower=$(printf '%s\n%s\n' "$first_alone" "$second_alone" | sort -n | tail -n 1)
printf '  %-40s %9ss\n' "the first copy alone" "$first_alone" "the second copy alone" "$second_alone" \
  "both at once" "$together"
echo "  both at once / the slower alone: $(ratio "$slower" "$together")x"
client=$(median_of "${client_cpus[@]}")
session=$(median_of "${server_cpus[@]}")
awk -v client="$client" -v session="$session" -v wall="$first_alone" -v cores="$(nproc)" 'BEGIN {
  cpu = client + session
  printf "  one indexer alone: %.2fs of CPU (shelf %.2fs, the server %.2fs) in %.2fs, %.2f cores on average;\n", cpu, client, session, wall, cpu / wall
  printf "  two at once need %.2fs of CPU: on %d cores at least %.2fx the slower alone\n", 2 * cpu, cores, (2 * cpu / cores) / wall
}'
together_entries=$(entries_in "$(database_url together)")
alone_entries=$(($(entries_in "$(database_url first_alone)") + $(entries_in "$(database_url second_alone)")))
[[ "$together_entries" == "$alone_entries" ]] \
  || echo "  note: both at once catalogued $together_entries entries, alone $alone_entries"
rm -rf "$WORK/two-roots"
fi

echo
echo "Size on disk                       SQLite   PostgreSQL"
((${#usr_share_sizes[@]} == 0)) \
  || printf '  %-30s %10s %12s\n' "/usr/share" "$(mib "${usr_share_sizes[0]}")" "$(mib "${usr_share_sizes[1]}")"
((${#synthetic_sizes[@]} == 0)) \
  || printf '  %-30s %10s %12s\n' "$ENTRIES synthetic entries" "$(mib "${synthetic_sizes[0]}")" "$(mib "${synthetic_sizes[1]}")"
echo "bench-catalog: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
