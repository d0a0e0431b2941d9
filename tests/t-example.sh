#!/bin/sh
# t-example.sh -- the example programs run and show the optimal rates on the finest pair of
# levels, within 0.15: ex-poisson (Q2: L2 rate 3, H1 rate 2), ex-stokes (2D RT2 x DGQ2:
# velocity and pressure L2 rates 3), ex-poisson-own (Q2 on Kershaw's mesh, epsilon 0.3:
# L2 rate 3, H1 rate 2), ex-stokes-th (2D Taylor-Hood Q2 x Q1: u L2 rate 3, u H1 and
# p L2 rates 2) and ex-darcy (2D RT2 x DGQ2 Darcy: velocity and pressure L2 rates 3).
builddir=${TESSERA_BUILDDIR:-.}
echo "1..11"
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
  rates=$(echo "$out" | tail -1 | sed -n 's/.*rates \([0-9.]*\) \([0-9.]*\)\( [0-9.]*\)\{0,1\}$/\1 \2/p')
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
run_example ex-darcy 2.85 3.15 2.85 3.15 2 2 4
# Taylor-Hood: its last line has three rates (u L2, u H1, p L2); the first two are checked
# above, the pressure's here
run_example ex-stokes-th 2.85 3.15 1.85 2.2 2 4
p_rate=$(echo "$out" | tail -1 | sed -n 's/.*rates [0-9.]* [0-9.]* \([0-9.]*\)$/\1/p')
n=$((n + 1))
if echo "$p_rate" | awk '{ exit !($1 > 1.85 && $1 < 2.15) }'; then
  echo "ok $n - ex-stokes-th pressure rate $p_rate (expect 1.85..2.15)"
else
  echo "not ok $n - ex-stokes-th pressure rate '$p_rate' (expect 1.85..2.15)"
fi
