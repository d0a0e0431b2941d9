#!/bin/sh
# t-gpu-check.sh -- every GPU backend that is built (cuda, hip) checked against omp with
# `tessera check` (Laplacian, smoothers, transfers and V-cycles on random vectors in double
# and single, then the solve with the problem's solver) on 2D and 3D problems of several
# degrees, and the backend-generic test programs (operator vs assembled matrix, Krylov,
# Stokes operator, transfer, smoother and solver,
# convergence, transfers, vertex-patch smoother, V-cycle, FMG, the error at round-off
# against omp's) run on it
# (TESSERA_TEST_BACKEND).  Prints
# "1..0 # SKIP reason" when no GPU backend is built or none can start (no device).
builddir=${TESSERA_BUILDDIR:-.}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tessera="$builddir/src/tessera"
# 2D cases: "degree levels", on examples/poisson-2d.xml (3x2 coarse cells; GMRES + V-cycle)
cases2="1 5
2 4
4 3
7 2"
# 3D cases on examples/poisson-3d.xml (1 coarse cell)
cases3="1 4
2 3
3 3
5 2
8 2"
# Stokes problems (RT_k x DGQ_k): "file degree levels" (tessera check: operator, both patch
# smoothers where the direct one applies, transfers, V-cycles, and the solve); Taylor-Hood
# Q2 x Q1 (its operator with the sparse coupling blocks; with the coupled multigrid its
# relaxations, transfers and V-cycles; with the block-diagonal preconditioner the velocity
# V-cycles; the solve)
cases_stokes="stokes-rt-2d.xml 2 3
stokes-rt-2d.xml 4 2
stokes-rt-3d.xml 1 2
stokes-rt-3d.xml 2 2
stokes-th-2d.xml 2 4
stokes-th-2d-block.xml 2 4
stokes-th-2d-block-triangular.xml 2 4
stokes-th-3d.xml 2 2
stokes-th-3d.xml 2 3"
generic="t-laplace-assembled t-krylov t-krylov-methods t-block t-convergence t-rhs-tensor t-mg-transfer t-mg-patch t-mg-vcycle t-mg-fmg t-mg-pcoarse t-mg-coarse"
# the Poisson error down to round-off, compared with omp's (doc/accuracy.md)
generic="$generic t-accuracy"
# Stokes (RT_k x DGQ_k): operator vs the dense reference, transfer, patch smoother, GMRES + V-cycle
generic="$generic t-stokes-operator t-stokes-transfer t-stokes-patch t-stokes-mg"
# Taylor-Hood: the operator's identities, right side, errors and convergence rates; the
# coupled multigrid's patch matrices and relaxations
generic="$generic t-taylor-hood t-taylor-hood-mg"
# the block-triangular pieces of papers 001/004: the Q_k mass (Kronecker), weighted Jacobi,
# Richardson, the Jacobi V-cycles on a Laplacian hierarchy and on the mass
generic="$generic t-pc-jacobi-mg"
# sparse matrices: the assembled Laplacian (cuSPARSE on cuda) vs matrix-free, CG + BoomerAMG,
# the H(div) divergence, masses, approximate Schur complement and MINRES of paper 003, our
# smoothed-aggregation AMG (its V-cycle on cuSPARSE) against BoomerAMG
generic="$generic t-sparse t-boomeramg t-amg t-histopolation t-hdiv-schur t-hdiv"
# preconditioner objects: each kind against what it wraps; MINRES + block-diagonal and FGMRES +
# block-triangular on Stokes
generic="$generic t-pc t-pc-stokes t-pc-multigrid"
# sums, products and transposes of operators (lib/op/combine.c), vector layouts
generic="$generic t-operator-algebra t-operator-assemble t-vec-layout"
# your own problem: the operator on mapped cells, its multigrid, problem-file expressions,
# Neumann faces, convergence (curved shell, coefficients per point), coefficient files, the
# additive vertex-patch preconditioner
generic="$generic t-mapped t-mapped-mg t-expression t-mapped-neumann t-mapped-convergence t-cell-values"
generic="$generic t-patch-additive"
# the DG mass and its inverse of paper 003 (explicit, CG-Legendre, CG-Lobatto; Cholesky refused)
# and the matrix-free H(div) mass (box against the assembled matrix, mapped cells)
generic="$generic t-l2-mass-inverse t-hdiv-mass"
# the Darcy and grad-div solvers of paper 003 (ts_hdiv_system: cuSPARSE blocks, BoomerAMG on S~)
generic="$generic t-darcy"
# and on Kershaw's deformed mesh (the Piola-mapped data, diagonals and S~; the long table)
generic="$generic t-darcy-mapped"

