// Fused BatchNorm (training statistics) + SiLU in one launch a direction, for channels-last
// activations of up to kMaxRowsPerThread rows a thread (YOLOv9-t's and YOLOX-s's maps of 80 x 80
// and below at batch 16). Why: most of a YOLO's BatchNorm layers are small (YOLOv9-t's average
// activation is about 3 MB, under a microsecond of HBM time), so what a call costs is its fixed
// part: cuDNN's BatchNorm takes 8-9 us with a memset before it, the separate SiLU 3-5 us, and the
// three-launch kernels of batch_norm_silu_kernels.cu pay three launches and a workspace round
// trip. A grid-wide barrier (a cooperative launch) cost more than the launches it saved
// (docs/fused-kernels.md). A thread-block cluster (sm_90) gives a barrier in hardware and lets
// the blocks read each other's shared memory, so the per-channel totals never leave the chip:
//
//  - the grid is (cluster, tiles): each cluster owns one tile of V channels (one 16-byte vector a
//    row) and every row of it; its blocks (cluster ranks) take interleaved rows, so a warp reads
//    32 rows' vectors of one tile, and the neighbouring tile's cluster reads the rest of each
//    32-byte sector at about the same time (from L2);
//  - pass 1 sums per thread (the forward: moments of x; the backward: sums of g and g * xhat),
//    reduces warp by warp (shuffles), then the block's warps, into the block's shared memory;
//  - a cluster barrier; every block combines all ranks' totals from distributed shared memory in
//    rank order, so all blocks hold the same bits, and rank 0 writes the per-channel results
//    (saved statistics and running ones; the weight's and bias's gradients);
//  - a second barrier (no block may leave while others read its shared memory), then pass 2
//    re-reads its rows (from L2: the tensors this path takes are at most a few tens of MB) and
//    writes y or grad_x.
// The split depends on the shape alone and every sum is combined in a fixed order, so the result
// is bitwise the same run after run. The arithmetic is batch_norm_silu_device.cuh's, as in the
// three-launch kernels (their sums are split differently, so the two agree within rounding).
// Sizes: 256-thread blocks, up to 8 a cluster, up to 64 rows a thread: 131,072 rows at most.
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "batch_norm_silu_device.cuh"
#include "batch_norm_silu_kernels.hpp"
#include "launch_size.cuh"
#include "vector_access.cuh"

namespace libreyolo::sdk::fused {
namespace {

namespace cg = cooperative_groups;
using namespace bn_silu;

// Blocks of 256 threads held to 85 registers (three a multiprocessor), so that a GPC holds several
// clusters at once. Measured on an H100 (2026-12-06), neither version beats cuDNN: the first (512
// threads, one block a multiprocessor) ran YOLOv9-t's step 0.950x, this one 0.877x; per layer its
// GPU time is 32-160 us forward + backward where cuDNN's BatchNorm + SiLU take 20-63 us
// (docs/benchmarks.md, "Thirtieth session"). Kept as a measured candidate, not in the default.
constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 3;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxCluster = 8;               // the portable cluster size
constexpr int kUnroll = 3;                   // the forward's rows a thread loads before using them
constexpr int kBackwardUnroll = 2;           // the backward's (two tensors a row); both without spills
constexpr int64_t kMinRowsPerThread = 4;     // below this a cluster uses fewer blocks
constexpr int64_t kMaxRowsPerThread = 64;    // above this the tensor is too large for one cluster a tile
constexpr int64_t kMaxTiles = 65535;         // grid.y
constexpr int kMaxDevices = 64;

struct ClusterGeometry {
  int64_t channels = 0, rows = 0;  // C, N*H*W
  int cluster = 1;                 // blocks per cluster, grid.x
  int64_t tiles = 0;               // V-channel tiles, grid.y
};

int vector_width(const BnSiluShape& s) { return s.half ? vector_of<__half>() : vector_of<float>(); }

ClusterGeometry cluster_geometry(const BnSiluShape& s) {
  ClusterGeometry g;
  g.channels = s.channels;
  g.rows = s.batch * s.height * s.width;
  g.tiles = s.channels / vector_width(s);
  const int64_t wanted = ceil_div(g.rows, kThreads * kMinRowsPerThread);
  while (g.cluster < kMaxCluster && g.cluster < wanted) g.cluster *= 2;
  return g;
}

// Clusters need compute capability 9.0; read once per device.
bool device_has_clusters() {
  static int known[kMaxDevices] = {};  // 0 unknown, 1 yes, 2 no
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) {
    cudaGetLastError();
    return false;
  }
  if (known[device] == 0) {
    int major = 0;
    const bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess;
    if (!ok) cudaGetLastError();
    known[device] = ok && major >= 9 ? 1 : 2;
  }
  return known[device] == 1;
}

// The first row this thread visits and the distance to its next.
struct RowWalk {
  int64_t first, stride, channel;
};

__device__ inline RowWalk row_walk(const ClusterGeometry& g, int rank, int V) {
  return {static_cast<int64_t>(rank) * kThreads + threadIdx.x, static_cast<int64_t>(g.cluster) * kThreads,
          static_cast<int64_t>(blockIdx.y) * V};
}

// Lane 0 of each warp ends with its warp's total; the tree's order is fixed.
template <int V>
__device__ inline void warp_total(Moments (&m)[V]) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const Moments other{__shfl_down_sync(0xffffffffu, m[v].n, offset), __shfl_down_sync(0xffffffffu, m[v].mean, offset),
                          __shfl_down_sync(0xffffffffu, m[v].m2, offset)};
      m[v] = combine(m[v], other);
    }
}

