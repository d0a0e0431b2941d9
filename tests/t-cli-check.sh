#!/bin/sh
# t-cli-check.sh -- `tessera check` (omp against omp: every check passes with difference 0,
# for Poisson and Stokes problems; against the wrong_stokes test backend, whose Stokes
# operator kernel is deliberately wrong: the Stokes checks FAIL), its usage errors, and
# your own problem (examples/poisson-kershaw.xml: the operator on mapped cells, Chebyshev,
# transfers, the mapped V-cycle), Taylor-Hood (its operator and velocity V-cycles),
# paper 003's Darcy problem (examples/darcy-3d.xml: the assembled operator, the solve; and
# examples/darcy-kershaw.xml on Kershaw's mesh),
# `tessera bench` with the ceilings measured in the same run and the memory check that
# refuses a size that does not fit; `tessera bench --problem mass-inverse` (paper 003, Table 1:
# a row per method, each with W W^-1 x = x to the tolerance) and its usage errors; `tessera
# bench --problem darcy` (Figure 8: a row per degree with the MINRES iterations and the parts)
# and its usage errors.
builddir=${TESSERA_BUILDDIR:-.}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tessera="$builddir/src/tessera"
echo "1..24"
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
out=$("$tessera" check "$srcdir/examples/darcy-3d.xml" --backend omp --set mesh/levels=1 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -c '^PASS  \(hdiv apply\|hdiv apply_add\|solve\)')" -eq 5 ] &&
  ! echo "$out" | grep -q '^FAIL'; t "darcy-3d.xml: operator (apply, apply_add) and solve (iterations, velocity, pressure) PASS"
out=$("$tessera" check "$srcdir/examples/darcy-kershaw.xml" --backend omp --set mesh/levels=2 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -c '^PASS  \(hdiv apply\|hdiv apply_add\|solve\)')" -eq 5 ] &&
  ! echo "$out" | grep -q '^FAIL'; t "darcy-kershaw.xml (Kershaw's mesh): operator and solve PASS"
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
out=$("$tessera" bench --problem mass-inverse --backend omp --degrees 2 --dofs 2000 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -cE '^  (explicit|cholesky|cg-legendre|cg-lobatto) +2 .* [0-9.]+e-1[3-7]$')" -eq 4 ]; t "bench --problem mass-inverse: four methods, each with |W y - x|/|x| below 1e-12"
err=$("$tessera" bench --tolerance 1e-8 --backend omp 2>&1); st=$?
echo "$err" | sed 's/^/# /'
[ $st -eq 2 ] && echo "$err" | grep -q "\-\-tolerance applies to --problem mass-inverse only"; t "bench --tolerance without --problem mass-inverse is a usage error"
out=$("$tessera" bench --problem darcy --backend omp --dim 2 --degrees 1 --dofs 3000 --seconds 0.05 2>&1); st=$?
echo "$out" | sed 's/^/# /'
row=$(echo "$out" | grep -E '^ +1 +[0-9]+ +[0-9]+ +[0-9]+( +-?[0-9.]+){10}$')
its=$(echo "$row" | awk '{print $4}')
[ $st -eq 0 ] && [ -n "$row" ] && [ "$its" -ge 10 ] && [ "$its" -le 100 ]; t "bench --problem darcy: a row for RT_1 with the MINRES iterations ($its) and the ten timings"
err=$("$tessera" bench --problem darcy --backend omp --mg 2>&1); st=$?
echo "$err" | sed 's/^/# /'
[ $st -eq 2 ] && echo "$err" | grep -q "\-\-mg does not apply to --problem darcy"; t "bench --problem darcy --mg is a usage error"
# Stokes: 2D RT2 on level 2 (coarse level 1): 14 operator checks and 3 for the solve
stokes2d="$srcdir/examples/stokes-rt-2d.xml"
out=$("$tessera" check "$stokes2d" --backend omp --against omp --set mesh/levels=2 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -c '^PASS  stokes')" -eq 14 ] &&
  [ "$(echo "$out" | grep -c '^PASS  solve \(iterations\|velocity\|pressure\)')" -eq 3 ] &&
  ! echo "$out" | grep -q '^FAIL'; t "Stokes check omp against omp: 17 PASS lines (operator, smoothers, transfers, V-cycles, solve), no FAIL"
