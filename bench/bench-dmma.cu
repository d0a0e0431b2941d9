/* bench-dmma.cu -- do the FP64 tensor cores (DMMA, mma.sync.m8n8k4.f64, sm_80+) pay for the
 * 1D contractions of the 3D sum factorization?  (issue 4)
 *
 * For a batch of cells it applies out[c](i,j,l) = sum_m S(i,m) in[c](m,j,l) (k = 4: 5x5,
 * 125 values per cell; k = 7: 8x8, 512 values) in double, from shared memory:
 *   fma:  the production kernels' way: one thread per column (j,l) of a cell, the column
 *         loaded from shared memory into registers, (k+1)^2 multiply-adds with S uniform,
 *         k+1 stores;
 *   dmma: the k+1 dimension padded to 8; S padded to 8x8 is the A operand (two k = 4
 *         steps, in registers for the whole kernel), the columns of the block's cells are
 *         the N dimension in groups of 8 (B loaded from shared memory, D stored back).
 * A thread block holds CPB cells in shared memory laid out [m][cell][column] (row stride
 * padded to 8 mod 16 doubles: the B fragment loads and the D stores are conflict-free and
 * the fma loads and stores are consecutive words).  It loads them once from device memory,
 * applies the contraction `sweeps` times (ping-pong between two shared buffers), and
 * stores the result.  The time of one sweep from shared memory is the slope
 * (t(sweeps = R) - t(1)) / (R - 1); the load/store of device memory drops out.
 * Useful flops: 2 (k+1)^4 per cell per sweep.  Also measured: the FP64 FMA peak
 * (independent FMA chains) and the DMMA peak (independent mma.sync in a loop).
 * Checks: fma and dmma against a host reference on the first cells, dmma against fma on
 * all cells (max |a-b| / max |a| <= 1e-14), outputs poisoned with NaN before each run.
 *
 * usage: bench-dmma [--reps 11] [--sweeps 33] [--cells4 2097152] [--cells7 524288]
 * Build: make bench/bench-dmma (with --with-cuda), or
 *   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 \
 *        -gencode=arch=compute_80,code=sm_80 -o bench-dmma bench/bench-dmma.cu */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#define CK(call)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      fprintf(stderr, "bench-dmma: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
              cudaGetErrorString(e_));                                               \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)
#define CKL(what)                                                                    \
  do {                                                                               \
    CK(cudaGetLastError());                                                          \
    (void)(what);                                                                    \
  } while (0)

/* Block shape per degree: N = k+1, CPB cells per block, row stride of the [m][cell][col]
 * layout (>= CPB N^2, = 8 mod 16), threads of the fma kernel (one per column) and warps of
 * the dmma kernel (the CPB N^2 / 8 column groups split evenly). */
template <int N>
struct shape;
template <>
struct shape<5> {
  static constexpr int CPB = 8, COLS = CPB * 25, STRIDE = 200, FMA_THREADS = 200,
                       DMMA_WARPS = 5;
};
template <>
struct shape<8> {
  static constexpr int CPB = 4, COLS = CPB * 64, STRIDE = 264, FMA_THREADS = 256,
                       DMMA_WARPS = 8;
};

template <int N>
struct smat {
  double s[N * N];
};

/* device memory <-> shared memory; global per cell: e = m N^2 + col */
template <int N>
__device__ __forceinline__ void load_cells(const double *__restrict__ in, double *buf,
                                           int64_t cell0, int64_t ncells) {
  using S = shape<N>;
  constexpr int PER = N * N * N;
  const int64_t g0 = cell0 * PER;
  const int total = S::CPB * PER;
  for (int e = threadIdx.x; e < total; e += blockDim.x) {
    const int c = e / PER, r = e % PER, m = r / (N * N), col = r % (N * N);
    buf[m * S::STRIDE + c * N * N + col] = cell0 + c < ncells ? in[g0 + e] : 0.0;
  }
}
template <int N>
__device__ __forceinline__ void store_cells(const double *buf, double *__restrict__ out,
                                            int64_t cell0, int64_t ncells) {
  using S = shape<N>;
  constexpr int PER = N * N * N;
  const int64_t g0 = cell0 * PER;
  const int total = S::CPB * PER;
  for (int e = threadIdx.x; e < total; e += blockDim.x) {
    const int c = e / PER, r = e % PER, m = r / (N * N), col = r % (N * N);
    if (cell0 + c < ncells) out[g0 + e] = buf[m * S::STRIDE + c * N * N + col];
  }
}

