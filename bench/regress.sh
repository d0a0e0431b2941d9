#!/bin/sh
# bench/regress.sh -- the performance regression guard: the Poisson, Stokes (RT) and Taylor-Hood
# benchmarks of one backend against the committed baseline of this device model, in one call
# (a GPU run).
#
#   bench/regress.sh [--backend NAME] [--update] [--noise PCT] [--dofs N] [--only NAME]
#                    [--baselines DIR]
#
# Every figure is the best of 3 timing windows (--repeat 3).  Without --update each benchmark
# runs with `tessera bench --baseline bench/baselines/MODEL.jsonl`, which exits 4 when a time
# per DoF is slower than the baseline by more than the noise margin (default 10%) or an
# iteration count rose; this script then exits 4 too, after all benchmarks ran.  --update
# (re)writes the baseline file from this run instead: do it only on the committed tree whose
# numbers are the reference, and commit the file with a bench/results/ entry.  With --only,
# --update appends that benchmark's rows to the baseline instead (the comparison takes the
# last row of an identity, so they replace the older ones).
# MODEL is the device model as `tessera bench --json` names it ("device"), in lower case with
# every other character a '-': bench/baselines/nvidia-h100-80gb-hbm3.jsonl for an H100
# (--baselines DIR: another folder).  --only NAME runs one benchmark of the list below.
# TESSERA (default ./src/tessera) is the program measured.
set -u
tessera=${TESSERA:-./src/tessera}
backend=cuda update=0 noise=10 dofs=3e7 only="" baselines=""
while [ $# -gt 0 ]; do
  case $1 in
    --backend) backend=$2; shift 2 ;;
    --update) update=1; shift ;;
    --noise) noise=$2; shift 2 ;;
    --dofs) dofs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --baselines) baselines=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "regress.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
probe=$("$tessera" bench --backend "$backend" --degrees 1 --dofs 1000 --seconds 0.01 --json \
  --no-ceilings) || { echo "regress.sh: cannot run $tessera bench on $backend" >&2; exit 1; }
model=$(printf '%s\n' "$probe" | sed -n 's/.*"device": "\([^"]*\)".*/\1/p' | head -1)
slug=$(printf '%s' "$model" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]/-/g; s/--*/-/g; s/^-//; s/-$//')
baseline="${baselines:-$here/baselines}/$slug.jsonl"
echo "# regress.sh: backend $backend, device '$model', baseline $baseline, noise $noise%"
if [ $update = 0 ] && [ ! -f "$baseline" ]; then
  echo "regress.sh: no baseline $baseline for this device: write one with --update" >&2
  exit 1
fi

# name, then the bench options: each benchmark of the guard
benchmarks() {
  cat <<LIST
poisson-operator-double --dim 3 --degrees 1-8 --dofs $dofs --precision double
poisson-operator-single --dim 3 --degrees 1-8 --dofs $dofs --precision single
poisson-mg-double --mg --dim 3 --degrees 1-8 --dofs $dofs --mg-precision double
poisson-mg-mixed --mg --dim 3 --degrees 1-8 --dofs $dofs --mg-precision mixed
stokes-operator-double --problem stokes --dim 3 --degrees 1-4 --dofs $dofs --precision double
stokes-mg-double --problem stokes --mg --dim 3 --degrees 1-3 --dofs $dofs --mg-precision double
stokes-mg-mixed --problem stokes --mg --dim 3 --degrees 1-3 --dofs $dofs --mg-precision mixed
taylor-hood-operator-double --problem taylor-hood --dim 3 --degrees 2-4 --dofs $dofs --precision double
taylor-hood-mg-double --problem taylor-hood --mg --dim 3 --degrees 2-3 --dofs 7e6 --mg-precision double
taylor-hood-mg-mixed --problem taylor-hood --mg --dim 2 --degrees 2 --dofs 9.4e6 --mg-precision mixed
taylor-hood-vanka-mixed --problem taylor-hood --mg --dim 2 --degrees 2 --dofs 9.4e6 --mg-precision mixed --smoother vanka
LIST
}

status=0
new=$(mktemp) && codes=$(mktemp) || exit 1
trap 'rm -f "$new" "$codes"' EXIT
benchmarks | while read -r name options; do
  [ -z "$only" ] || [ "$only" = "$name" ] || continue
  echo "# $name: tessera bench --backend $backend $options --seconds 0.2 --repeat 3"
  if [ $update = 1 ]; then
    # shellcheck disable=SC2086
    "$tessera" bench --backend "$backend" $options --seconds 0.2 --repeat 3 --json >>"$new"
    echo "$name $?" >>"$codes"
  else
    # shellcheck disable=SC2086
    "$tessera" bench --backend "$backend" $options --seconds 0.2 --repeat 3 \
      --baseline "$baseline" --noise "$noise"
    echo "$name $?" >>"$codes"
  fi
done
if [ ! -s "$codes" ]; then
  echo "regress.sh: no benchmark ran (--only '$only' names none of the list)" >&2
  exit 1
fi
if [ $update = 1 ]; then
  if grep -qv ' 0$' "$codes"; then
    echo "regress.sh: not written, these benchmarks failed: $(grep -v ' 0$' "$codes" | tr '\n' ' ')" >&2
    exit 1
  fi
  mkdir -p "$(dirname "$baseline")" || exit 1
  if [ -n "$only" ] && [ -f "$baseline" ]; then
    cat "$new" >>"$baseline" && echo "# appended $(wc -l <"$new") rows to $baseline"
  else
    cp "$new" "$baseline" && echo "# wrote $baseline ($(wc -l <"$baseline") rows)"
  fi
  exit 0
fi
# the verdict: 4 if any benchmark was slower, 1 if any failed to run or compare
while read -r name code; do
  case $code in
    0) ;;
    4) echo "# regress.sh: $name SLOWER than the baseline"; [ $status = 1 ] || status=4 ;;
    *) echo "# regress.sh: $name FAILED (exit $code)"; status=1 ;;
  esac
done <"$codes"
[ $status = 0 ] && echo "# regress.sh: no figure slower than the baseline beyond $noise%"
exit $status