echo "$out" | grep '^PASS' | grep 'relative difference' | grep -qv 'difference 0.000e+00'; [ $? -ne 0 ]; t "Stokes: identical backends differ by exactly 0"
out=$("$tessera" check "$srcdir/examples/stokes-rt-3d.xml" --backend omp --set mesh/levels=2 --set element/degree=0 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -c '^PASS')" -eq 17 ] && ! echo "$out" | grep -q '^SKIP'; t "Stokes 3D RT0 (tiny): 17 PASS lines, the direct local solver included"
out=$("$tessera" check "$stokes2d" --backend omp --set mesh/levels=1 --set convergence/first-level=1 --set element/degree=5 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -c '^SKIP  stokes smoother direct .*takes degree <= 4 in 2D, the problem has 5')" -eq 2 ] &&
  [ "$(echo "$out" | grep -c '^SKIP  stokes .*no coarser level in the multigrid hierarchy (coarse level 1)')" -eq 6 ]; t "Stokes RT5 on the coarse level: direct solver, transfers and V-cycles print SKIP with the reason"
out=$("$tessera" check "$stokes2d" --backend wrong_stokes --set mesh/levels=2 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 1 ] && echo "$out" | grep -q '^FAIL  stokes apply  *double' && echo "$out" | grep -q '^FAIL  stokes apply  *single' &&
  echo "$out" | grep -q '^FAIL  stokes v-cycle ' && echo "$out" | grep -q '^# [0-9]* checks FAILED'; t "a wrong Stokes operator kernel (wrong_stokes backend) is detected: FAIL, exit 1"
[ "$(echo "$out" | grep -c '^PASS  stokes \(prolongation\|restriction\)')" -eq 4 ]; t "wrong_stokes: the transfers, whose kernel is right, still PASS"
# your own problem (mapped cells, expressions): 8 operator, 2 Chebyshev, 2 additive
# vertex-patch, 4 transfer, 2 V-cycle checks and the solve; not the box's patch smoother
out=$("$tessera" check "$srcdir/examples/poisson-kershaw.xml" --backend omp --set mesh/levels=2 --set solver/preconditioner=mg 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -c '^PASS')" -eq 20 ] && ! echo "$out" | grep -q 'patch \(fused\|separate\)' &&
  [ "$(echo "$out" | grep -c '^PASS  smoother patch additive')" -eq 2 ] &&
  echo "$out" | grep -q '^PASS  v-cycle mixed'; t "your own problem on Kershaw's mesh: 20 PASS lines (operator, Chebyshev on D^-1 A and on the additive patches, transfers, V-cycles, solve), not the box's patch smoother"
# a pure Neumann problem: its singular operator, transfers and V-cycles (the bordered LU)
out=$("$tessera" check "$srcdir/examples/poisson-neumann.xml" --backend omp --set mesh/levels=2 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -c '^PASS')" -eq 20 ]; t "a pure Neumann problem (examples/poisson-neumann.xml): 20 PASS lines"
# Taylor-Hood (doc/taylor-hood.md) with the coupled multigrid: 6 operator checks, 8 for the
# relaxations, 4 transfers, 2 coupled V-cycles, 3 for the solve; with the block-diagonal
# preconditioner the 6 operator checks, 2 velocity V-cycles and 3 for the solve
out=$("$tessera" check "$srcdir/examples/stokes-th-2d.xml" --backend omp --set mesh/levels=3 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -c '^PASS  taylor-hood')" -eq 20 ] &&
  [ "$(echo "$out" | grep -c '^PASS  taylor-hood smoother')" -eq 8 ] &&
  [ "$(echo "$out" | grep -c '^PASS  taylor-hood v-cycle')" -eq 2 ] &&
  [ "$(echo "$out" | grep -c '^PASS  solve')" -eq 3 ] && ! echo "$out" | grep -q '^PASS  stokes' &&
  ! echo "$out" | grep -q 'velocity v-cycle' &&
  echo "$out" | grep -q 'Stokes Taylor-Hood Q2 x Q1'; t "Taylor-Hood (examples/stokes-th-2d.xml): its operator, the relaxations, transfers and coupled V-cycles, the solve, none of RT's checks"
out=$("$tessera" check "$srcdir/examples/stokes-th-2d-block.xml" --backend omp --set mesh/levels=3 2>&1); st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 0 ] && [ "$(echo "$out" | grep -c '^PASS  taylor-hood')" -eq 6 ] &&
  [ "$(echo "$out" | grep -c '^PASS  velocity v-cycle')" -eq 2 ] &&
  [ "$(echo "$out" | grep -c '^PASS  solve')" -eq 3 ]; t "Taylor-Hood (examples/stokes-th-2d-block.xml): its operator, the velocity V-cycles and the solve"

