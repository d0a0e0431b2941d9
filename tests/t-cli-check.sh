#!/bin/sh
# t-cli-check.sh -- `tessera check` (omp against omp: every check passes with difference 0),
# its usage errors, and `tessera bench` with the ceilings measured in the same run and the
# memory check that refuses a size that does not fit.
builddir=${TESSERA_BUILDDIR:-.}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tessera="$builddir/src/tessera"
echo "1..8"
n=0
t() { # description, then the condition's exit status in $?
  st=$?
  n=$((n + 1))
  if [ $st -eq 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}
out=$("$tessera" check "$srcdir/examples/poisson-2d.xml" --backend omp --against omp --set mesh/levels=2 --set element/degree=3 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ]; t "check omp against omp exits 0"
# 8 Laplacian, 6 smoother, 4 transfer, 2 V-cycle checks in double and single, 2 for the solve
[ "$(echo "$out" | grep -c '^PASS')" -eq 22 ] && ! echo "$out" | grep -q '^FAIL'; t "22 PASS lines (Laplacian, smoothers, transfers, V-cycles, solve), no FAIL"
echo "$out" | grep '^PASS' | grep 'relative difference' | grep -qv 'difference 0.000e+00'; [ $? -ne 0 ]; t "identical backends differ by exactly 0"
out=$("$tessera" check "$srcdir/examples/poisson-2d.xml" --backend omp --set mesh/levels=0 --set convergence/first-level=0 --set element/degree=2 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -c '^SKIP .*has no coarser level')" -eq 6 ]; t "level 0: transfer and V-cycle checks print SKIP, the others pass"
"$tessera" check "$srcdir/examples/poisson-2d.xml" >/dev/null 2>&1; [ $? -eq 2 ]; t "check without --backend is a usage error (exit 2)"
err=$("$tessera" check "$srcdir/examples/poisson-2d.xml" --backend nosuch 2>&1); st=$?
echo "$err" | sed 's/^/# /'
[ $st -eq 1 ] && echo "$err" | grep -q "backend 'nosuch' is not built or not found"; t "check with a missing backend names it (exit 1)"
out=$("$tessera" bench --backend omp --dim 2 --degrees 2 --dofs 1e4 --seconds 0.01 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && echo "$out" | grep -q '^# ceilings measured now: copy [0-9.]* GB/s, FP64 [0-9.]* GFLOP/s'; t "bench measures the ceilings and prints the fractions"
err=$("$tessera" bench --backend omp --dim 3 --degrees 2 --dofs 1e11 --no-ceilings 2>&1); st=$?
echo "$err" | sed 's/^/# /'
[ $st -eq 1 ] && echo "$err" | grep -q "needs .* GiB .* but backend 'omp' has .* GiB available"; t "bench refuses a size that does not fit, naming both numbers"
