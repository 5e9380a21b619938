#pragma once
// The image convolution's device code (fused_kernels=image_convolutions; docs/fused-kernels.md,
// "Image convolutions"): a network's first convolution, 3x3 over the image's three channels. No
// torch headers. Needs sm_80 or later (tensor_core_fragments.cuh).
//
// Why its own kernels: cuDNN cannot read rows of three float16 channels (6 bytes) with its fast
// kernels, so every call first copies the image into eight padded channels, and PyTorch's
// autocast first casts the float32 image to float16 (YOLOv9-t's stem: cast, padding, forward and
// weight gradient about 0.44 ms of an H100 step for 39 MB in and 52 MB out, docs/benchmarks.md).
// Here each thread gathers one output pixel's 27 taps (3 rows x 3 columns x 3 channels, in the
// weight's KRSC order) straight from the image through its strides, rounds them to float16 as
// autocast's cast would, and writes them as one row of an im2col tile in shared memory; the tile
// then is a plain GEMM on tensor cores with the reduction (27 taps, zeros to 32) two m16n8k16
// steps long:
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

constexpr int kTaps = 27;       // 3 rows x 3 columns x 3 channels: the reduction
constexpr int kReduction = 32;  // the taps with zeros to two 16-wide tensor-core steps
// Halves per im2col row in shared memory: the 32 used and 8 more, so that the 8 rows an ldmatrix
// reads (80 bytes apart) start in 8 different groups of four banks.
constexpr int kRow = 40;
constexpr int kTile = 128;  // output pixels a block stages at once, one per thread
constexpr int kThreads = kTile;

// Where output pixel p's patch is: the image's sizes and strides (elements), the output's sizes.
struct Geometry {
  int height, width, out_height, out_width, stride;
  long long stride_n, stride_c, stride_h, stride_w;
  int pixels;  // batch x out_height x out_width
};

__device__ __forceinline__ float value_at(const float* p) { return __ldg(p); }
__device__ __forceinline__ float value_at(const __half* p) { return __half2float(__ldg(p)); }

__device__ __forceinline__ uint32_t pack_halves(float low, float high) {
  const __half2 h = __floats2half2_rn(low, high);  // .x (low) at the lower address
  return *reinterpret_cast<const uint32_t*>(&h);
}

// Row `row` (16-byte aligned, kReduction halves written) = output pixel p's 27 taps in float16,
// zeros outside the image, beyond the taps and for p past the last pixel.
template <typename T>
__device__ inline void stage_patch(const T* __restrict__ x, const Geometry& g, int p, __half* row) {
  float v[kReduction];
#pragma unroll
  for (int i = 0; i < kReduction; ++i) v[i] = 0.f;
  if (p < g.pixels) {
    const int ox = p % g.out_width, rest = p / g.out_width, oy = rest % g.out_height, n = rest / g.out_height;
    const T* image = x + n * g.stride_n;
#pragma unroll
    for (int r = 0; r < 3; ++r) {
      const int iy = oy * g.stride + r - 1;
      if (iy < 0 || iy >= g.height) continue;
#pragma unroll
      for (int s = 0; s < 3; ++s) {
        const int ix = ox * g.stride + s - 1;
        if (ix < 0 || ix >= g.width) continue;
#pragma unroll
        for (int c = 0; c < 3; ++c) v[(r * 3 + s) * 3 + c] = value_at(image + iy * g.stride_h + ix * g.stride_w + c * g.stride_c);
      }
    }
  }
#pragma unroll
  for (int j = 0; j < kReduction / 8; ++j)
    reinterpret_cast<uint4*>(row)[j] = make_uint4(pack_halves(v[8 * j], v[8 * j + 1]), pack_halves(v[8 * j + 2], v[8 * j + 3]),
                                                  pack_halves(v[8 * j + 4], v[8 * j + 5]), pack_halves(v[8 * j + 6], v[8 * j + 7]));
}

