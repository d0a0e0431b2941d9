#!/bin/sh
# t-parallel.sh -- tests/t-parallel (the MPI domain decomposition against the one-process run)
# under mpirun with 1, 2, 3 (an uneven split) and 4 processes (2x2: DoFs shared by 4 blocks),
# one TAP line per run; a TAP skip when Tessera was built without MPI or no launcher was
# found.  One OpenMP thread per process: the machine may have fewer cores than processes
# (--oversubscribe).
builddir=$(cd "${TESSERA_BUILDDIR:-.}" && pwd)
program="$builddir/tests/t-parallel"
if [ ! -x "$program" ] || [ -z "$TESSERA_MPIEXEC" ]; then
  echo "1..0 # SKIP built without MPI (configure --with-mpi; apt-get install mpi-default-dev)"
  exit 0
fi
root=
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root
OMP_NUM_THREADS=1
export OMP_NUM_THREADS
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
echo "1..4"
n=0
for np in 1 2 3 4; do
  n=$((n + 1))
  "$TESSERA_MPIEXEC" $root --oversubscribe -np $np "$program" >"$work/out" 2>&1
  status=$?
  passed=$(grep -c '^ok ' "$work/out")
  failed=$(grep -c '^not ok ' "$work/out")
  planned=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$work/out")
  if [ "$status" -eq 0 ] && [ "$failed" -eq 0 ] && [ -n "$planned" ] && [ "$passed" -eq "$planned" ]; then
    echo "ok $n - mpirun -np $np t-parallel: $passed of $planned"
  else
    echo "not ok $n - mpirun -np $np t-parallel: exit $status, $passed passed, $failed failed of ${planned:-?}"
    grep -v '^ok ' "$work/out" | sed 's/^/# /' | head -40
  fi
done
