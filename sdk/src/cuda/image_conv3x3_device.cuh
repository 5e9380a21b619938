#pragma once
// The image convolution's device code (fused_kernels=image_convolutions; docs/fused-kernels.md,
// "Image convolutions"): a network's first convolution, 3x3 over the image's three channels, or
// YOLOX's Focus and the 3x3 convolution of its twelve. No torch headers. Needs sm_80 or later
// (tensor_core_fragments.cuh).
//
// Why its own kernels: rows of three float16 channels (6 bytes) keep cuDNN off its fast kernels:
// it pads the image into eight channels first (tests/tools/conv_kernel_breakdown.py, eager) or
// runs kernels for 2-byte-aligned rows (YOLOv9-t's captured step on an H200: the stem's weight
// gradient 205 us, its forward 80 us), after autocast has cast the float32 image to float16.
// Here each thread gathers one output pixel's taps (27: 3 rows x 3 columns x 3 channels; after a
// Focus 108: rows, columns, 4 phases, 3 channels; in the weight's KRSC order) straight from the
// image through its strides, rounds them to float16 as autocast's cast would, and writes them as
// one row of an im2col tile in shared memory; the tile then is a plain GEMM on tensor cores whose
// reduction (the taps, zeros to a multiple of 16) is two or seven m16n8k16 steps long:
//   image_conv3x3_forward      y[p][k] = sum_t cols[p][t] * w[k][t]: a block per 128 pixels;
//   image_conv3x3_weight_grad  dw[k][t] = sum_p dy[p][k] * cols[p][t]: blocks walk tiles (a
//                              grid-stride loop) with the sums in registers, add them into shared
//                              memory, then into float32 global sums (one atomic per element and
//                              block: the order varies between runs); the last block casts them.
#include <cuda_fp16.h>

#include <cstdint>

#include "last_block.cuh"
#include "tensor_core_fragments.cuh"

namespace libreyolo::sdk::fused::image_conv {

using tensor_core::ldmatrix_x2;
using tensor_core::ldmatrix_x2_trans;
using tensor_core::ldmatrix_x4;
using tensor_core::ldmatrix_x4_trans;
using tensor_core::mma16816;

// Pixels a block stages at once, one per thread.
constexpr int kTile = 128;
constexpr int kThreads = kTile;
constexpr int kWarps = kThreads / 32;

// Where output pixel p's patch is: the image's sizes and strides (elements), the output's sizes.
struct Geometry {
  int height, width, out_height, out_width, stride;
  long long stride_n, stride_c, stride_h, stride_w;
  int pixels;  // batch x out_height x out_width
};

// Output pixel p's coordinates; `real` false past the last pixel (a tile's tail).
struct Pixel {
  int n, oy, ox;
  bool real;
};

__device__ __forceinline__ Pixel locate(const Geometry& g, int p) {
  const int rest = p / g.out_width;
  return {rest / g.out_height, rest % g.out_height, p % g.out_width, p < g.pixels};
}

__device__ __forceinline__ float value_at(const float* p) { return __ldg(p); }
__device__ __forceinline__ float value_at(const __half* p) { return __half2float(__ldg(p)); }

template <typename T>
__device__ __forceinline__ float image_value(const T* x, const Geometry& g, int n, int c, int iy, int ix) {
  return value_at(x + n * g.stride_n + c * g.stride_c + iy * g.stride_h + ix * g.stride_w);
}

// A 3x3 convolution over the image (stride 1 or 2, padding 1): 27 taps in the weight's KRSC
// order (row r, column s, channel c).
struct Patch3x3 {
  static constexpr int kTaps = 27;
  template <typename T>
  __device__ static float tap(const T* x, const Geometry& g, const Pixel& p, int t) {
    if (!p.real || t >= kTaps) return 0.f;
    const int r = t / 9, s = t / 3 % 3, c = t % 3;
    const int iy = p.oy * g.stride + r - 1, ix = p.ox * g.stride + s - 1;
    if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) return 0.f;
    return image_value(x, g, p.n, c, iy, ix);
  }
};

// YOLOX's (and YOLOv5's) Focus, then a 3x3 convolution (stride 1, padding 1) over its 12
// channels: the image's four 2x2 phases (row, column offsets (0, 0), (1, 0), (0, 1), (1, 1))
// side by side, 3 channels each, at half the image's size (even sides). 108 taps in the weight's
// KRSC order (row r, column s, phase q, channel c); the padding is the half-size map's.
struct FocusPatch3x3 {
  static constexpr int kTaps = 108;
  template <typename T>
  __device__ static float tap(const T* x, const Geometry& g, const Pixel& p, int t) {
    if (!p.real || t >= kTaps) return 0.f;
    const int r = t / 36, s = t / 12 % 3, q = t / 3 % 4, c = t % 3;
    const int hy = p.oy + r - 1, hx = p.ox + s - 1;
    if (hy < 0 || hy >= g.out_height || hx < 0 || hx >= g.out_width) return 0.f;
    return image_value(x, g, p.n, c, 2 * hy + (q & 1), 2 * hx + (q >> 1));
  }
};

