#!/bin/sh
# t-example.sh -- the example programs run and show the optimal rates on the finest pair of
# levels, within 0.15: ex-poisson (Q2: L2 rate 3, H1 rate 2), ex-stokes (2D RT2 x DGQ2:
# velocity and pressure L2 rates 3) and ex-poisson-own (Q2 on Kershaw's mesh, epsilon 0.3:
# L2 rate 3, H1 rate 2).
builddir=${TESSERA_BUILDDIR:-.}
echo "1..6"
n=0

# run_example NAME LOW1 HIGH1 LOW2 HIGH2 ARGS...: exit status and the two rates of the last line
run_example() {
  name=$1 lo1=$2 hi1=$3 lo2=$4 hi2=$5
  shift 5
  out=$("$builddir/examples/$name" "$@")
  status=$?
  echo "$out" | sed 's/^/# /'
  n=$((n + 1))
  [ $status -eq 0 ] && echo "ok $n - $name exits 0" || echo "not ok $n - $name exits $status"
  rates=$(echo "$out" | tail -1 | sed -n 's/.*rates \([0-9.]*\) \([0-9.]*\)$/\1 \2/p')
  n=$((n + 1))
  if echo "$rates" | awk -v a="$lo1" -v b="$hi1" -v c="$lo2" -v d="$hi2" \
      '{ exit !($1 > a && $1 < b && $2 > c && $2 < d) }'; then
    echo "ok $n - $name rates $rates (expect $lo1..$hi1 and $lo2..$hi2)"
  else
    echo "not ok $n - $name rates '$rates' (expect $lo1..$hi1 and $lo2..$hi2)"
  fi
}

run_example ex-poisson 2.85 3.15 1.85 2.15 2 4
run_example ex-stokes 2.85 3.15 2.85 3.15 2 2 4
run_example ex-poisson-own 2.85 3.15 1.85 2.15 2 4