if [ -z "$(echo $TESSERA_GPU_BACKENDS)" ]; then
  echo "1..0 # SKIP no GPU backend built (configure --with-cuda or --with-hip)"
  exit 0
fi
run=""
why=""
for b in $TESSERA_GPU_BACKENDS; do
  if out=$("$tessera" check "$srcdir/examples/poisson-2d.xml" --backend "$b" --set mesh/levels=1 --set element/degree=1 2>&1); then
    run="$run $b"
  else
    why="$why; $(echo "$out" | grep -m1 'error' | sed 's/^tessera: error: //')"
  fi
done
if [ -z "$run" ]; then
  echo "1..0 # SKIP ${why#; }"
  exit 0
fi
n2=$(echo "$cases2" | wc -l)
n3=$(echo "$cases3" | wc -l)
ns=$(echo "$cases_stokes" | wc -l)
nb=$(echo $run | wc -w)
ng=$(echo $generic | wc -w)
# the fixed checks below: the plain kernel, two GMRES + V-cycle solves, three degree-level
# cases, seven of your own problem on Kershaw's mesh, the Darcy system on Kershaw's mesh, CG +
# BoomerAMG through the host
nfixed=15
echo "1..$(( nb * (n2 + n3 + ns + ng + nfixed) ))"
[ -n "$why" ] && echo "# not run:${why#;}"
i=0
check() { # backend file degree levels [more --set options]
  i=$((i + 1))
  cb=$1 cf=$2 ck=$3 cl=$4
  shift 4
  out=$("$tessera" check "$cf" --backend "$cb" --set element/degree=$ck --set mesh/levels=$cl "$@" 2>&1)
  st=$?
  echo "$out" | sed 's/^/# /'
  what="$cb vs omp: $(basename "$cf") degree $ck level $cl${*:+ $*}${TESSERA_GPU_LAPLACE:+ (TESSERA_GPU_LAPLACE=$TESSERA_GPU_LAPLACE)}${TESSERA_GPU_MAPPED:+ (TESSERA_GPU_MAPPED=$TESSERA_GPU_MAPPED)}"
  if [ $st -eq 0 ] && ! echo "$out" | grep -q '^FAIL'; then echo "ok $i - $what"
  else echo "not ok $i - $what (exit $st)"; fi
}
for b in $run; do
  while read k l; do check "$b" "$srcdir/examples/poisson-2d.xml" $k $l; done <<END
$cases2
END
  while read k l; do check "$b" "$srcdir/examples/poisson-3d.xml" $k $l; done <<END
$cases3
END
  # the plain 3D Laplacian kernel (no even-odd decomposition), selected by the environment
  TESSERA_GPU_LAPLACE=plain; export TESSERA_GPU_LAPLACE
  check "$b" "$srcdir/examples/poisson-3d.xml" 4 2
  unset TESSERA_GPU_LAPLACE
  # 3D GMRES + V-cycle (vertex-patch smoother) solves
  check "$b" "$srcdir/examples/poisson-3d-gmres-mg.xml" 2 3
  check "$b" "$srcdir/examples/poisson-3d-gmres-mg.xml" 4 3
  # degree levels below the coarse mesh level (p-multigrid): Q7 -> Q3 -> Q1 (the plain
  # transfer kernel) and Q4 -> Q2 -> Q1 (the tiled one), V-cycles and solves
  check "$b" "$srcdir/examples/poisson-3d-gmres-mg.xml" 7 1 --set "mesh/cells=3 3 4" \
    --set multigrid/coarse-degree=1
  check "$b" "$srcdir/examples/poisson-3d-gmres-mg.xml" 4 1 --set "mesh/cells=3 3 4" \
    --set multigrid/coarse-degree=1
  check "$b" "$srcdir/examples/poisson-2d.xml" 7 2 --set multigrid/coarse-degree=1
  while read f k l; do check "$b" "$srcdir/examples/$f" $k $l; done <<END
