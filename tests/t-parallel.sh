#!/bin/sh
# t-parallel.sh -- the MPI domain decomposition against the one-process run, under mpirun:
# tests/t-parallel with 1, 2, 3 (an uneven split) and 4 processes (2x2: DoFs shared by 4
# blocks), one TAP line per run, and tests/t-parallel-stokes (Stokes RT) with each of them and
# 8; tests/t-parallel-patch on 8 (2x2x2); then `tessera run` on the problem files
# tests/xml/good/mpirun-poisson-{2d,3d}.xml with 1 (--procs 1x1: the distributed code on
# one process), 2 and 3 processes against the plain one-process run (the same iterations,
# errors equal to round-off, the DoFs of the processes summing to the whole), the same for
# your own data on Kershaw's mesh (tests/xml/good/mpirun-kershaw-{2d,3d}.xml) and for Stokes
# RT (tests/xml/good/mpirun-stokes-{2d,3d}.xml), the .pvtu output and its pieces against the
# one-process .vtu (Poisson, Kershaw, Stokes), mixed precision and degree levels on 3
# processes against the one-process runs with the same settings, the file read by rank 0 alone, and
# problems that are not distributed refused; `tessera bench` (and --mg) under mpirun -np 2.  Built without MPI: that tessera
# refuses --procs and being one of several processes.  A TAP skip when no launcher was
# found.  One OpenMP thread per process: the machine may have fewer cores than processes
# (--oversubscribe).
builddir=$(cd "${TESSERA_BUILDDIR:-.}" && pwd)
srcdir=$(cd "$(dirname "$0")/.." && pwd)
program="$builddir/tests/t-parallel"
tessera="$builddir/src/tessera"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
n=0
ok() { # ok STATUS DESCRIPTION
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
if [ ! -x "$program" ]; then # built without MPI: tessera refuses to be one of several
  echo "1..2"
  problem="$srcdir/tests/xml/good/mpirun-poisson-2d.xml"
  (cd "$work" && "$tessera" run "$problem" --procs 2x1) >"$work/procs.out" 2>&1
  status=$?
  [ "$status" -eq 1 ] && grep -q -- '--procs asks for a distributed run, but this tessera was built without MPI' "$work/procs.out"
  ok $? "built without MPI: --procs 2x1 refused (exit $status): $(head -1 "$work/procs.out")"
  (cd "$work" && OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$tessera" run "$problem") >"$work/np.out" 2>&1
  status=$?
  [ "$status" -eq 1 ] && grep -q 'started as one of 2 processes (mpirun), but this tessera was built without MPI' "$work/np.out" &&
    [ ! -e "$work/mpirun-poisson-2d.vtu" ]
  ok $? "built without MPI: one of 2 processes of a launcher refused before any work (exit $status)"
  exit 0
fi
if [ -z "$TESSERA_MPIEXEC" ]; then
  echo "1..0 # SKIP no MPI launcher found (mpirun, mpiexec)"
  exit 0
fi
root=
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root
OMP_NUM_THREADS=1
export OMP_NUM_THREADS
echo "1..37"
mpirun_np() { # mpirun_np NP COMMAND...
  np=$1
  shift
  "$TESSERA_MPIEXEC" $root --oversubscribe -np "$np" "$@"
}

# run_np NP PROGRAM: tests/PROGRAM (t-parallel, t-parallel-stokes: Stokes RT against the
# one-process run) on NP processes, one TAP line: every planned test passed (skips included)
run_np() {
  mpirun_np $1 "$builddir/tests/$2" >"$work/out" 2>&1
  status=$?
  passed=$(grep -c '^ok ' "$work/out")
  failed=$(grep -c '^not ok ' "$work/out")
  planned=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$work/out")
  [ "$status" -eq 0 ] && [ "$failed" -eq 0 ] && [ -n "$planned" ] && [ "$passed" -eq "$planned" ]
  ok $? "mpirun -np $1 $2: exit $status, $passed passed (skips included), $failed failed of ${planned:-?}"
  [ "$status" -eq 0 ] && [ "$failed" -eq 0 ] || grep -v '^ok ' "$work/out" | sed 's/^/# /' | head -40
}

# TESSERA_TEST_PARALLEL_NP: the process counts of these runs (default "1 2 3 4"); the others
# print a TAP skip.  CI's sanitizer tree takes "4" (with the sanitizers a run of t-parallel
# takes about 100 s of both cores): 4 processes split 2x2 (2x2x1) exchange in two directions,
# corners included, and t-parallel's fixed split 1x4 (1x1x4) with one and with two
# neighbours of a direction, so every path of the halo is checked under ASan; this tree runs
# all four.
for np in 1 2 3 4; do
  case " ${TESSERA_TEST_PARALLEL_NP:-1 2 3 4} " in
    *" $np "*) ;;
    *) n=$((n + 2)); echo "ok $((n - 1)) # SKIP mpirun -np $np t-parallel: not in TESSERA_TEST_PARALLEL_NP"
       echo "ok $n # SKIP mpirun -np $np t-parallel-stokes: not in TESSERA_TEST_PARALLEL_NP"; continue ;;
  esac
  run_np $np t-parallel
  run_np $np t-parallel-stokes
