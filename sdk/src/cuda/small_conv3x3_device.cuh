#pragma once
// The small-channel 3x3 convolution's device code (fused_kernels=small_convolutions;
// docs/fused-kernels.md, "Small convolutions"): shared by the SDK's launchers
// (small_conv3x3_kernels.cu) and the stand-alone probe tests/tools/small_conv_probe.cu, which
// measures it against cuDNN. No torch headers. Needs sm_80 or later (mma.sync m16n8k16, ldmatrix).
//
// 3x3, stride 1, padding 1, channels-last float16, float32 accumulation on tensor cores:
//   conv3x3_forward      y = x * w: a block per band of output rows of one image, the input band
//                        with its one-pixel halo and the weight in shared memory, nine taps of
//                        16-channel steps; also the input gradient (grad_y with the weight read
//                        transposed, the taps reversed);
//   conv3x3_weight_grad  each block walks bands (a grid-stride loop): a band's output gradient
//                        times its shifted input for all nine taps, kept in registers across its
//                        bands, then added into one of `replicas` float32 copies of the result
//                        (the launchers: one; one atomic add per element and block, so the sums'
//                        order varies between runs); the last block sums the copies into the
//                        float16 gradient.
// Fragments come from shared memory by ldmatrix (tensor_core_fragments.cuh).
// tests/tools/small_conv_emulation.py checks the index arithmetic in Python, ldmatrix's lane
// layout included.
#include <cuda_fp16.h>

#include <cstdint>

#include "last_block.cuh"
#include "tensor_core_fragments.cuh"