$cases_stokes
END
  # your own problem: the operator on mapped cells (Kershaw's mesh), Chebyshev, transfers,
  # its V-cycles (double and mixed) and the CG + V-cycle solve
  check "$b" "$srcdir/examples/poisson-kershaw.xml" 2 3 --set solver/preconditioner=mg
  check "$b" "$srcdir/examples/poisson-kershaw.xml" 5 2 --set solver/preconditioner=mg
  # the same with the stored factors forced (the backend recomputes the geometry of
  # multilinear cells unless TESSERA_GPU_MAPPED=factors)
  TESSERA_GPU_MAPPED=factors; export TESSERA_GPU_MAPPED
  check "$b" "$srcdir/examples/poisson-kershaw.xml" 3 3 --set solver/preconditioner=mg
  unset TESSERA_GPU_MAPPED
  # a pure Neumann problem (its singular levels, the bordered coarse LU), and 3D Neumann
  # faces on the sine map
  check "$b" "$srcdir/examples/poisson-neumann.xml" 3 2
  check "$b" "$srcdir/tests/xml/good/own-neumann-3d.xml" 4 1
  # the additive vertex-patch smoother of mapped levels (Chebyshev on P A), 2D and 3D
  check "$b" "$srcdir/examples/poisson-kershaw.xml" 4 2 --set solver/preconditioner=mg \
    --set multigrid/smoother=vertex-patch
  check "$b" "$srcdir/tests/xml/good/own-neumann-3d.xml" 3 2 --set multigrid/smoother=vertex-patch
  # the Darcy system on Kershaw's mesh (matrix-free M_beta and W^-1 of mapped cells, our AMG)
  check "$b" "$srcdir/examples/darcy-kershaw.xml" 2 2
  # CG + BoomerAMG on the Q1 Laplacian (hypre builds): the solve converges and the log says
  # that BoomerAMG runs on the host
  i=$((i + 1))
  if "$tessera" info | grep -q '^features: hypre [0-9]'; then
    amg=$(mktemp) || exit 1
    cat > "$amg" <<XML
<?xml version="1.0"?>
<tessera-problem name="gpu-boomeramg">
  <mesh dim="2" lower="0 0" upper="1 1" cells="2 2" levels="4"/>
  <element family="Q" degree="1"/>
  <poisson solution="sine"/>
  <solver type="cg" rtol="1e-10" max-iterations="100"><preconditioner type="boomeramg"/></solver>
</tessera-problem>
XML
    out=$("$tessera" run "$amg" --backend "$b" 2>&1)
    st=$?
    rm -f "$amg"
    echo "$out" | sed 's/^/# /'
    if [ $st -eq 0 ] && echo "$out" | grep -q "BoomerAMG (hypre .*) runs on the host"; then
      echo "ok $i - $b: CG + BoomerAMG solves, the log says BoomerAMG runs on the host"
    else echo "not ok $i - $b: CG + BoomerAMG (exit $st)"; fi
  else
    echo "ok $i - # SKIP built without hypre"
  fi
  for t in $generic; do
    i=$((i + 1))
    # with their long cases (TESSERA_TEST_LONG=1): quick on a GPU
    out=$(TESSERA_TEST_BACKEND=$b TESSERA_TEST_LONG=1 "$builddir/tests/$t" 2>&1)
    st=$?
    echo "$out" | sed 's/^/# /'
    if [ $st -eq 0 ] && ! echo "$out" | grep -q '^not ok' && echo "$out" | grep -q '^ok'; then
      echo "ok $i - tests/$t on backend $b"
    else
      echo "not ok $i - tests/$t on backend $b (exit $st)"
    fi
  done
done