done

# the vertex patches on 2x2x2 processes (tests/t-parallel-patch.c): the ghost cells of edges
# and corners, which arrive through two and three interfaces; in both trees (small: a second)
mpirun_np 8 "$builddir/tests/t-parallel-patch" >"$work/out" 2>&1
status=$?
passed=$(grep -c '^ok ' "$work/out")
[ "$status" -eq 0 ] && [ "$passed" -eq 6 ] && ! grep -q '^not ok' "$work/out"
ok $? "mpirun -np 8 t-parallel-patch (2x2x2): exit $status, $passed of 6 passed"
[ "$status" -eq 0 ] || grep -v '^ok ' "$work/out" | sed 's/^/# /' | head -20
# Stokes on 2x2x2 (3D; 2D skipped): the ghost layers of edges and corners
run_np 8 t-parallel-stokes

# first FILE KEY: the first value of "KEY": in the JSON line of FILE (the finest level's)
first() {
  awk -v k="\"$2\": " '{ i = index($0, k); if (i) { s = substr($0, i + length(k)); sub(/[,}\]].*/, "", s); print s; exit } }' "$1"
}
# close A B: |A - B| <= 1e-12 |A| + 1e-15 (the solutions are of size 1: round-off)
close() {
  awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; exit !(a != "" && d <= 1e-12 * m + 1e-15) }'
}
# per_process FILE: the processes listed and the sum of their owned DoFs
per_process() {
  awk '{ s = substr($0, index($0, "\"per_process\"")); n = split(s, parts, "\"dofs\": ");
         for (i = 2; i <= n; ++i) sum += parts[i] + 0; print n - 1, sum }' "$1"
}

# compare NAME DIR NP [OPTIONS]: the run in DIR under NP processes against the plain run (the
# second error: $second, the H1 error or Stokes' pressure L2 error; the plain run's JSON:
# $reference, default $work/NAME-one.json)
compare() {
  name=$1 dir=$2 np=$3
  shift 3
  mkdir -p "$work/$dir"
  (cd "$work/$dir" && mpirun_np "$np" "$tessera" run "$srcdir/tests/xml/good/$name.xml" --json "$@") \
    >"$work/$dir.json" 2>"$work/$dir.err"
  status=$?
  one="${reference:-$work/$name-one.json}" it=$(first "$work/$dir.json" iterations)
  l2=$(first "$work/$dir.json" l2_error) h1=$(first "$work/$dir.json" "$second")
  set -- $(per_process "$work/$dir.json")
  [ "$status" -eq 0 ] && [ "$it" = "$(first "$one" iterations)" ] &&
    close "$l2" "$(first "$one" l2_error)" && close "$h1" "$(first "$one" "$second")" &&
    [ "$(first "$work/$dir.json" processes)" = "$np" ] && [ "$1" = "$np" ] &&
    [ "$2" = "$(first "$one" dofs)" ]
  ok $? "$name, mpirun -np $np${options:+ $options}: exit $status, $it iterations (one process: $(first "$one" iterations)), L2 error $l2 (one process: $(first "$one" l2_error)), $second $h1 ($(first "$one" "$second")), DoFs of $1 processes sum to $2"
  [ "$status" -eq 0 ] || sed 's/^/# /' "$work/$dir.err" | head -10
}

for name in mpirun-poisson-2d mpirun-poisson-3d mpirun-kershaw-2d mpirun-kershaw-3d \
  mpirun-stokes-2d mpirun-stokes-3d; do
  second=h1_error
  case $name in mpirun-stokes-*) second=pressure_l2_error ;; esac
  mkdir -p "$work/$name-one"
  (cd "$work/$name-one" && "$tessera" run "$srcdir/tests/xml/good/$name.xml" --json) >"$work/$name-one.json"
  one_procs=1x1
  case $name in *-3d) one_procs=1x1x1 ;; esac
  options="--procs $one_procs" compare $name $name-np1 1 --procs $one_procs
  options= compare $name $name-np2 2
  options= compare $name $name-np3 3
