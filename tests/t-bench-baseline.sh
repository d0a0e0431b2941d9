#!/bin/sh
# t-bench-baseline.sh -- the performance regression guard on omp, at sizes that take a
# fraction of a second: `tessera bench --repeat N --json` writes a baseline, `--baseline FILE`
# compares every time per DoF and iteration count with it (exit 4 when slower beyond
# --noise, 1 when nothing could be compared or the file is bad, 2 for bad options), and
# bench/regress.sh does the same for its list of benchmarks.
builddir=${TESSERA_BUILDDIR:-.}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tessera="$builddir/src/tessera"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "1..13"
n=0
t() { # description, then the condition's exit status in $?
  st=$?
  n=$((n + 1))
  if [ $st -eq 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}
show() { echo "$1" | sed 's/^/# /'; }
small="--backend omp --dim 2 --degrees 2 --dofs 1e4 --seconds 0.01 --no-ceilings"
# the baseline: two windows per figure, the best reported
"$tessera" bench $small --repeat 2 --json >"$tmp/base.jsonl"; st=$?
show "$(cat "$tmp/base.jsonl")"
[ $st -eq 0 ] && [ "$(wc -l <"$tmp/base.jsonl")" -eq 1 ] && grep -q '"device": "OpenMP on the host, up to [0-9]* threads"' "$tmp/base.jsonl"
t "bench --repeat 2 --json writes one row naming the device"
out=$("$tessera" bench $small --baseline "$tmp/base.jsonl" --noise 1000 2>&1); st=$?
show "$out"
[ $st -eq 0 ] && echo "$out" | grep -q '^# baseline .*: 1 figures compared, 0 beyond the 1000% noise margin'
t "the same bench against its own baseline with a wide margin: exit 0, one figure compared"
# a baseline 1e6 times faster than any machine: every time is a regression
sed 's/\("[a-z_]*ns_per_dof": \)[0-9.e+-]*/\10.000001/g' "$tmp/base.jsonl" >"$tmp/fast.jsonl"
out=$("$tessera" bench $small --baseline "$tmp/fast.jsonl" 2>&1); st=$?
show "$out"
[ $st -eq 4 ] && echo "$out" | grep -q 'ns_per_dof .* SLOWER' && echo "$out" | grep -q '1 figures slower than the baseline'
t "a baseline faster than this run: exit 4, the figure marked SLOWER"
sed 's/\("[a-z_]*ns_per_dof": \)[0-9.e+-]*/\11000000/g' "$tmp/base.jsonl" >"$tmp/slow.jsonl"
"$tessera" bench $small --baseline "$tmp/slow.jsonl" >/dev/null 2>&1
t "a baseline slower than this run: exit 0"
out=$("$tessera" bench $small --json --baseline "$tmp/slow.jsonl" 2>"$tmp/err"); st=$?
[ $st -eq 0 ] && [ "$(echo "$out" | grep -vc '^{')" -eq 0 ] && grep -q '^# baseline' "$tmp/err"
t "with --json the comparison goes to stderr and stdout stays JSON lines"
sed 's/"degree": 2/"degree": 3/' "$tmp/base.jsonl" >"$tmp/other.jsonl"
out=$("$tessera" bench $small --baseline "$tmp/other.jsonl" 2>&1); st=$?
show "$out"
[ $st -eq 1 ] && echo "$out" | grep -q 'no row in .* for laplace k 2' && echo "$out" | grep -q 'nothing was compared'
t "a baseline of other degrees: exit 1, nothing compared"
printf '{"kernel": "laplace", "degree": }\n' >"$tmp/bad.jsonl"
out=$("$tessera" bench $small --baseline "$tmp/bad.jsonl" 2>&1); st=$?
show "$out"
[ $st -eq 1 ] && echo "$out" | grep -q "bad.jsonl:1: not a flat JSON object"
t "a malformed baseline: exit 1 naming the file and line"
out=$("$tessera" bench $small --baseline "$tmp/none.jsonl" 2>&1); st=$?
[ $st -eq 1 ] && echo "$out" | grep -q "none.jsonl: No such file"
t "a missing baseline: exit 1 naming the file"
"$tessera" bench $small --repeat 0 >/dev/null 2>&1; [ $? -eq 2 ]
t "--repeat 0 is a usage error"
"$tessera" bench $small --noise -5 >/dev/null 2>&1; [ $? -eq 2 ]
t "--noise -5 is a usage error"
# the multigrid rows: an iteration count above the baseline's is a regression whatever --noise
mg="--backend omp --mg --dim 2 --degrees 2 --dofs 2e3 --seconds 0.01 --no-ceilings"
"$tessera" bench $mg --json >"$tmp/mg.jsonl" 2>/dev/null
sed 's/"gmres_iterations": [0-9]*/"gmres_iterations": 0/' "$tmp/mg.jsonl" >"$tmp/mg-fewer.jsonl"
out=$("$tessera" bench $mg --baseline "$tmp/mg-fewer.jsonl" --noise 1000 2>&1); st=$?
show "$out"
[ $st -eq 4 ] && echo "$out" | grep -q 'gmres_iterations .* MORE ITERATIONS' && ! echo "$out" | grep -q 'ns_per_dof .* SLOWER'
t "bench --mg: more GMRES iterations than the baseline is exit 4 even within the time margin"
# bench/regress.sh: write a baseline for this device into a folder, then compare with it
out=$(TESSERA="$tessera" sh "$srcdir/bench/regress.sh" --backend omp --dofs 1e4 --only poisson-operator-double --baselines "$tmp/b" --update 2>&1); st=$?
show "$out"
[ $st -eq 0 ] && [ "$(ls "$tmp/b"/openmp-on-the-host-*-threads.jsonl | wc -l)" -eq 1 ]
t "regress.sh --update writes the device's baseline file"
for f in "$tmp/b"/*.jsonl; do sed 's/\("[a-z_]*ns_per_dof": \)[0-9.e+-]*/\10.000001/g' "$f" >"$f.tmp" && mv "$f.tmp" "$f"; done
out=$(TESSERA="$tessera" sh "$srcdir/bench/regress.sh" --backend omp --dofs 1e4 --only poisson-operator-double --baselines "$tmp/b" 2>&1); st=$?
show "$out"
[ $st -eq 4 ] && echo "$out" | grep -q 'poisson-operator-double SLOWER than the baseline'
t "regress.sh against a faster baseline: exit 4 naming the benchmark"
