#pragma once
// The small-channel 3x3 convolution's device code (fused_kernels=small_convolutions;
// docs/fused-kernels.md, "Small convolutions"): shared by the SDK's launchers
// (small_conv3x3_kernels.cu) and the stand-alone probe tests/tools/small_conv_probe.cu, which
// measures it against cuDNN. No torch headers. Needs sm_80 or later (mma.sync m16n8k16).
//
// 3x3, stride 1, padding 1, channels-last float16, float32 accumulation on tensor cores:
//   conv3x3_forward      y = x * w: a block per band of output rows of one image, the input band
//                        with its one-pixel halo and the weight in shared memory, nine taps of
//                        16-channel steps; also the input gradient (grad_y with the flipped weight);
//   conv3x3_weight_grad  one pass per band: its output gradient times its shifted input for all
//                        nine taps, kept in registers, then added into a float32 buffer (one
//                        atomic add per element and block: the sums' order varies between runs).
// tests/tools/small_conv_emulation.py checks the index arithmetic in Python.
#include <cuda_fp16.h>

#include <cstdint>

namespace libreyolo::sdk::fused::small_conv {

__device__ __forceinline__ void mma16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ uint32_t pack(__half low, __half high) {
  return static_cast<uint32_t>(__half_as_ushort(low)) | (static_cast<uint32_t>(__half_as_ushort(high)) << 16);
}

// `rows` + 2 rows of `w` + 2 pixels around output rows [h0, h0 + rows) of image `img`, each pixel
// `cp` channels (zeros beyond `c` and outside the image), 16 bytes at a time.
__device__ inline void load_band(const __half* x, __half* band, int img, int h0, int rows, int h, int w, int c, int cp) {
  const int chunks = cp / 8, band_w = w + 2;
  for (int i = threadIdx.x; i < (rows + 2) * band_w * chunks; i += blockDim.x) {
    const int chunk = i % chunks, pixel = i / chunks;
    const int gh = h0 + pixel / band_w - 1, gw = pixel % band_w - 1;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (gh >= 0 && gh < h && gw >= 0 && gw < w && chunk * 8 < c)
      v = *reinterpret_cast<const uint4*>(x + ((static_cast<size_t>(img) * h + gh) * w + gw) * c + chunk * 8);
    reinterpret_cast<uint4*>(band)[i] = v;
  }
}

// y[n][h][w][k] = sum over taps and channels of x[n][h + dy - 1][w + dx - 1][c] * weight[tap][k][c].
// weight: [9][KP][CP] float16, zero-padded (KP = k, CP = c rounded up to 16). A block: output rows
// [blockIdx.x * rows, + rows) of image blockIdx.y, rows * w a multiple of 16; a warp: 16-pixel
// fragments of them, all KP output channels.
template <int CP, int KP>
__global__ void conv3x3_forward(const __half* __restrict__ x, const __half* __restrict__ weight, __half* __restrict__ y,
                                int h, int w, int c, int k, int rows) {
  extern __shared__ __align__(16) unsigned char shared[];
  __half* band = reinterpret_cast<__half*>(shared);
  __half* wsm = band + (rows + 2) * (w + 2) * CP;
  const int img = blockIdx.y, h0 = blockIdx.x * rows, band_w = w + 2;
  for (int i = threadIdx.x; i < 9 * KP * CP / 8; i += blockDim.x)
    reinterpret_cast<uint4*>(wsm)[i] = reinterpret_cast<const uint4*>(weight)[i];
  load_band(x, band, img, h0, rows, h, w, c, CP);
  __syncthreads();
  constexpr int kNFrags = KP / 8;
  const int lane = threadIdx.x % 32, group = lane / 4, pair = (lane % 4) * 2;
  for (int frag = threadIdx.x / 32; frag < rows * w / 16; frag += blockDim.x / 32) {
    float acc[kNFrags][4] = {};
    const int p0 = frag * 16 + group, p1 = p0 + 8;
    const int r0 = p0 / w, c0 = p0 % w, r1 = p1 / w, c1 = p1 % w;
    for (int tap = 0; tap < 9; ++tap) {
      const __half* a0 = band + ((r0 + tap / 3) * band_w + c0 + tap % 3) * CP + pair;
      const __half* a1 = band + ((r1 + tap / 3) * band_w + c1 + tap % 3) * CP + pair;
#pragma unroll
      for (int kc = 0; kc < CP; kc += 16) {
        const uint32_t a[4] = {*reinterpret_cast<const uint32_t*>(a0 + kc), *reinterpret_cast<const uint32_t*>(a1 + kc),
                               *reinterpret_cast<const uint32_t*>(a0 + kc + 8),
                               *reinterpret_cast<const uint32_t*>(a1 + kc + 8)};
#pragma unroll
        for (int nf = 0; nf < kNFrags; ++nf) {
          const __half* b0 = wsm + (tap * KP + nf * 8 + group) * CP + kc + pair;
          const uint32_t b[2] = {*reinterpret_cast<const uint32_t*>(b0), *reinterpret_cast<const uint32_t*>(b0 + 8)};
          mma16816(acc[nf], a, b);
        }
      }
    }
#pragma unroll
    for (int nf = 0; nf < kNFrags; ++nf) {
      const int channel = nf * 8 + pair;
      if (h0 + r0 < h)
        *reinterpret_cast<__half2*>(y + ((static_cast<size_t>(img) * h + h0 + r0) * w + c0) * k + channel) =
            __floats2half2_rn(acc[nf][0], acc[nf][1]);
      if (h0 + r1 < h)
        *reinterpret_cast<__half2*>(y + ((static_cast<size_t>(img) * h + h0 + r1) * w + c1) * k + channel) =
            __floats2half2_rn(acc[nf][2], acc[nf][3]);
    }
  }
}

// dw[tap][k][c] += sum over the block's pixels p of dy[p][k] * x[p shifted by tap][c] (float32,
// zeroed before). M = output channels padded to 16 (KP16), N = input channels (C, a multiple of
// 8), the reduction over the band's pixels 16 at a time; each warp owns some of the 9 * KP16/16
// * C/8 output fragments and keeps them in registers over the whole band.
template <int C, int KP16>
__global__ void conv3x3_weight_grad(const __half* __restrict__ x, const __half* __restrict__ dy, float* __restrict__ dw,
                                    int h, int w, int k, int rows) {
  extern __shared__ __align__(16) unsigned char shared[];
  __half* band = reinterpret_cast<__half*>(shared);  // x with halo: [(rows + 2) * (w + 2)][C]
  __half* grads = band + (rows + 2) * (w + 2) * C;     // dy: [rows * w][KP16], zeros beyond k and h
  const int img = blockIdx.y, h0 = blockIdx.x * rows, band_w = w + 2;
  load_band(x, band, img, h0, rows, h, w, C, C);
  for (int i = threadIdx.x; i < rows * w * KP16; i += blockDim.x) {
    const int channel = i % KP16, pixel = i / KP16, gh = h0 + pixel / w;
    grads[i] = channel < k && gh < h ? dy[((static_cast<size_t>(img) * h + gh) * w + pixel % w) * k + channel]
                                     : __float2half(0.f);
  }
  __syncthreads();
  constexpr int kMFrags = KP16 / 16, kNFrags = C / 8, kFrags = 9 * kMFrags * kNFrags;
  constexpr int kWarps = 8, kOwned = (kFrags + kWarps - 1) / kWarps;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, pair = (lane % 4) * 2;
  float acc[kOwned][4] = {};
  for (int step = 0; step < rows * w; step += 16) {
#pragma unroll
    for (int o = 0; o < kOwned; ++o) {
      const int frag = warp + o * kWarps;
      if (frag >= kFrags) break;
      const int tap = frag / (kMFrags * kNFrags), mf = frag / kNFrags % kMFrags, nf = frag % kNFrags;
      // A[m][p] = dy[p][m]: rows m = mf * 16 + group (+8), columns p = step + pair (+1, +8, +9).
      const __half* g = grads + (step + pair) * KP16 + mf * 16 + group;
      const uint32_t a[4] = {pack(g[0], g[KP16]), pack(g[8], g[KP16 + 8]), pack(g[8 * KP16], g[9 * KP16]),
                             pack(g[8 * KP16 + 8], g[9 * KP16 + 8])};
      // B[p][n] = x[p shifted by tap][n]: rows p = step + pair (+1, +8, +9), column n = nf * 8 + group.
      uint32_t b[2];
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int p = step + pair + half * 8, q = p + 1;
        const __half* xp = band + ((p / w + tap / 3) * band_w + p % w + tap % 3) * C + nf * 8 + group;
        const __half* xq = band + ((q / w + tap / 3) * band_w + q % w + tap % 3) * C + nf * 8 + group;
        b[half] = pack(*xp, *xq);
      }
      mma16816(acc[o], a, b);
    }
  }
#pragma unroll
  for (int o = 0; o < kOwned; ++o) {
    const int frag = warp + o * kWarps;
    if (frag >= kFrags) break;
    const int tap = frag / (kMFrags * kNFrags), mf = frag / kNFrags % kMFrags, nf = frag % kNFrags;
    const int m0 = mf * 16 + group, n0 = nf * 8 + pair;
    for (int e = 0; e < 4; ++e) {
      const int m = m0 + (e >= 2 ? 8 : 0), n = n0 + (e & 1);
      if (m < k) atomicAdd(dw + (static_cast<size_t>(tap) * k + m) * C + n, acc[o][e]);
    }
  }
}


}  // namespace libreyolo::sdk::fused::small_conv
