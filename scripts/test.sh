#!/usr/bin/env bash
# Runs the already built test suite, then the formatting lint, the fuzz smoke run and the
# man-page check, and ends with one line: "N passed, N failed". The exit status is non-zero when
# a test or a check failed, so `make test` still fails. Usage: SWIFT=swift scripts/test.sh [swift test options]
# The tests run against a throwaway PostgreSQL server (scripts/test-postgres.sh), stopped and
# removed when they end, fail or are interrupted; SHELF_TEST_POSTGRES_URL names it. When that
# variable is already set, the tests use the server it names and none is started.
set -uo pipefail
swift=${SWIFT:-swift}
cd "$(dirname "$0")/.."

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Ctrl-C stops the whole run (after the test server is gone), not just the tests.
trap 'exit 130' INT
postgres=(bash scripts/test-postgres.sh run)
if [[ -n "${SHELF_TEST_POSTGRES_URL:-}" ]]; then postgres=(); fi
"${postgres[@]}" "$swift" test --skip-build "$@" 2>&1 | tee "$log"
tests_status=${PIPESTATUS[0]}

checks_status=0
"${MAKE:-make}" --no-print-directory lint SWIFT="$swift" || checks_status=1
# The fuzz smoke run: the sanitizer build, the regression inputs, then a few seconds per target
# (scripts/fuzz.sh smoke; FUZZ_SECONDS, default 3). SHELF_SKIP_FUZZ=1 leaves it out.
if [[ -z ${SHELF_SKIP_FUZZ:-} ]]; then
  SWIFT="$swift" bash scripts/fuzz.sh smoke || checks_status=1
fi
warnings=$(man --warnings -l man/*.1 2>&1 >/dev/null)
if [[ -n "$warnings" ]]; then
  echo "$warnings"
  checks_status=1
fi

# Swift Testing ends with "Test run with N tests in M suites passed|failed after …" and prints
# "✘ Test NAME failed after …" per failed test. The total comes from that last line, because the
# per-test "passed" lines can be glued to other output when tests print concurrently; without
# it (a crashed run), the per-test lines are counted wherever they appear in a line.
read -r passed failed < <(
  sed 's/\x1b\[[0-9;]*m//g' "$log" | awk '
    /Test run with [0-9]+ tests? / {
      match($0, /Test run with [0-9]+/); total = substr($0, RSTART + 14, RLENGTH - 14) + 0; next
    }
    /Test .* passed after/ { passed++ }
    /Test .* failed after/ { failed++ }
    END { if (total > 0) passed = total - failed; print passed + 0, failed + 0 }')

summary="$passed passed, $failed failed"
if ((tests_status != 0 && failed == 0)); then
  summary+=" (swift test exited with status $tests_status)"
fi
if ((checks_status != 0)); then summary+="; the lint, fuzz or man-page check failed (above)"; fi
echo "$summary"
if ((tests_status != 0)); then exit "$tests_status"; fi
exit "$checks_status"