template <int V>
__device__ inline void warp_total(Sums (&m)[V]) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
#pragma unroll
    for (int v = 0; v < V; ++v)
      m[v] = combine(m[v], Sums{__shfl_down_sync(0xffffffffu, m[v].g, offset),
                                __shfl_down_sync(0xffffffffu, m[v].gx, offset)});
}

// The block's total per channel into block_total[V] (warps combined in order by threads 0..V-1).
// Every thread of the block calls it.
template <int V, class Stat>
__device__ inline void block_total_of(Stat (&mine)[V], Stat (&warp_totals)[kWarps][V], Stat (&block_total)[V]) {
  warp_total<V>(mine);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0)
#pragma unroll
    for (int v = 0; v < V; ++v) warp_totals[warp][v] = mine[v];
  __syncthreads();
  if (threadIdx.x < V) {
    Stat total = warp_totals[0][threadIdx.x];
    for (int w = 1; w < kWarps; ++w) total = combine(total, warp_totals[w][threadIdx.x]);
    block_total[threadIdx.x] = total;
  }
}

// The cluster's total of channel v (v < V): every rank's block total combined in rank order,
// read from the ranks' shared memory. Called between the two cluster barriers.
template <class Stat>
__device__ inline Stat cluster_total(const cg::cluster_group& cluster, Stat* block_total, int v) {
  Stat total = cluster.map_shared_rank(block_total, 0)[v];
  for (unsigned r = 1; r < cluster.num_blocks(); ++r) total = combine(total, cluster.map_shared_rank(block_total, r)[v]);
  return total;
}

