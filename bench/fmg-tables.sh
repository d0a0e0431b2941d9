#!/bin/sh
# fmg-tables.sh -- the iteration counts of full multigrid with the vertex-patch smoother for
# f = 1 on the unit square and cube, relative accuracy 1e-9 (paper 002, Tables 1 and 2):
# one line "dim k L dofs iterations seconds" per run, levels from 2 up to the largest with
# at most MAX_DOFS DoFs (default 2e7).  Usage: bench/fmg-tables.sh [tessera] [MAX_DOFS]
tessera=${1:-src/tessera}
max=${2:-2e7}
here=$(cd "$(dirname "$0")/.." && pwd)
ex3="$here/examples/poisson-3d-mg.xml"
ex2=$(mktemp) || exit 1
trap 'rm -f "$ex2"' EXIT
sed 's/dim="3"/dim="2"/; s/"0 0 0"/"0 0"/; s/"1 1 1"/"1 1"/g' "$ex3" >"$ex2"
echo "# dim k L dofs fmg_iterations solve_seconds"
for dim in 2 3; do
  if [ $dim = 2 ]; then kmax=10; ex=$ex2; else kmax=7; ex=$ex3; fi
  k=1
  while [ $k -le $kmax ]; do
    L=2
    while :; do
      dofs=$(awk -v L=$L -v k=$k -v d=$dim 'BEGIN { n = 2^L * k + 1; print n^d }')
      awk -v n=$dofs -v m=$max 'BEGIN { exit !(n <= m) }' || break
      out=$("$tessera" run "$ex" --set element/degree=$k --set mesh/levels=$L --json 2>&1)
      its=$(echo "$out" | sed -n 's/.*"iterations": \([0-9]*\).*/\1/p' | head -1)
      sec=$(echo "$out" | sed -n 's/.*"solve_seconds": \([0-9.]*\).*/\1/p' | head -1)
      echo "$dim $k $L $dofs ${its:-ERR} ${sec:-}"
      L=$((L + 1))
    done
    k=$((k + 1))
  done
done