template <int N>
__global__ void __launch_bounds__(shape<N>::FMA_THREADS)
    fma_kernel(const smat<N> S_, const double *__restrict__ in, double *__restrict__ out,
               int64_t ncells, int sweeps) {
  using S = shape<N>;
  __shared__ __align__(16) double buf[2][N * S::STRIDE];
  const int64_t cell0 = (int64_t)blockIdx.x * S::CPB;
  load_cells<N>(in, buf[0], cell0, ncells);
  __syncthreads();
  const int t = threadIdx.x; /* column of the block: cell t / N^2, (j,l) = t % N^2 */
  int cur = 0;
  for (int s = 0; s < sweeps; ++s) {
    const double *src = buf[cur];
    double *dst = buf[cur ^ 1];
    if (t < S::COLS) {
      double v[N];
#pragma unroll
      for (int m = 0; m < N; ++m) v[m] = src[m * S::STRIDE + t];
#pragma unroll
      for (int i = 0; i < N; ++i) {
        double acc = 0;
#pragma unroll
        for (int m = 0; m < N; ++m) acc = fma(S_.s[i * N + m], v[m], acc);
        dst[i * S::STRIDE + t] = acc;
      }
    }
    cur ^= 1;
    __syncthreads();
  }
  store_cells<N>(buf[cur], out, cell0, ncells);
}

__device__ __forceinline__ void dmma(double &d0, double &d1, double a, double b, double c0,
                                     double c1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};\n"
               : "=d"(d0), "=d"(d1)
               : "d"(a), "d"(b), "d"(c0), "d"(c1));
#else
  __trap(); /* DMMA needs sm_80 or newer */
#endif
}

/* Fragments of m8n8k4 f64 (PTX ISA): lane = 4 g + q; A(row g, col q); B(row q, col g);
 * C/D(row g, cols 2q and 2q+1). */
template <int N>
__global__ void __launch_bounds__(shape<N>::DMMA_WARPS * 32)
    dmma_kernel(const smat<N> S_, const double *__restrict__ in, double *__restrict__ out,
                int64_t ncells, int sweeps) {
  using S = shape<N>;
  constexpr int GROUPS = S::COLS / 8, GPW = GROUPS / S::DMMA_WARPS;
  static_assert(GROUPS % S::DMMA_WARPS == 0, "column groups split evenly over the warps");
  __shared__ __align__(16) double buf[2][N * S::STRIDE];
  const int64_t cell0 = (int64_t)blockIdx.x * S::CPB;
  load_cells<N>(in, buf[0], cell0, ncells);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, q = lane & 3;
  /* A operand: S padded to 8x8, k-steps m = q and m = 4 + q */
  const double a0 = (g < N && q < N) ? S_.s[g * N + q] : 0.0;
  const double a1 = (g < N && 4 + q < N) ? S_.s[g * N + 4 + q] : 0.0;
  __syncthreads();
  int cur = 0;
  for (int s = 0; s < sweeps; ++s) {
    const double *src = buf[cur];
    double *dst = buf[cur ^ 1];
#pragma unroll
    for (int gg = 0; gg < GPW; ++gg) {
      const int n0 = (warp * GPW + gg) * 8;
      const double b0 = src[q * S::STRIDE + n0 + g];
      const double b1 = 4 + q < N ? src[(4 + q) * S::STRIDE + n0 + g] : 0.0;
      double d0, d1;
      dmma(d0, d1, a0, b0, 0.0, 0.0);
      dmma(d0, d1, a1, b1, d0, d1);
      if (g < N)
        *reinterpret_cast<double2 *>(dst + g * S::STRIDE + n0 + 2 * q) = make_double2(d0, d1);
    }
    cur ^= 1;
    __syncthreads();
  }
  store_cells<N>(buf[cur], out, cell0, ncells);
}

