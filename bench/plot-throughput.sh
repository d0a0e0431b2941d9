#!/bin/sh
# plot-throughput.sh OUT.png FILE.jsonl... -- throughput against polynomial degree from the
# JSON lines of `tessera bench --json` (Laplacian) and `tessera bench --mg --json` (one
# smoothing step, one V-cycle): GDoF/s = 1 / (ns/DoF), one curve per kernel, backend,
# dimension and precision found in the files.  Needs gnuplot (Debian: gnuplot-nox).
set -e
[ $# -ge 2 ] || { echo "usage: $0 OUT.png FILE.jsonl..." >&2; exit 2; }
out=$1; shift
command -v gnuplot >/dev/null || { echo "$0: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/data"
# one data file per curve: "degree GDoF/s"; the curve's title is the file name
cat "$@" | awk -v dir="$tmp/data" '
  function field(name,   m) {
    if (match($0, "\"" name "\": *\"?[^,}\"]*")) {
      m = substr($0, RSTART, RLENGTH); sub(/^[^:]*: *"?/, "", m); return m
    }
    return ""
  }
  function put(title, value) {
    if (value == "" || value + 0 <= 0) return
    f = dir "/" title; print field("degree"), value > f
  }
  /^\{/ {
    tag = field("backend") " " field("dim") "D"
    if (field("kernel") == "laplace") {
      put("Laplacian, " tag " " field("precision"), field("gdofs_per_second"))
    } else if (field("kernel") == "multigrid") {
      p = field("precision") " " field("smoother")
      s = field("smooth_ns_per_dof"); v = field("vcycle_ns_per_dof")
      if (s + 0 > 0) put("smoothing step, " tag " " p, 1 / s)
      if (v + 0 > 0) put("V-cycle, " tag " " p, 1 / v)
    }
  }'
ls "$tmp/data" | grep -q . || { echo "$0: no benchmark lines in $*" >&2; exit 1; }
{
  echo "set terminal pngcairo size 1000,650 noenhanced font ',11'"
  echo "set output '$out'"
  echo "set title 'Tessera throughput against polynomial degree'"
  echo "set xlabel 'polynomial degree k'"
  echo "set ylabel 'GDoF/s (finest-level DoFs per second)'"
  echo "set logscale y"
  echo "set grid"
  echo "set key below"
  echo "set xtics 1"
  printf "plot "
  sep=""
  for f in "$tmp"/data/*; do
    printf "%s'%s' using 1:2 with linespoints lw 2 title '%s'" "$sep" "$f" "$(basename "$f")"
    sep=", "
  done
  echo
} > "$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "$out"