namespace libreyolo::sdk::fused::small_conv {

using tensor_core::copy16_async;
using tensor_core::ldmatrix_x2;
using tensor_core::ldmatrix_x2_trans;
using tensor_core::ldmatrix_x4;
using tensor_core::ldmatrix_x4_trans;
using tensor_core::mma16816;
using tensor_core::wait_for_copies;

// `rows` + 2 rows of `w` + 2 pixels around output rows [h0, h0 + rows) of image `img`, each pixel
// `cp` channels (zeros beyond `c` and outside the image), 16 bytes at a time (asynchronous copies:
// wait_for_copies and __syncthreads before reading). x must be 16-byte aligned.
__device__ inline void load_band(const __half* x, __half* band, int img, int h0, int rows, int h, int w, int c, int cp) {
  const int chunks = cp / 8, band_w = w + 2;
  for (int i = threadIdx.x; i < (rows + 2) * band_w * chunks; i += blockDim.x) {
    const int chunk = i % chunks, pixel = i / chunks;
    const int gh = h0 + pixel / band_w - 1, gw = pixel % band_w - 1;
    const bool real = gh >= 0 && gh < h && gw >= 0 && gw < w && chunk * 8 < c;
    const __half* src = real ? x + ((static_cast<size_t>(img) * h + gh) * w + gw) * c + chunk * 8 : x;
    copy16_async(reinterpret_cast<uint4*>(band) + i, src, real);
  }
}

// The weight as both passes read it, straight from its KRSC layout w[k][tap][c] (no separate
// preparation launch): shared [9][P][P] float16, row k (the forward's output channel, the input
// gradient's reduction channel), column c, zeros beyond C either way. C contiguous in both
// layouts, so 16-byte asynchronous copies (w must be 16-byte aligned; C a multiple of 8). Only
// the first kRows rows of each tap are filled: the forward reads rows below C only, the input
// gradient all P (the padded reduction channels must be zeros).
template <int C, int P, int kRows>
__device__ inline void load_weight(const __half* w, __half* wsm) {
  constexpr int kChunks = P / 8;
  for (int i = threadIdx.x; i < 9 * kRows * kChunks; i += blockDim.x) {
    const int chunk = i % kChunks, row = i / kChunks % kRows, tap = i / (kChunks * kRows);
    const bool real = row < C && chunk * 8 < C;
    const __half* src = real ? w + (row * 9 + tap) * C + chunk * 8 : w;
    copy16_async(reinterpret_cast<uint4*>(wsm + (tap * P + row) * P) + chunk, src, real);
  }
}

// One band's output, from the band (with its halo) and the weight in shared memory: output rows
// [h0, h0 + rows) of image img, rows * w a multiple of 16; a warp takes 16-pixel fragments of
// them, all C output channels.
template <int C, bool kInputGradient>
__device__ inline void convolve_band(const __half* band, const __half* wsm, __half* __restrict__ y, int img, int h0,
                                     int h, int w, int rows) {
  constexpr int CP = (C + 15) / 16 * 16;
  const int band_w = w + 2;
  constexpr int kNFrags = C / 8;
  const int lane = threadIdx.x % 32, group = lane / 4, pair = (lane % 4) * 2;
  const int matrix = lane / 8, row = lane % 8;
  // The weight row this lane names for ldmatrix: the forward's output channel nf * 8 + row,
  // channels + 0 or + 8; the input gradient's reduction channel kc + lane % 16 (8 of them a matrix).
  const __half* b_row = kInputGradient ? wsm + (lane % 16) * CP : wsm + row * CP + (matrix & 1) * 8;
  for (int frag = threadIdx.x / 32; frag < rows * w / 16; frag += blockDim.x / 32) {
    float acc[kNFrags][4] = {};
    // The band pixel this lane names: fragment pixel row (+ 8 for matrices 1 and 3), channels + 8
    // for matrices 2 and 3 (a0..a3 of the m16n8k16 A fragment).
    const int p = frag * 16 + row + (matrix & 1) * 8;
    const __half* a_row = band + ((p / w) * band_w + p % w) * CP + (matrix >> 1) * 8;
    for (int tap = 0; tap < 9; ++tap) {
      const __half* a_tap = a_row + ((tap / 3) * band_w + tap % 3) * CP;
#pragma unroll
      for (int kc = 0; kc < CP; kc += 16) {
        uint32_t a[4];
        ldmatrix_x4(a, a_tap + kc);
#pragma unroll
        for (int nf = 0; nf < kNFrags; ++nf) {
          uint32_t b[2];
          if constexpr (kInputGradient) {
            ldmatrix_x2_trans(b, b_row + ((8 - tap) * CP + kc) * CP + nf * 8);
          } else {
            ldmatrix_x2(b, b_row + (tap * CP + nf * 8) * CP + kc);
          }
          mma16816(acc[nf], a, b);
        }
      }
    }
    const int p0 = frag * 16 + group, p1 = p0 + 8;
    const int r0 = p0 / w, c0 = p0 % w, r1 = p1 / w, c1 = p1 % w;
#pragma unroll
    for (int nf = 0; nf < kNFrags; ++nf) {
      const int channel = nf * 8 + pair;
      if (h0 + r0 < h)
        *reinterpret_cast<__half2*>(y + ((static_cast<size_t>(img) * h + h0 + r0) * w + c0) * C + channel) =
            __floats2half2_rn(acc[nf][0], acc[nf][1]);
      if (h0 + r1 < h)
        *reinterpret_cast<__half2*>(y + ((static_cast<size_t>(img) * h + h0 + r1) * w + c1) * C + channel) =
            __floats2half2_rn(acc[nf][2], acc[nf][3]);
    }
  }
}

// kInputGradient false: y[n][h][w][k] = sum over taps and channels of
//   x[n][h + dy - 1][w + dx - 1][c] * weight[k][tap][c];
// true (x is then the output gradient, y the input gradient): the same with weight[c][8 - tap][k],
// read transposed from the same shared layout (ldmatrix .trans), so no flipped copy exists.
// weight: KRSC float16 [C][9][C]. A block: output rows [blockIdx.x * rows, + rows) of image
// blockIdx.y. (Blocks walking several bands with the weight loaded once, tried in the thirty-fifth
// session, took 43 registers instead of 39 and measured no faster in the probe's sweep.)
template <int C, bool kInputGradient>
__global__ void conv3x3_forward(const __half* __restrict__ x, const __half* __restrict__ weight, __half* __restrict__ y,
                                int h, int w, int rows) {
  constexpr int CP = (C + 15) / 16 * 16;
  extern __shared__ __align__(16) unsigned char shared[];
  __half* band = reinterpret_cast<__half*>(shared);
  __half* wsm = band + (rows + 2) * (w + 2) * CP;
  const int img = blockIdx.y, h0 = blockIdx.x * rows;
  load_weight<C, CP, kInputGradient ? CP : C>(weight, wsm);
  load_band(x, band, img, h0, rows, h, w, C, CP);
  wait_for_copies();
  __syncthreads();
  convolve_band<C, kInputGradient>(band, wsm, y, img, h0, h, w, rows);
}

// The last block to arrive (its additions and everyone's made visible by the fences) casts the
// float32 sums into grad_weight[k][tap][c] = dw[tap][k][c]: the pattern of CUDA's
// threadFenceReduction sample. The sums are read from L2 (__ldcg), where the atomics landed,
// kInFlight elements a thread (each the sum of its `replicas` copies) loaded before any store: the
// stores may alias the sums as far as the compiler knows, so a plain loop would wait out one L2
// round trip per element (9 to 36 a thread).
__device__ inline void finish_if_last(const float* dw, unsigned* arrivals, __half* grad_weight, int k, int c,
                                      int replicas) {
  constexpr int kInFlight = 12;
  if (!arrived_last(arrivals)) return;
  const int total = 9 * k * c;
  for (int first = threadIdx.x; first < total; first += blockDim.x * kInFlight) {
    float sums[kInFlight];
#pragma unroll
    for (int j = 0; j < kInFlight; ++j) {
      const int i = first + j * blockDim.x;
      const int channel = i % c, tap = i / c % 9, out = i / (9 * c);
      sums[j] = 0.f;
      for (int r = 0; i < total && r < replicas; ++r) sums[j] += __ldcg(dw + r * total + (tap * k + out) * c + channel);
    }
#pragma unroll
    for (int j = 0; j < kInFlight; ++j) {
      const int i = first + j * blockDim.x;
      if (i < total) grad_weight[i] = __float2half(sums[j]);
    }
  }
}

// The weight gradient's block size (warps): each warp owns some of the output fragments.
constexpr int kWeightGradWarps = 8;

// dw[tap][k][c] += sum over the pixels p of dy[p][k] * x[p shifted by tap][c] (float32, zeroed
// before, as is `arrivals`), in `replicas` copies of dw (block b adds into copy b % replicas, so
// fewer blocks contend for each address); the block that adds last (counted in `arrivals`) then
// writes grad_weight[k][tap][c] = the copies' sum in float16, so no separate launch casts it.
// M = output channels padded to 16 (KP16), N = input channels (C, a multiple of 8), the
// reduction over pixels 16 at a time; each warp owns some of the 9 * KP16/16 * C/8 output
// fragments and keeps them in registers over all the bands its block walks: bands
// blockIdx.x, + gridDim.x, ... of the batch's `bands` (`bands_per_image` an image, `rows` rows each).
template <int C, int KP16>
__global__ void conv3x3_weight_grad(const __half* __restrict__ x, const __half* __restrict__ dy, float* __restrict__ dw,
                                    unsigned* arrivals, __half* __restrict__ grad_weight, int h, int w, int k, int rows,
                                    int bands_per_image, int bands, int replicas) {
  extern __shared__ __align__(16) unsigned char shared[];
  __half* band = reinterpret_cast<__half*>(shared);  // x with halo: [(rows + 2) * (w + 2)][C]
  __half* grads = band + (rows + 2) * (w + 2) * C;     // dy: [rows * w][KP16], zeros beyond k and h
  constexpr int kMFrags = KP16 / 16, kNFrags = C / 8, kFrags = 9 * kMFrags * kNFrags;
  constexpr int kOwned = (kFrags + kWeightGradWarps - 1) / kWeightGradWarps;
  static_assert(kMFrags <= 2, "a fragment's A is picked from two halves without indexing registers");
  const int band_w = w + 2, warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, pair = (lane % 4) * 2;
  const int matrix = lane / 8, row = lane % 8;
  float acc[kOwned][4] = {};
  for (int b = blockIdx.x; b < bands; b += gridDim.x) {
    const int img = b / bands_per_image, h0 = (b % bands_per_image) * rows;
    __syncthreads();  // the previous band's readers are done
    load_band(x, band, img, h0, rows, h, w, C, C);
    // dy's rows, 8 channels at a time (k is a multiple of 8): zeros beyond k and below the image.
    for (int i = threadIdx.x; i < rows * w * KP16 / 8; i += blockDim.x) {
      const int chunk = i % (KP16 / 8), pixel = i / (KP16 / 8), gh = h0 + pixel / w;
      const bool real = chunk * 8 < k && gh < h;
      const __half* src = real ? dy + ((static_cast<size_t>(img) * h + gh) * w + pixel % w) * k + chunk * 8 : dy;
      copy16_async(reinterpret_cast<uint4*>(grads) + i, src, real);
    }
    wait_for_copies();
    __syncthreads();
    for (int step = 0; step < rows * w; step += 16) {
      // A[m][p] = dy[p][m] for both 16-channel halves (a0..a3: pixels + 8 for matrices 2 and 3,
      // channels + 8 for matrices 1 and 3), read transposed from the [pixel][channel] rows.
      uint32_t a[kMFrags][4];
#pragma unroll
      for (int mf = 0; mf < kMFrags; ++mf)
        ldmatrix_x4_trans(a[mf], grads + (step + row + (matrix >> 1) * 8) * KP16 + mf * 16 + (matrix & 1) * 8);
      // B[p][n] = x[p shifted by tap][n]: lanes 0-7 name pixels step + row, lanes 8-15 + 8.
      const int q = step + row + (matrix & 1) * 8;
      const __half* b_row = band + ((q / w) * band_w + q % w) * C;
#pragma unroll
      for (int o = 0; o < kOwned; ++o) {
        const int frag = warp + o * kWeightGradWarps;
        if (frag >= kFrags) break;
        const int tap = frag / (kMFrags * kNFrags), mf = frag / kNFrags % kMFrags, nf = frag % kNFrags;
        uint32_t bf[2], af[4];
        ldmatrix_x2_trans(bf, b_row + ((tap / 3) * band_w + tap % 3) * C + nf * 8);
#pragma unroll
        for (int i = 0; i < 4; ++i) af[i] = mf == 0 ? a[0][i] : a[kMFrags - 1][i];  // selects, not local memory
        mma16816(acc[o], af, bf);
      }
    }
  }
  float* mine = dw + static_cast<size_t>(blockIdx.x % replicas) * 9 * k * C;
#pragma unroll
  for (int o = 0; o < kOwned; ++o) {
    const int frag = warp + o * kWeightGradWarps;
    if (frag >= kFrags) break;
    const int tap = frag / (kMFrags * kNFrags), mf = frag / kNFrags % kMFrags, nf = frag % kNFrags;
    const int m0 = mf * 16 + group, n0 = nf * 8 + pair;
    for (int e = 0; e < 4; ++e) {
      const int m = m0 + (e >= 2 ? 8 : 0), n = n0 + (e & 1);
      if (m < k) atomicAdd(mine + (static_cast<size_t>(tap) * k + m) * C + n, acc[o][e]);
    }
  }
  finish_if_last(dw, arrivals, grad_weight, k, C, replicas);
}

}  // namespace libreyolo::sdk::fused::small_conv