/* ---------------------------------------------------------------- peaks */
#define PEAK_ITERS 4096
__global__ void fma_peak_kernel(double m, double c, double *sink) {
  double v[8];
#pragma unroll
  for (int q = 0; q < 8; ++q) v[q] = threadIdx.x + q;
  for (int it = 0; it < PEAK_ITERS; ++it)
#pragma unroll
    for (int q = 0; q < 8; ++q) v[q] = fma(v[q], m, c);
  double s = 0;
#pragma unroll
  for (int q = 0; q < 8; ++q) s += v[q];
  if (s == -12345.678) sink[0] = s;
}
/* 8 independent accumulators per warp, each mma.sync depending only on its own chain */
__global__ void dmma_peak_kernel(double a, double b, double *sink) {
  double d[8][2];
#pragma unroll
  for (int q = 0; q < 8; ++q) d[q][0] = d[q][1] = threadIdx.x + q;
  const double av = a * (threadIdx.x & 3), bv = b * (threadIdx.x >> 2);
  for (int it = 0; it < PEAK_ITERS; ++it)
#pragma unroll
    for (int q = 0; q < 8; ++q) dmma(d[q][0], d[q][1], av, bv, d[q][0], d[q][1]);
  double s = 0;
#pragma unroll
  for (int q = 0; q < 8; ++q) s += d[q][0] + d[q][1];
  if (s == -12345.678) sink[0] = s;
}

/* ---------------------------------------------------------------- host */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void) { /* splitmix64 -> [-1, 1) */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename L>
static float time_median(int reps, L launch) {
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  launch(); /* warm-up */
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(t0));
    launch();
    CK(cudaGetLastError());
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    float x;
    CK(cudaEventElapsedTime(&x, t0, t1));
    ms.push_back(x);
  }
  CK(cudaEventDestroy(t0));
  CK(cudaEventDestroy(t1));
  return median(ms);
}

static int g_fail = 0;