// Visits this thread's rows U at a time: loads the U rows' values first (bytes in flight), then
// calls visit(element offset, value) for each row that exists.
template <int U, class T, int V, class Visit>
__device__ inline void for_each_row(const ClusterGeometry& g, const RowWalk& w, const T* __restrict__ x, Visit visit) {
  for (int64_t row = w.first; row < g.rows; row += U * w.stride) {
    int64_t at[U];
    float value[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t r = row + u * w.stride;
      at[u] = r < g.rows ? r * g.channels + w.channel : -1;
      if (at[u] >= 0) load<V>(x, at[u], value[u]);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (at[u] >= 0) visit(at[u], value[u]);
  }
}

// The same over x and grad_y: visit(element offset, g, xhat), g = grad_y * silu'(z).
template <int U, class T, int V, class Visit>
__device__ inline void for_each_gradient(const ClusterGeometry& g, const RowWalk& w, const T* __restrict__ x,
                                         const T* __restrict__ grad_y, const ChannelAffine<V>& k, Visit visit) {
  for (int64_t row = w.first; row < g.rows; row += U * w.stride) {
    int64_t at[U];
    float value[U][V], gi[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t r = row + u * w.stride;
      at[u] = r < g.rows ? r * g.channels + w.channel : -1;
      if (at[u] < 0) continue;
      load<V>(x, at[u], value[u]);
      load<V>(grad_y, at[u], gi[u]);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (at[u] < 0) continue;
      float xhat[V];
      activation_grad_of<T, V>(value[u], k, gi[u], xhat);
      visit(at[u], gi[u], xhat);
    }
  }
}

// ---- forward ----

// y = silu(batch_norm(x)); rank 0 writes the saved statistics and moves the running ones.
template <class T, int V>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm) cluster_forward_kernel(ClusterGeometry g, const T* __restrict__ x,
                                                                 const float* __restrict__ weight,
                                                                 const float* __restrict__ bias, Running running,
                                                                 float* __restrict__ save_mean,
                                                                 float* __restrict__ save_invstd, T* __restrict__ y) {
  __shared__ Moments warp_totals[kWarps][V];
  __shared__ Moments block_total[V];
  __shared__ float scale[V], offset[V];
  const cg::cluster_group cluster = cg::this_cluster();
  const RowWalk w = row_walk(g, static_cast<int>(cluster.block_rank()), V);
  ShiftedSums<V> sums;
  sums.start(x, w.channel);  // shifted by row 0's values
  for_each_row<kUnroll, T, V>(g, w, x, [&](int64_t, const float (&value)[V]) { sums.add(value); });
  Moments mine[V];
  sums.moments(mine);
  block_total_of<V>(mine, warp_totals, block_total);
  cluster.sync();
  if (threadIdx.x < V) {
    const int v = threadIdx.x;
    const Moments total = cluster_total(cluster, block_total, v);
    const float mean = total.mean, invstd = 1.f / sqrtf(total.m2 / total.n + running.eps);
    scale[v] = weight[w.channel + v] * invstd;
    offset[v] = bias[w.channel + v] - mean * scale[v];
    if (cluster.block_rank() == 0) finish_moments(total, w.channel + v, running, save_mean, save_invstd);
  }
  cluster.sync();
  for_each_row<kUnroll, T, V>(g, w, x, [&](int64_t at, const float (&value)[V]) {
    float out[V];
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = silu_of<T>(fmaf(scale[v], value[v], offset[v]));
    store<V>(y, at, out);
  });
}

// ---- backward ----

// grad_x, and (rank 0) the weight's and bias's gradients.
template <class T, int V>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm) cluster_backward_kernel(ClusterGeometry g, const T* __restrict__ x,
                                                                  const T* __restrict__ grad_y, Affine a,
                                                                  float inv_count, float* __restrict__ grad_weight,
                                                                  float* __restrict__ grad_bias,
                                                                  T* __restrict__ grad_x) {
  __shared__ Sums warp_totals[kWarps][V];
  __shared__ Sums block_total[V];
  __shared__ float mean_g[V], mean_gx[V];
  const cg::cluster_group cluster = cg::this_cluster();
  const RowWalk w = row_walk(g, static_cast<int>(cluster.block_rank()), V);
  ChannelAffine<V> k;
  k.read(a, w.channel);
  Sums mine[V];
#pragma unroll
  for (int v = 0; v < V; ++v) mine[v] = {0.f, 0.f};
  for_each_gradient<kBackwardUnroll, T, V>(g, w, x, grad_y, k, [&](int64_t, const float (&gi)[V], const float (&xhat)[V]) {
#pragma unroll
    for (int v = 0; v < V; ++v) {
      mine[v].g += gi[v];
      mine[v].gx += gi[v] * xhat[v];
    }
  });
  block_total_of<V>(mine, warp_totals, block_total);
  cluster.sync();
  if (threadIdx.x < V) {
    const int v = threadIdx.x;
    const Sums total = cluster_total(cluster, block_total, v);
    mean_g[v] = total.g * inv_count;
    mean_gx[v] = total.gx * inv_count;
    if (cluster.block_rank() == 0) {
      grad_bias[w.channel + v] = total.g;
      grad_weight[w.channel + v] = total.gx;
    }
  }
  cluster.sync();
  for_each_gradient<kBackwardUnroll, T, V>(g, w, x, grad_y, k, [&](int64_t at, const float (&gi)[V], const float (&xhat)[V]) {
    float out[V];
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = input_grad(k.scale[v], gi[v], xhat[v], mean_g[v], mean_gx[v]);
    store<V>(grad_x, at, out);
  });
}