done
second=h1_error options="--procs 1x3" compare mpirun-poisson-2d mpirun-poisson-2d-1x3 3 --procs 1x3
# mixed precision (single-precision V-cycles, ts_parallel_mg_set_precision) on 3 processes
# against the plain one-process mixed run
mkdir -p "$work/mixed-one"
(cd "$work/mixed-one" && "$tessera" run "$srcdir/tests/xml/good/mpirun-poisson-3d.xml" --json \
  --set multigrid/precision=mixed) >"$work/mixed-one.json"
reference="$work/mixed-one.json" second=h1_error options="multigrid/precision=mixed" \
  compare mpirun-poisson-3d mpirun-poisson-3d-mixed 3 --set multigrid/precision=mixed
# degree levels (Q2 -> Q1 on the coarse level, gathered: ts_parallel_mg_set_coarse_degree) on
# Kershaw's mesh, 3 processes, against the plain one-process run with the same levels
mkdir -p "$work/degree-one"
(cd "$work/degree-one" && "$tessera" run "$srcdir/tests/xml/good/mpirun-kershaw-3d.xml" --json \
  --set multigrid/coarse-degree=1) >"$work/degree-one.json"
reference="$work/degree-one.json" second=h1_error options="multigrid/coarse-degree=1" \
  compare mpirun-kershaw-3d mpirun-kershaw-3d-degree 3 --set multigrid/coarse-degree=1