// y (dense NHWC float16, K channels) for output pixels [blockIdx.x * kTile, + kTile).
// weight: KRSC float16 [K][27].
template <int K, typename T>
__global__ void __launch_bounds__(kThreads)
    image_conv3x3_forward(const T* __restrict__ x, const __half* __restrict__ weight, __half* __restrict__ y, Geometry g) {
  __shared__ __align__(16) __half cols[kTile * kRow];
  __shared__ __align__(16) __half taps[K * kRow];  // row k: the output channel's 27 taps, zeros to 32
  for (int i = threadIdx.x; i < K * kReduction; i += blockDim.x) {
    const int k = i / kReduction, t = i % kReduction;
    taps[k * kRow + t] = t < kTaps ? weight[k * kTaps + t] : __float2half(0.f);
  }
  const int first = blockIdx.x * kTile;
  stage_patch(x, g, first + static_cast<int>(threadIdx.x), cols + threadIdx.x * kRow);
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, pair = (lane % 4) * 2;
  const int matrix = lane / 8, row = lane % 8;
  for (int frag = warp; frag < kTile / 16; frag += kThreads / 32) {
    float acc[K / 8][4] = {};
#pragma unroll
    for (int kc = 0; kc < kReduction; kc += 16) {
      // A = 16 pixels' taps kc..kc + 15 (matrices 1 and 3: pixels + 8; 2 and 3: taps + 8).
      uint32_t a[4];
      ldmatrix_x4(a, cols + (frag * 16 + row + (matrix & 1) * 8) * kRow + kc + (matrix >> 1) * 8);
#pragma unroll
      for (int nf = 0; nf < K / 8; ++nf) {
        // B[t][k] = w[k][t]: lanes 0-7 name channels nf * 8 + row at taps kc.., lanes 8-15 at kc + 8..
        uint32_t b[2];
        ldmatrix_x2(b, taps + (nf * 8 + row) * kRow + kc + (matrix & 1) * 8);
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
// channels (K / 16 fragments), N = the taps (4 fragments of 8), the reduction over pixels 16 at a
// time: each warp takes every fourth 16-pixel step of a tile, all fragments.
template <int K, typename T>
__global__ void __launch_bounds__(kThreads)
    image_conv3x3_weight_grad(const T* __restrict__ x, const __half* __restrict__ dy, float* __restrict__ dw,
                              unsigned* arrivals, __half* __restrict__ grad_weight, Geometry g, int tiles) {
  constexpr int kGradRow = K + 8;  // halves per pixel of dy in shared memory: ldmatrix's rows in distinct banks
  constexpr int kMFrags = K / 16, kNFrags = kReduction / 8;
  __shared__ __align__(16) __half cols[kTile * kRow];
  __shared__ __align__(16) __half grads[kTile * kGradRow];
  __shared__ float block_sums[K * kTaps];
  for (int i = threadIdx.x; i < K * kTaps; i += blockDim.x) block_sums[i] = 0.f;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, pair = (lane % 4) * 2;
  const int matrix = lane / 8, row = lane % 8;
  float acc[kMFrags][kNFrags][4] = {};
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int first = tile * kTile;
    __syncthreads();  // the previous tile's readers are done
    stage_patch(x, g, first + static_cast<int>(threadIdx.x), cols + threadIdx.x * kRow);
    for (int i = threadIdx.x; i < kTile * K / 8; i += blockDim.x) {
      const int pixel = i / (K / 8), chunk = i % (K / 8), p = first + pixel;
      uint4 v = make_uint4(0u, 0u, 0u, 0u);
      if (p < g.pixels) v = __ldg(reinterpret_cast<const uint4*>(dy + static_cast<int64_t>(p) * K) + chunk);
      reinterpret_cast<uint4*>(grads + pixel * kGradRow)[chunk] = v;
    }
    __syncthreads();
    for (int step = warp; step < kTile / 16; step += kThreads / 32) {
      const int q = step * 16;
      // A[m][p] = dy[p][m], read transposed from the [pixel][channel] rows (matrices 1 and 3:
      // channels + 8; 2 and 3: pixels + 8).
      uint32_t a[kMFrags][4];
#pragma unroll
      for (int mf = 0; mf < kMFrags; ++mf)
        ldmatrix_x4_trans(a[mf], grads + (q + row + (matrix >> 1) * 8) * kGradRow + mf * 16 + (matrix & 1) * 8);
#pragma unroll
      for (int nf = 0; nf < kNFrags; ++nf) {
        // B[p][t] = cols[p][t]: lanes 0-7 name pixels q + row, lanes 8-15 q + 8 + row.
        uint32_t b[2];
        ldmatrix_x2_trans(b, cols + (q + row + (matrix & 1) * 8) * kRow + nf * 8);
#pragma unroll
        for (int mf = 0; mf < kMFrags; ++mf) mma16816(acc[mf][nf], a[mf], b);
      }
    }
  }
  __syncthreads();  // block_sums zeroed (a block without tiles never passed the loop's barriers)
#pragma unroll
  for (int mf = 0; mf < kMFrags; ++mf)
#pragma unroll
    for (int nf = 0; nf < kNFrags; ++nf)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int m = mf * 16 + group + (e >= 2 ? 8 : 0), t = nf * 8 + pair + (e & 1);
        if (t < kTaps) atomicAdd(block_sums + m * kTaps + t, acc[mf][nf][e]);
      }
  __syncthreads();
  for (int i = threadIdx.x; i < K * kTaps; i += blockDim.x) atomicAdd(dw + i, block_sums[i]);
  finish_if_last(dw, arrivals, grad_weight, K * kTaps);
}

}  // namespace libreyolo::sdk::fused::image_conv