// The reduction: the taps with zeros to whole 16-wide tensor-core steps.
template <class Patch>
constexpr int kReduction = (Patch::kTaps + 15) / 16 * 16;
// Halves per im2col row in shared memory: the reduction and 8 more, so that the 8 rows an
// ldmatrix reads (40 or 120 halves apart) start in 8 different groups of four banks.
template <class Patch>
constexpr int kRow = kReduction<Patch> + 8;

__device__ __forceinline__ uint32_t pack_halves(float low, float high) {
  const __half2 h = __floats2half2_rn(low, high);  // .x (low) at the lower address
  return *reinterpret_cast<const uint32_t*>(&h);
}

// Row `row` (16-byte aligned, kReduction halves written) = output pixel p's taps in float16
// (rounded as autocast's cast would), zeros outside the image, beyond the taps and past the last
// pixel; 8 taps at a time, so only 8 values are held.
template <class Patch, typename T>
__device__ inline void stage_patch(const T* __restrict__ x, const Geometry& g, int p, __half* row) {
  const Pixel pixel = locate(g, p);
#pragma unroll
  for (int j = 0; j < kReduction<Patch> / 8; ++j) {
    float v[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) v[e] = Patch::tap(x, g, pixel, 8 * j + e);
    reinterpret_cast<uint4*>(row)[j] =
        make_uint4(pack_halves(v[0], v[1]), pack_halves(v[2], v[3]), pack_halves(v[4], v[5]), pack_halves(v[6], v[7]));
  }
}

// y (dense NHWC float16, K channels) for output pixels [blockIdx.x * kTile, + kTile).
// weight: KRSC float16 [K][Patch::kTaps].
template <int K, typename T, class Patch>
__global__ void __launch_bounds__(kThreads)
    image_conv3x3_forward(const T* __restrict__ x, const __half* __restrict__ weight, __half* __restrict__ y, Geometry g) {
  constexpr int kR = kReduction<Patch>, kStride = kRow<Patch>;
  __shared__ __align__(16) __half cols[kTile * kStride];
  __shared__ __align__(16) __half taps[K * kStride];  // row k: the output channel's taps, zeros to kR
  for (int i = threadIdx.x; i < K * kR; i += blockDim.x) {
    const int k = i / kR, t = i % kR;
    taps[k * kStride + t] = t < Patch::kTaps ? weight[k * Patch::kTaps + t] : __float2half(0.f);
  }
  const int first = blockIdx.x * kTile;
  stage_patch<Patch>(x, g, first + static_cast<int>(threadIdx.x), cols + threadIdx.x * kStride);
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, pair = (lane % 4) * 2;
  const int matrix = lane / 8, row = lane % 8;
  for (int frag = warp; frag < kTile / 16; frag += kWarps) {
    float acc[K / 8][4] = {};
#pragma unroll
    for (int kc = 0; kc < kR; kc += 16) {
      // A = 16 pixels' taps kc..kc + 15 (matrices 1 and 3: pixels + 8; 2 and 3: taps + 8).
      uint32_t a[4];
      ldmatrix_x4(a, cols + (frag * 16 + row + (matrix & 1) * 8) * kStride + kc + (matrix >> 1) * 8);
#pragma unroll
      for (int nf = 0; nf < K / 8; ++nf) {
        // B[t][k] = w[k][t]: lanes 0-7 name channels nf * 8 + row at taps kc.., lanes 8-15 at kc + 8..
        uint32_t b[2];
        ldmatrix_x2(b, taps + (nf * 8 + row) * kStride + kc + (matrix & 1) * 8);
        mma16816(acc[nf], a, b);
      }
    }
    const int p0 = first + frag * 16 + group, p1 = p0 + 8;
#pragma unroll
    for (int nf = 0; nf < K / 8; ++nf) {
      const int channel = nf * 8 + pair;
      if (p0 < g.pixels)
        *reinterpret_cast<__half2*>(y + static_cast<int64_t>(p0) * K + channel) = __floats2half2_rn(acc[nf][0], acc[nf][1]);
      if (p1 < g.pixels)
        *reinterpret_cast<__half2*>(y + static_cast<int64_t>(p1) * K + channel) = __floats2half2_rn(acc[nf][2], acc[nf][3]);
    }
  }
}