# vtu_values FILE N: "i j k solution" per point, the coordinates as lattice indices (x N), or
# with N = 0 (a mapped mesh) rounded to 1e-9
vtu_values() {
  awk -v N="$2" '
    /<Points>/ { mode = "p"; next }
    /<\/Points>/ { mode = ""; next }
    /<DataArray.*Name="solution"/ { mode = "s"; i = 0; next }
    /<\/DataArray>/ { if (mode == "s") mode = ""; next }
    mode == "p" && NF == 3 && N == 0 { key[np++] = sprintf("%.9f %.9f %.9f", $1, $2, $3); next }
    mode == "p" && NF == 3 { key[np++] = int($1 * N + 0.5) " " int($2 * N + 0.5) " " int($3 * N + 0.5); next }
    mode == "s" && NF == 1 { print key[i++], $1 }' "$1"
}
# check_pieces NAME N: the 3 pieces of the run under mpirun -np 3 together hold the
# one-process values: every piece point is a point of the one-process file with its value
# (to 1e-12), and every one-process point is in a piece.
check_pieces() {
  name=$1 dir="$work/$1-np3"
  pieces=$(grep -c "<Piece Source=\"$name-[0-2]\\.vtu\"/>" "$dir/$name.pvtu" 2>/dev/null)
  vtu_values "$work/$name-one/$name.vtu" "$2" >"$work/one.values"
  for r in 0 1 2; do vtu_values "$dir/$name-$r.vtu" "$2"; done >"$work/pieces.values"
  set -- $(awk 'NR == FNR { v[$1 " " $2 " " $3] = $4; ++n; next }
    { k = $1 " " $2 " " $3; ++m; if (!(k in v)) ++foreign; else { d = $4 - v[k]; if (d < 0) d = -d;
      if (d > max) max = d; seen[k] = 1 } }
    END { for (k in v) if (!(k in seen)) ++missing; printf "%d %d %d %d %g\n", n, m, foreign, missing, max }' \
    "$work/one.values" "$work/pieces.values")
  [ "$pieces" = 3 ] && [ "$1" -gt 0 ] && [ "$3" -eq 0 ] && [ "$4" -eq 0 ] &&
    awk -v d="$5" 'BEGIN { exit !(d <= 1e-12) }'
  ok $? "mpirun -np 3: $name.pvtu names $pieces pieces; their $2 points (interfaces twice) cover the $1 points of the one-process .vtu ($3 foreign, $4 missing), values at most $5 apart"
}
# The box: 4 x 3 cells refined 3 times, 2 subdivisions per cell: x = i/64, y = j/48.
check_pieces mpirun-poisson-2d 192
# Kershaw's mesh: the mapped points, rounded to 1e-9
check_pieces mpirun-kershaw-2d 0

# stokes_values FILE N: "i j k pressure" per point (each cell has its own lattice: a point on a
# cell face once per cell, with that cell's pressure), the coordinates as lattice indices (x N)
stokes_values() {
  awk -v N="$2" '
    /<Points>/ { mode = "p"; np = 0; next }
    /<\/Points>/ { mode = ""; next }
    /<DataArray.*Name="pressure"/ { mode = "s"; i = 0; next }
    /<\/DataArray>/ { if (mode == "s") mode = ""; next }
    mode == "p" && NF == 3 { key[np++] = int($1 * N + 0.5) " " int($2 * N + 0.5) " " int($3 * N + 0.5); next }
    mode == "s" && NF == 1 { print key[i++], $1 }' "$1" | sort -k1,1n -k2,2n -k3,3n -k4,4g
}
# The Stokes pieces of the run under mpirun -np 3: the .pvtu names 3 pieces, and the pieces'
# points with their pressures (sorted by point, then value) are the one-process file's, the
# pressures to 1e-12 (the whole solution's means removed in every piece).
name=mpirun-stokes-2d dir="$work/mpirun-stokes-2d-np3"
pieces=$(grep -c "<Piece Source=\"$name-[0-2]\\.vtu\"/>" "$dir/$name.pvtu" 2>/dev/null)
stokes_values "$work/$name-one/$name.vtu" 96 >"$work/one.values" # x = i/48, y = j/32
for r in 0 1 2; do cat "$dir/$name-$r.vtu"; done >"$work/pieces.vtu"
stokes_values "$work/pieces.vtu" 96 >"$work/pieces.values"
set -- $(paste "$work/one.values" "$work/pieces.values" | awk '{ ++n; if ($1 != $5 || $2 != $6 || $3 != $7) ++foreign;
  d = $4 - $8; if (d < 0) d = -d; if (d > max) max = d } END { printf "%d %d %g\n", n, foreign, max }') \
  $(wc -l <"$work/pieces.values")
[ "$pieces" = 3 ] && [ "$1" -gt 0 ] && [ "$1" -eq "$4" ] && [ "$2" -eq 0 ] &&
  awk -v d="$3" 'BEGIN { exit !(d <= 1e-12) }'
ok $? "mpirun -np 3: $name.pvtu names $pieces pieces; their $4 points are the $1 of the one-process .vtu ($2 elsewhere), pressures at most $3 apart"

# Refused before any work, by rank 0 alone, every process exiting non-zero: mixed precision
# with the Jacobi V-cycle (double only, on one process too; named with the way out),
# Taylor-Hood, and Neumann faces of your own data.
mpirun_np 2 "$tessera" run "$srcdir/tests/xml/good/mpirun-poisson-3d.xml" \
  --set multigrid/precision=mixed --set solver/type=cg --set solver/preconditioner/type=mg \
  --set solver/preconditioner/smoother=jacobi >"$work/refused.out" 2>&1
status=$?
mpirun_np 2 "$tessera" run "$srcdir/examples/stokes-th-2d.xml" >"$work/stokes.out" 2>&1
stokes=$?
mpirun_np 2 "$tessera" run "$srcdir/examples/poisson-kershaw.xml" >"$work/neumann.out" 2>&1
neumann=$?
[ "$status" -ne 0 ] && [ "$(grep -c 'error:' "$work/refused.out")" -eq 1 ] &&
  grep -q '<multigrid precision="mixed"> with <preconditioner type="mg" smoother="jacobi">: the Jacobi V-cycle is double precision only' "$work/refused.out" &&
  ! grep -q 'iteration' "$work/refused.out" && [ "$stokes" -ne 0 ] &&
  grep -q '<stokes> (taylor-hood, <element family="taylor-hood">) is not distributed yet' "$work/stokes.out" &&
  [ "$neumann" -ne 0 ] && [ "$(grep -c 'error:' "$work/neumann.out")" -eq 1 ] &&
  grep -q '<poisson neumann="right top">: Neumann faces are not distributed yet' "$work/neumann.out"
ok $? "mpirun -np 2 refuses mixed precision with the Jacobi V-cycle (exit $status), Taylor-Hood (exit $stokes) and Neumann faces (exit $neumann), once: $(grep 'error:' "$work/refused.out" | head -1 | cut -c1-160)"

# Rank 0 reads the file and broadcasts it: a problem file that only rank 0 sees (the others
# start in a folder without it) is solved on 2 processes; one that rank 0 does not see is one
# error, every process exiting non-zero.
mkdir -p "$work/rank0" "$work/elsewhere"
cp "$srcdir/tests/xml/good/mpirun-poisson-3d.xml" "$work/rank0/p.xml"
rank_cd='r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}; if [ "$r" '
(cd "$work/rank0" && mpirun_np 2 sh -c "$rank_cd"'!= 0 ]; then cd "$1"; fi; exec "$2" run p.xml --json' \
  sh "$work/elsewhere" "$tessera") >"$work/rank0.json" 2>"$work/rank0.err"
status=$?
(cd "$work/rank0" && mpirun_np 2 sh -c "$rank_cd"'= 0 ]; then cd "$1"; fi; exec "$2" run p.xml' \
  sh "$work/elsewhere" "$tessera") >"$work/missing.out" 2>&1
missing=$?
[ "$status" -eq 0 ] &&
  [ "$(first "$work/rank0.json" iterations)" = "$(first "$work/mpirun-poisson-3d-one.json" iterations)" ] &&
  [ "$(first "$work/rank0.json" processes)" = 2 ] && [ "$missing" -ne 0 ] &&
  [ "$(grep -c 'error:' "$work/missing.out")" -eq 1 ] &&
  grep -q "cannot open problem file 'p.xml'" "$work/missing.out"
ok $? "rank 0 reads the problem file: seen by rank 0 only, solved on 2 processes (exit $status, $(first "$work/rank0.json" iterations) iterations); not seen by rank 0, one error (exit $missing): $(grep 'error:' "$work/missing.out" | head -1)"
[ "$status" -eq 0 ] || sed 's/^/# /' "$work/rank0.err" | head -5

# tessera bench under mpirun: the operator and FMG rows, each process's DoFs summing to the
# whole, the FMG's communication timed (each part positive, together less than the solve); the
# Stokes GMRES + V-cycle row alike; a problem it does not distribute refused
mpirun_np 2 "$tessera" bench --dim 2 --degrees 2 --dofs 2e4 --seconds 0.05 --json >"$work/bench.json" 2>&1
status=$?
mpirun_np 2 "$tessera" bench --mg --dim 2 --degrees 3 --dofs 2e4 --seconds 0.05 --json >"$work/bench-mg.json" 2>&1
mg=$?
mpirun_np 2 "$tessera" bench --problem stokes --mg --dim 2 --degrees 1 --dofs 1e4 --json \
  >"$work/bench-stokes.json" 2>&1
stokes=$?
mpirun_np 2 "$tessera" bench --problem darcy >"$work/bench-darcy.out" 2>&1
darcy=$?
set -- $(per_process "$work/bench.json") $(per_process "$work/bench-mg.json") \
  $(per_process "$work/bench-stokes.json")
[ "$status" -eq 0 ] && [ "$mg" -eq 0 ] && [ "$stokes" -eq 0 ] && [ "$darcy" -eq 2 ] &&
  [ "$(first "$work/bench-stokes.json" kernel)" = '"parallel-stokes-gmres"' ] && [ "$5" = 2 ] &&
  [ "$6" = "$(first "$work/bench-stokes.json" dofs)" ] &&
  [ "$(first "$work/bench-stokes.json" iterations)" -ge 1 ] &&
  [ "$(first "$work/bench.json" kernel)" = '"parallel-laplace"' ] && [ "$1" = 2 ] &&
  [ "$2" = "$(first "$work/bench.json" dofs)" ] && [ "$3" = 2 ] &&
  [ "$4" = "$(first "$work/bench-mg.json" dofs)" ] &&
  [ "$(first "$work/bench-mg.json" vcycles)" -ge 1 ] &&
  [ "$(first "$work/bench-mg.json" smoother)" = '"vertex-patch"' ] &&
  awk -v r="$(first "$work/bench.json" dofs_per_second)" 'BEGIN { exit !(r > 0) }' &&
  awk -v t="$(first "$work/bench-mg.json" timed_solve_seconds)" \
      -v h="$(first "$work/bench-mg.json" halo_seconds)" \
      -v r="$(first "$work/bench-mg.json" reduction_seconds)" \
      -v c="$(first "$work/bench-mg.json" coarse_seconds)" \
      'BEGIN { exit !(h > 0 && r > 0 && c > 0 && h + r + c < t) }' &&
  grep -q -- '--problem is not distributed yet' "$work/bench-darcy.out"
ok $? "mpirun -np 2 tessera bench: the operator on $2 DoFs ($(first "$work/bench.json" dofs_per_second) DoF/s), FMG on $4 DoFs in $(first "$work/bench-mg.json" vcycles) V-cycles (the default smoother, vertex patches), per process, its halo, reductions and coarse solves ($(first "$work/bench-mg.json" halo_seconds), $(first "$work/bench-mg.json" reduction_seconds), $(first "$work/bench-mg.json" coarse_seconds) s) within the timed solve ($(first "$work/bench-mg.json" timed_solve_seconds) s); --problem stokes --mg: $6 DoFs in $(first "$work/bench-stokes.json" iterations) GMRES steps (exit $stokes); --problem darcy refused (exit $darcy)"
