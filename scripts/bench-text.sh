#!/usr/bin/env bash
# Text-encoding benchmark: builds a multilingual corpus (Debian's translated man pages, the
# installed programs' translated messages and CPython's cjkencodings samples, converted into
# the legacy encodings of each language) and scores `shelf info`, `uchardet` and
# `file --mime-encoding` side by side by exact decoded text; then times `shelf index` of 20,000
# small text files, against BASELINE (an older shelf binary) when that variable is set.
# Usage: bench-text.sh SHELF [CORPUS]
set -euo pipefail
shelf=${1:?usage: bench-text.sh SHELF [CORPUS]}
corpus=${2:-${TMPDIR:-/tmp}/shelf-bench-text}
for tool in uchardet file iconv python3; do
  command -v "$tool" >/dev/null || { echo "bench-text needs $tool (apt-get install -y uchardet file)" >&2; exit 1; }
done
for package in manpages-ru manpages-pl manpages-ja manpages-zh manpages-de manpages-fr libpython3.11-testsuite; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || echo "note: $package is not installed: the corpus has less text" >&2
done
python3 "$(dirname "$0")/bench_text.py" --shelf "$shelf" --corpus "$corpus" \
  ${BASELINE:+--baseline "$BASELINE"}