template <int N>
static void run_degree(int64_t ncells, int reps, int sweeps, double fma_peak, double dmma_peak,
                       int nsm) {
  using S = shape<N>;
  constexpr int PER = N * N * N;
  const int64_t nval = ncells * PER;
  smat<N> sm;
  for (int e = 0; e < N * N; ++e) sm.s[e] = urand() / sqrt((double)N);
  std::vector<double> h(nval);
  for (int64_t e = 0; e < nval; ++e) h[e] = urand();
  double *din, *da, *db;
  CK(cudaMalloc(&din, nval * sizeof(double)));
  CK(cudaMalloc(&da, nval * sizeof(double)));
  CK(cudaMalloc(&db, nval * sizeof(double)));
  CK(cudaMemcpy(din, h.data(), nval * sizeof(double), cudaMemcpyHostToDevice));
  const int64_t blocks = (ncells + S::CPB - 1) / S::CPB;
  auto fma_run = [&](int sw) {
    fma_kernel<N><<<(unsigned)blocks, S::FMA_THREADS>>>(sm, din, da, ncells, sw);
  };
  auto dmma_run = [&](int sw) {
    dmma_kernel<N><<<(unsigned)blocks, S::DMMA_WARPS * 32>>>(sm, din, db, ncells, sw);
  };
  /* checks, for 1 and `sweeps` sweeps */
  const int64_t nref = std::min<int64_t>(ncells, 2048);
  for (int sw : {1, sweeps}) {
    CK(cudaMemset(da, 0xff, nval * sizeof(double))); /* NaN poison */
    CK(cudaMemset(db, 0xff, nval * sizeof(double)));
    fma_run(sw);
    CK(cudaGetLastError());
    dmma_run(sw);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<double> ha(nval), hb(nval);
    CK(cudaMemcpy(ha.data(), da, nval * sizeof(double), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), db, nval * sizeof(double), cudaMemcpyDeviceToHost));
    /* host reference on the first nref cells */
    double rmax = 0, ea = 0, eb = 0;
    std::vector<double> x(PER), y(PER);
    for (int64_t c = 0; c < nref; ++c) {
      for (int e = 0; e < PER; ++e) x[e] = h[c * PER + e];
      for (int s = 0; s < sw; ++s) {
        for (int i = 0; i < N; ++i)
          for (int col = 0; col < N * N; ++col) {
            long double acc = 0;
            for (int m = 0; m < N; ++m) acc += (long double)sm.s[i * N + m] * x[m * N * N + col];
            y[i * N * N + col] = (double)acc;
          }
        std::swap(x, y);
      }
      for (int e = 0; e < PER; ++e) {
        rmax = fmax(rmax, fabs(x[e]));
        ea = fmax(ea, fabs(ha[c * PER + e] - x[e]));
        eb = fmax(eb, fabs(hb[c * PER + e] - x[e]));
      }
    }
    double amax = 0, dab = 0;
    int64_t bad = 0;
    for (int64_t e = 0; e < nval; ++e) {
      if (!isfinite(ha[e]) || !isfinite(hb[e])) ++bad;
      amax = fmax(amax, fabs(ha[e]));
      dab = fmax(dab, fabs(ha[e] - hb[e]));
    }
    const double rab = dab / amax;
    const bool ok = bad == 0 && rab <= 1e-14 && ea / rmax <= 1e-14 && eb / rmax <= 1e-14;
    printf("# k = %d, %d sweep(s): fma vs host %.2e, dmma vs host %.2e (first %lld cells), "
           "dmma vs fma %.2e (all %lld cells), non-finite %lld: %s\n",
           N - 1, sw, ea / rmax, eb / rmax, (long long)nref, rab, (long long)ncells,
           (long long)bad, ok ? "ok" : "FAIL");
    if (!ok) g_fail = 1;
  }
  /* timings */
  cudaFuncAttributes fa, fb;
  CK(cudaFuncGetAttributes(&fa, fma_kernel<N>));
  CK(cudaFuncGetAttributes(&fb, dmma_kernel<N>));
  int occa = 0, occb = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occa, fma_kernel<N>, S::FMA_THREADS, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occb, dmma_kernel<N>, S::DMMA_WARPS * 32, 0));
  const float ta1 = time_median(reps, [&] { fma_run(1); });
  const float taR = time_median(reps, [&] { fma_run(sweeps); });
  const float tb1 = time_median(reps, [&] { dmma_run(1); });
  const float tbR = time_median(reps, [&] { dmma_run(sweeps); });
  const float ta1b = time_median(reps, [&] { fma_run(1); }); /* spread: the same version twice */
  const float taRb = time_median(reps, [&] { fma_run(sweeps); });
  const double flop_sweep = 2.0 * pow((double)N, 4) * (double)ncells;
  const double bytes = 2.0 * nval * sizeof(double);
  auto line = [&](const char *name, const cudaFuncAttributes &f, int occ, int warps, float t1,
                  float tR, double peak, double peakname_is_dmma) {
    const double per = (tR - t1) / (sweeps - 1); /* ms per sweep from shared memory */
    const double gf = flop_sweep / (per * 1e-3) * 1e-9;
    printf("| %d | %s | %lld | %d | %d | %d | %.3f | %.1f | %.3f | %.4f | %.0f | %.1f | %.1f |\n",
           N - 1, name, (long long)ncells, f.numRegs, occ, occ * warps, t1,
           bytes / (t1 * 1e-3) * 1e-9, tR, per, gf, 100.0 * gf / fma_peak,
           100.0 * gf / dmma_peak);
    (void)peak;
    (void)peakname_is_dmma;
  };
  printf("\n| k | variant | cells | regs | blocks/SM | warps/SM | t(1 sweep) ms | GB/s (1 sweep) "
         "| t(%d sweeps) ms | ms/sweep | GFLOP/s (useful, per sweep) | %%FMA peak | %%DMMA peak |\n",
         sweeps);
  printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  line("fma", fa, occa, (S::FMA_THREADS + 31) / 32, ta1, taR, fma_peak, 0);
  line("fma (again)", fa, occa, (S::FMA_THREADS + 31) / 32, ta1b, taRb, fma_peak, 0);
  line("dmma", fb, occb, S::DMMA_WARPS, tb1, tbR, dmma_peak, 1);
  printf("# k = %d: dmma / fma time per sweep = %.2f (useful fraction of the padded DMMA "
         "work: %.0f %%)\n\n",
         N - 1, ((tbR - tb1) / (sweeps - 1)) / ((taR - ta1) / (sweeps - 1)),
         100.0 * N * N / 64.0);
  (void)nsm;
  CK(cudaFree(din));
  CK(cudaFree(da));
  CK(cudaFree(db));
}