// ---- launches ----

cudaLaunchConfig_t cluster_config(const ClusterGeometry& g, cudaStream_t stream, cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(g.cluster), static_cast<unsigned>(g.tiles));
  config.blockDim = dim3(kThreads);
  config.stream = stream;
  attribute->id = cudaLaunchAttributeClusterDimension;
  attribute->val.clusterDim.x = static_cast<unsigned>(g.cluster);
  attribute->val.clusterDim.y = 1;
  attribute->val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

template <class T>
int forward_with(const ClusterGeometry& g, const BnSiluForwardArgs& a, cudaStream_t stream) {
  constexpr int V = vector_of<T>();
  cudaLaunchAttribute attribute;
  const auto config = cluster_config(g, stream, &attribute);
  return static_cast<int>(cudaLaunchKernelEx(&config, cluster_forward_kernel<T, V>, g, static_cast<const T*>(a.x),
                                             a.weight, a.bias, Running{a.running_mean, a.running_var, a.momentum, a.eps},
                                             a.save_mean, a.save_invstd, static_cast<T*>(a.y)));
}

template <class T>
int backward_with(const ClusterGeometry& g, const BnSiluBackwardArgs& a, cudaStream_t stream) {
  constexpr int V = vector_of<T>();
  cudaLaunchAttribute attribute;
  const auto config = cluster_config(g, stream, &attribute);
  const float inv_count = static_cast<float>(1.0 / static_cast<double>(g.rows));
  return static_cast<int>(cudaLaunchKernelEx(&config, cluster_backward_kernel<T, V>, g, static_cast<const T*>(a.x),
                                             static_cast<const T*>(a.grad_y),
                                             Affine{a.save_mean, a.save_invstd, a.weight, a.bias}, inv_count,
                                             a.grad_weight, a.grad_bias, static_cast<T*>(a.grad_x)));
}

}  // namespace

bool bn_silu_clusters_on_device() { return device_has_clusters(); }

bool bn_silu_cluster_fits(const BnSiluShape& s) {
  if (!s.channels_last || !s.aligned16 || s.batch <= 0 || s.channels <= 0 || s.channels % vector_width(s) != 0)
    return false;
  const auto g = cluster_geometry(s);
  if (g.rows < 2 || g.tiles > kMaxTiles || ceil_div(g.rows, static_cast<int64_t>(g.cluster) * kThreads) > kMaxRowsPerThread)
    return false;
  return device_has_clusters();
}

int bn_silu_cluster_forward(const BnSiluShape& shape, const BnSiluForwardArgs& args, void* stream) {
  if (!bn_silu_cluster_fits(shape)) return static_cast<int>(cudaErrorInvalidValue);
  const auto g = cluster_geometry(shape);
  const auto s = static_cast<cudaStream_t>(stream);
  return shape.half ? forward_with<__half>(g, args, s) : forward_with<float>(g, args, s);
}

int bn_silu_cluster_backward(const BnSiluShape& shape, const BnSiluBackwardArgs& args, void* stream) {
  if (!bn_silu_cluster_fits(shape)) return static_cast<int>(cudaErrorInvalidValue);
  const auto g = cluster_geometry(shape);
  const auto s = static_cast<cudaStream_t>(stream);
  return shape.half ? backward_with<__half>(g, args, s) : backward_with<float>(g, args, s);
}

}  // namespace libreyolo::sdk::fused
