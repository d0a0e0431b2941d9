#!/bin/sh
# t-example.sh -- the example program ex-poisson runs and shows the optimal rates
# (Q2: L2 rate 3, H1 rate 2, within 0.15 on the finest pair of levels).
builddir=${TESSERA_BUILDDIR:-.}
echo "1..2"
out=$("$builddir/examples/ex-poisson" 2 4)
status=$?
echo "$out" | sed 's/^/# /'
[ $status -eq 0 ] && echo "ok 1 - ex-poisson exits 0" || echo "not ok 1 - ex-poisson exits $status"
rates=$(echo "$out" | tail -1 | sed -n 's/.*rates \([0-9.]*\) \([0-9.]*\)$/\1 \2/p')
if echo "$rates" | awk '{ exit !($1 > 2.85 && $1 < 3.15 && $2 > 1.85 && $2 < 2.15) }'; then
  echo "ok 2 - ex-poisson rates $rates (expect 3 and 2)"
else
  echo "not ok 2 - ex-poisson rates '$rates' (expect 3 and 2)"
fi