int main(int argc, char **argv) {
  int reps = 11, sweeps = 33;
  int64_t cells4 = 2097152, cells7 = 524288;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--sweeps")) sweeps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--cells4")) cells4 = atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--cells7")) cells7 = atoll(argv[i + 1]);
    else {
      fprintf(stderr, "usage: bench-dmma [--reps 11] [--sweeps 33] [--cells4 N] [--cells7 N]\n");
      return 2;
    }
  }
  if (reps < 1 || sweeps < 2 || cells4 < 1 || cells7 < 1) {
    fprintf(stderr, "bench-dmma: need --reps >= 1, --sweeps >= 2, cells >= 1\n");
    return 2;
  }
  int dev = 0;
  cudaDeviceProp p;
  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&p, dev));
  int clk = 0;
  CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev));
  printf("# bench-dmma: %s, %d SMs, sm_%d%d, max SM clock %.0f MHz\n", p.name,
         p.multiProcessorCount, p.major, p.minor, clk * 1e-3);
  if (p.major < 8) {
    fprintf(stderr, "bench-dmma: DMMA needs compute capability 8.0 or newer\n");
    return 1;
  }
  double *sink;
  CK(cudaMalloc(&sink, sizeof(double)));
  const int pblocks = p.multiProcessorCount * 8, pthreads = 256;
  const float tf = time_median(reps, [&] { fma_peak_kernel<<<pblocks, pthreads>>>(0.999, 1e-3, sink); });
  const float td = time_median(reps, [&] { dmma_peak_kernel<<<pblocks, pthreads>>>(1e-3, 1e-3, sink); });
  const double fma_peak = 2.0 * 8 * PEAK_ITERS * (double)pblocks * pthreads / (tf * 1e-3) * 1e-9;
  const double dmma_peak =
      512.0 * 8 * PEAK_ITERS * (double)pblocks * (pthreads / 32) / (td * 1e-3) * 1e-9;
  printf("# measured peaks: FP64 FMA %.0f GFLOP/s, DMMA (mma.sync m8n8k4) %.0f GFLOP/s\n",
         fma_peak, dmma_peak);
  CK(cudaFree(sink));
  run_degree<5>(cells4, reps, sweeps, fma_peak, dmma_peak, p.multiProcessorCount);
  run_degree<8>(cells7, reps, sweeps, fma_peak, dmma_peak, p.multiProcessorCount);
  printf("# %s\n", g_fail ? "CHECK FAILED" : "all checks ok");
  return g_fail;
}
