#!/bin/bash
# dmma-run.sh -- on the device: (1) bench-dmma (DMMA vs FMA 1D contraction), (2) Nsight Compute
# on the finest-level Laplacian and transfer kernels at k = 4, 7 (3D double, ~1e8 DoF).
# Staged in a git-ignored folder next to: bench-dmma (make bench/bench-dmma) and pkg.tgz
# (tessera, bench-transfer, libtessera.so*, the backend modules, the host libraries they
# need and env.sh setting LD_LIBRARY_PATH, TESSERA_BACKEND_PATH and PATH).
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader | tee "$O/gpu.txt"
export OMP_NUM_THREADS=16
(command -v cuobjdump >/dev/null && cuobjdump -sass -arch sm_90 ./bench-dmma > "$O/bench-dmma.sass" 2>&1 &&
  awk '/Function :/{f=$3} /DMMA|DFMA|LDS|STS/{for(i=1;i<=NF;i++) if($i ~ /^(DMMA|DFMA|LDS|STS)/){split($i,a,".");n[f" "a[1]]++}} END{for(k in n) print k, n[k]}' "$O/bench-dmma.sass" | sort > "$O/sass-counts.txt"; cat "$O/sass-counts.txt") || echo "no cuobjdump"
echo "## bench-dmma"
timeout 90 ./bench-dmma --reps 11 --sweeps 33 2>&1 | tee "$O/bench-dmma.txt"
echo "## rc ${PIPESTATUS[0]}"
[ -f pkg.tgz ] || exit 0
rm -rf x && mkdir -p x && tar xzf pkg.tgz -C x && cd x && . ./env.sh
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "## ncu: $NCU"
S="--clock-control none --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats --section WarpStateStats --metrics dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_short_scoreboard"
G='Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|L1/TEX Cache Throughput|Achieved Occupancy|Registers Per|Theoretical Occ|dram__bytes|wavefronts|fp64|Block Limit|ts_gpu_|stalled|Warp Cycles Per Issued'
for k in 4 7; do
  echo "## ncu laplace k=$k"
  timeout 35 $NCU $S -k regex:laplace3 -s 2 -c 1 ./tessera bench --backend cuda --dim 3 --degrees $k --dofs 1e8 --seconds 0.01 --no-ceilings > "$O/ncu-laplace-k$k.txt" 2>&1
  echo "rc $?"; grep -E "$G" "$O/ncu-laplace-k$k.txt" | head -40
done
for k in 4 7; do
  echo "## ncu transfer k=$k"
  timeout 45 $NCU $S --filter-mode per-launch-config -k "regex:prolongate|restrict" -s 2 -c 1 ./bench-transfer --backend cuda --dim 3 --degrees $k --dofs 1e8 --seconds 0.01 > "$O/ncu-transfer-k$k.txt" 2>&1
  rc=$?; echo "rc $rc"
  if [ $rc -ne 0 ] && grep -qi "filter-mode" "$O/ncu-transfer-k$k.txt"; then
    for d in prolongate restrict; do
      timeout 35 $NCU $S -k regex:$d -s 2 -c 1 ./bench-transfer --backend cuda --dim 3 --degrees $k --dofs 1e8 --seconds 0.01 > "$O/ncu-$d-k$k.txt" 2>&1
      echo "rc $?"; grep -E "$G" "$O/ncu-$d-k$k.txt" | head -20
    done
  else grep -E "$G" "$O/ncu-transfer-k$k.txt" | head -40; fi
done