// The last block to arrive (its additions and everyone's made visible by the fences) casts the
// float32 sums into grad_weight: CUDA's threadFenceReduction pattern. The sums are read from L2
// (__ldcg), where the atomics landed, four a thread before any store.
__device__ inline void finish_if_last(const float* dw, unsigned* arrivals, __half* grad_weight, int total) {
  constexpr int kInFlight = 4;
  if (!arrived_last(arrivals)) return;
  for (int first = threadIdx.x; first < total; first += blockDim.x * kInFlight) {
    float sums[kInFlight];
#pragma unroll
    for (int j = 0; j < kInFlight; ++j) {
      const int i = first + j * blockDim.x;
      sums[j] = i < total ? __ldcg(dw + i) : 0.f;
    }
#pragma unroll
    for (int j = 0; j < kInFlight; ++j) {
      const int i = first + j * blockDim.x;
      if (i < total) grad_weight[i] = __float2half(sums[j]);
    }
  }
}

// dw[k][t] += sum over the pixels of dy[p][k] * cols[p][t] (float32, zeroed before, as is
// `arrivals`); the block that adds last writes grad_weight[k][t] (KRSC float16). M = the output
// channels (K / 16 fragments), N = the taps (kReduction / 8 fragments), the reduction over pixels
// 16 at a time; each warp owns some of the output fragments and keeps them in registers over all
// the tiles its block walks.
template <int K, typename T, class Patch>
__global__ void __launch_bounds__(kThreads)
    image_conv3x3_weight_grad(const T* __restrict__ x, const __half* __restrict__ dy, float* __restrict__ dw,
                              unsigned* arrivals, __half* __restrict__ grad_weight, Geometry g, int tiles) {
  constexpr int kStride = kRow<Patch>, kTaps = Patch::kTaps;
  constexpr int kGradRow = K + 8;  // halves per pixel of dy in shared memory: ldmatrix's rows in distinct banks
  constexpr int kNFrags = kReduction<Patch> / 8, kFrags = K / 16 * kNFrags, kOwned = (kFrags + kWarps - 1) / kWarps;
  __shared__ __align__(16) __half cols[kTile * kStride];
  __shared__ __align__(16) __half grads[kTile * kGradRow];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, pair = (lane % 4) * 2;
  const int matrix = lane / 8, row = lane % 8;
  float acc[kOwned][4] = {};
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int first = tile * kTile;
    __syncthreads();  // the previous tile's readers are done
    stage_patch<Patch>(x, g, first + static_cast<int>(threadIdx.x), cols + threadIdx.x * kStride);
    for (int i = threadIdx.x; i < kTile * K / 8; i += blockDim.x) {
      const int pixel = i / (K / 8), chunk = i % (K / 8), p = first + pixel;
      uint4 v = make_uint4(0u, 0u, 0u, 0u);
      if (p < g.pixels) v = __ldg(reinterpret_cast<const uint4*>(dy + static_cast<int64_t>(p) * K) + chunk);
      reinterpret_cast<uint4*>(grads + pixel * kGradRow)[chunk] = v;
    }
    __syncthreads();
    for (int q = 0; q < kTile; q += 16) {
#pragma unroll
      for (int o = 0; o < kOwned; ++o) {
        const int frag = warp + o * kWarps;
        if (frag >= kFrags) break;
        const int mf = frag / kNFrags, nf = frag % kNFrags;
        // A[m][p] = dy[p][m], read transposed from the [pixel][channel] rows (matrices 1 and 3:
        // channels + 8; 2 and 3: pixels + 8); B[p][t] = cols[p][t]: lanes 0-7 name pixels q + row,
        // lanes 8-15 q + 8 + row.
        uint32_t a[4], b[2];
        ldmatrix_x4_trans(a, grads + (q + row + (matrix >> 1) * 8) * kGradRow + mf * 16 + (matrix & 1) * 8);
        ldmatrix_x2_trans(b, cols + (q + row + (matrix & 1) * 8) * kStride + nf * 8);
        mma16816(acc[o], a, b);
      }
    }
  }
  // The block's sums where the taps were (48 KB of static shared memory hold no more).
  static_assert(sizeof(cols) >= K * kTaps * sizeof(float), "the block's sums fit where the taps were");
  float* block_sums = reinterpret_cast<float*>(cols);
  __syncthreads();  // the last tile's readers are done
  for (int i = threadIdx.x; i < K * kTaps; i += blockDim.x) block_sums[i] = 0.f;
  __syncthreads();
#pragma unroll
  for (int o = 0; o < kOwned; ++o) {
    const int frag = warp + o * kWarps;
    if (frag >= kFrags) break;
    const int mf = frag / kNFrags, nf = frag % kNFrags;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int m = mf * 16 + group + (e >= 2 ? 8 : 0), t = nf * 8 + pair + (e & 1);
      if (t < kTaps) atomicAdd(block_sums + m * kTaps + t, acc[o][e]);
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < K * kTaps; i += blockDim.x) atomicAdd(dw + i, block_sums[i]);
  finish_if_last(dw, arrivals, grad_weight, K * kTaps);
}

}  // namespace libreyolo::sdk::fused::image_conv
