#!/bin/sh
# run-fuzz.sh SECONDS -- fuzz the problem reader for SECONDS seconds: build fuzz/fuzz-problem
# if needed (the build tree must be configured with --enable-fuzz), then run libFuzzer on it
# with the dictionary fuzz/problem.dict, a corpus seeded from examples/*.xml and
# tests/xml/{good,bad}/*.xml, at most 2 GB of memory and 10 s per input.
#
# Run it from the build tree (or set TESSERA_BUILDDIR).  The corpus grows in
# BUILDDIR/fuzz/corpus from run to run; what libFuzzer finds (a crash, a leak, undefined
# behavior, a timeout, an out-of-memory input) is saved in BUILDDIR/fuzz/artifacts/, and the
# exit status is then non-zero.  To replay one: fuzz/fuzz-problem FILE.
set -u
if [ "$#" -ne 1 ] || ! [ "$1" -gt 0 ] 2>/dev/null; then
  echo "usage: $0 SECONDS" >&2
  exit 2
fi
seconds=$1
srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${TESSERA_BUILDDIR:-.}" && pwd)

if ! grep -q '^fuzz/fuzz-problem:' "$builddir/Makefile" 2>/dev/null; then
  echo "$0: $builddir is not configured with --enable-fuzz (./configure --enable-fuzz)" >&2
  exit 2
fi
make -C "$builddir" fuzz/fuzz-problem || exit 2

corpus="$builddir/fuzz/corpus"
artifacts="$builddir/fuzz/artifacts"
mkdir -p "$corpus" "$artifacts" || exit 2
for seed in "$srcdir"/examples/*.xml "$srcdir"/tests/xml/good/*.xml "$srcdir"/tests/xml/bad/*.xml; do
  cp "$seed" "$corpus/seed-$(basename "$(dirname "$seed")")-$(basename "$seed")" || exit 2
done

OMP_NUM_THREADS=1 "$builddir/fuzz/fuzz-problem" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -dict="$srcdir/fuzz/problem.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
  "$corpus"
status=$?
if [ "$status" -ne 0 ]; then
  echo "$0: libFuzzer stopped with status $status; the input is in $artifacts/" >&2
fi
exit "$status"
