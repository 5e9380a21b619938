// The GPU linear-assignment solver (see assignment_kernels.hpp): one thread block per matrix runs
// the host solver's shortest-augmenting-path method (hungarian.cpp) step for step. The rows are
// added one at a time as there; what is parallel is each scan over the columns (the threads
// relax their columns, then a block reduction picks the cheapest with the host's tie rule) and
// the dual update. The bookkeeping between scans (the scan order's swap-removal, the path flip)
// is the host's sequential code, run by thread 0. Same operations in the same order, in double,
// no fused multiply-adds (there are no products): the same assignment as the host, bit for bit.
#include <cuda_runtime.h>

#include "assignment_kernels.hpp"

namespace libreyolo::sdk::detr::fused {
namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
// Dynamic shared memory a block may take for its working arrays (the static variables and the
// 48 KB default limit leave room); larger matrices work in a global workspace.
constexpr int64_t kSharedBytesLimit = 40 * 1024;
// Working arrays per entry: u, v, path_cost (double); path_row, col_of_row, row_of_col,
// unscanned, seen_rows, done_cols (int). Entries per matrix: max(Q, M), enough for either side.
constexpr int64_t kBytesPerEntry = 3 * sizeof(double) + 6 * sizeof(int);

__host__ __device__ inline int64_t entries_per_matrix(int64_t queries, int64_t padded_gt) {
  return queries > padded_gt ? queries : padded_gt;
}

struct Arrays {
  double *u, *v, *path_cost;
  int *path_row, *col_of_row, *row_of_col, *unscanned, *seen_rows, *done_cols;
};

__device__ inline Arrays carve(char* base, int entries) {
  Arrays a;
  a.u = reinterpret_cast<double*>(base);
  a.v = a.u + entries;
  a.path_cost = a.v + entries;
  a.path_row = reinterpret_cast<int*>(a.path_cost + entries);
  a.col_of_row = a.path_row + entries;
  a.row_of_col = a.col_of_row + entries;
  a.unscanned = a.row_of_col + entries;
  a.seen_rows = a.unscanned + entries;
  a.done_cols = a.seen_rows + entries;
  return a;
}

// The matrix as the solver sees it: rows <= cols, transposed (GT as rows) when the queries
// outnumber the GT, as the host solver transposes a tall matrix.
struct Working {
  const float* base;  // matrix n's [Q, M] block
  int rows, cols, stride;
  bool transposed;
  __device__ float at(int r, int c) const {
    return transposed ? base[static_cast<int64_t>(c) * stride + r] : base[static_cast<int64_t>(r) * stride + c];
  }
};

// A column a scan offers: its path cost, its slot in the scan order, whether it is unassigned.
struct Candidate {
  double cost;
  int slot;
  int free;
};

// The host scan's choice as a total order: the lowest cost; among equal costs, the last free
// column in scan order if any is free, else the first. (The host keeps the first strict minimum
// and lets each later equal free column replace it.) Slot -1 is "no candidate".
__device__ inline Candidate pick(const Candidate& a, const Candidate& b) {
  if (a.slot < 0) return b;
  if (b.slot < 0) return a;
  if (a.cost != b.cost) return a.cost < b.cost ? a : b;
  if (a.free != b.free) return a.free ? a : b;
  if (a.free) return a.slot > b.slot ? a : b;
  return a.slot < b.slot ? a : b;
}

// The block's best candidate, valid in thread 0 only. Begins with a barrier's worth of
// synchronisation: after it returns, thread 0 may change what the scan read.
__device__ Candidate block_best(Candidate c, Candidate* warp_best) {
  for (int offset = 16; offset > 0; offset /= 2) {
    Candidate other;
    other.cost = __shfl_down_sync(0xffffffffu, c.cost, offset);
    other.slot = __shfl_down_sync(0xffffffffu, c.slot, offset);
    other.free = __shfl_down_sync(0xffffffffu, c.free, offset);
    c = pick(c, other);
  }
  if (threadIdx.x % 32 == 0) warp_best[threadIdx.x / 32] = c;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < kWarps; ++w) c = pick(c, warp_best[w]);
  return c;
}

// What the threads share during one search (written by thread 0 between barriers).
struct Search {
  int row, remaining, seen, done_count, sink;
  double lowest;
  bool finished, failed;
};

// The search's first scan, from the new row: sets every column's path cost and writes the scan
// order (descending column index), as hungarian.cpp's scan_start_row.
__device__ Candidate scan_start_row(const Working& w, const Arrays& a, int row) {
  Candidate best{0.0, -1, 0};
  const double row_dual = a.u[row];
  for (int k = threadIdx.x; k < w.cols; k += kThreads) {
    const int col = w.cols - k - 1;
    a.unscanned[k] = col;
    const double reduced = 0.0 + static_cast<double>(w.at(row, col)) - row_dual - a.v[col];
    a.path_cost[col] = reduced;
    a.path_row[col] = row;
    best = pick(best, Candidate{reduced, k, a.row_of_col[col] == -1});
  }
  return best;
}

// A later scan from a matched row reached at path cost `reached` (hungarian.cpp's scan_row).
__device__ Candidate scan_row(const Working& w, const Arrays& a, int row, double reached, int remaining) {
  Candidate best{0.0, -1, 0};
  const double row_dual = a.u[row];
  for (int k = threadIdx.x; k < remaining; k += kThreads) {
    const int col = a.unscanned[k];
    const double reduced = reached + static_cast<double>(w.at(row, col)) - row_dual - a.v[col];
    if (reduced < a.path_cost[col]) {
      a.path_row[col] = row;
      a.path_cost[col] = reduced;
    }
    best = pick(best, Candidate{a.path_cost[col], k, a.row_of_col[col] == -1});
  }
  return best;
}

// Thread 0: the scan's cheapest column becomes final; a free one ends the search.
__device__ void take_column(const Arrays& a, Search& s, const Candidate& best) {
  if (best.slot < 0) {  // finite costs always leave a path; guards the invariant
    s.failed = s.finished = true;
    return;
  }
  const int col = a.unscanned[best.slot];
  a.done_cols[s.done_count++] = col;
  a.unscanned[best.slot] = a.unscanned[--s.remaining];
  s.lowest = best.cost;
  if (a.row_of_col[col] == -1) {
    s.sink = col;
    s.finished = true;
  } else {
    s.row = a.row_of_col[col];
    a.seen_rows[s.seen++] = s.row;
  }
}

// The cheapest augmenting path from `start` (Dijkstra on reduced costs), as find_augmenting_path.
__device__ void find_augmenting_path(const Working& w, const Arrays& a, int start, Search& s, Candidate* warp_best) {
  if (threadIdx.x == 0) {
    s.row = start;
    s.remaining = w.cols;
    s.seen = s.done_count = 0;
    s.lowest = 0.0;  // not read by the first scan
    s.finished = s.failed = false;
    a.seen_rows[s.seen++] = start;
  }
  __syncthreads();
  for (bool first = true;; first = false) {
    const int row = s.row, remaining = s.remaining;
    const double reached = s.lowest;
    const Candidate mine = first ? scan_start_row(w, a, row) : scan_row(w, a, row, reached, remaining);
    const Candidate best = block_best(mine, warp_best);
    if (threadIdx.x == 0) take_column(a, s, best);
    __syncthreads();
    if (s.finished) return;
  }
}

// The dual update and the path flip (update_duals_and_augment); ends on a barrier.
__device__ void update_duals_and_augment(const Arrays& a, const Search& s, int start) {
  const double final_cost = s.lowest;
  for (int k = 1 + threadIdx.x; k < s.seen; k += kThreads) {  // seen_rows[0] is the start row
    const int r = a.seen_rows[k];
    a.u[r] += final_cost - a.path_cost[a.col_of_row[r]];
  }
  for (int k = threadIdx.x; k < s.done_count; k += kThreads) {
    const int c = a.done_cols[k];
    a.v[c] -= final_cost - a.path_cost[c];
  }
  if (threadIdx.x == 0) a.u[start] += final_cost;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int col = s.sink;;) {
      const int row = a.path_row[col];
      a.row_of_col[col] = row;
      const int previous = a.col_of_row[row];
      a.col_of_row[row] = col;
      col = previous;
      if (row == start) break;
    }
  }
  __syncthreads();
}

// Whether any real cost of the matrix ([Q, g] of stride M) is NaN or infinite.
__device__ bool any_non_finite(const float* base, int queries, int gt, int stride, int* flag) {
  if (threadIdx.x == 0) *flag = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < queries * gt; i += kThreads)
    if (!isfinite(base[static_cast<int64_t>(i / gt) * stride + i % gt])) *flag = 1;
  __syncthreads();
  return *flag != 0;
}

__device__ void initialise(const Working& w, const Arrays& a) {
  for (int i = threadIdx.x; i < w.rows; i += kThreads) {
    a.u[i] = 0.0;
    a.col_of_row[i] = -1;
  }
  for (int i = threadIdx.x; i < w.cols; i += kThreads) {
    a.v[i] = 0.0;
    a.row_of_col[i] = -1;
  }
  __syncthreads();
}

__global__ void __launch_bounds__(kThreads) solve_kernel(const float* __restrict__ cost, const int64_t* gt_counts,
                                                         int queries, int padded_gt, int64_t* assignment,
                                                         char* workspace) {
  extern __shared__ __align__(8) char dynamic_shared[];
  __shared__ Search search;
  __shared__ Candidate warp_best[kWarps];
  __shared__ int non_finite;
  const int64_t n = blockIdx.x;
  const int gt = static_cast<int>(gt_counts[n]);
  if (gt <= 0 || queries <= 0) return;  // the same for the whole block
  const float* base = cost + n * queries * padded_gt;
  if (any_non_finite(base, queries, gt, padded_gt, &non_finite)) return;  // left all -1

  const bool transposed = queries > gt;
  const Working w{base, transposed ? gt : queries, transposed ? queries : gt, padded_gt, transposed};
  const int64_t entries = entries_per_matrix(queries, padded_gt);
  const Arrays a = carve(workspace ? workspace + n * entries * kBytesPerEntry : dynamic_shared, static_cast<int>(entries));
  initialise(w, a);
  for (int start = 0; start < w.rows; ++start) {
    find_augmenting_path(w, a, start, search, warp_best);
    if (search.failed) return;
    update_duals_and_augment(a, search, start);
  }
  int64_t* out = assignment + n * queries;
  for (int r = threadIdx.x; r < w.rows; r += kThreads) {
    const int c = a.col_of_row[r];
    if (transposed)
      out[c] = r;  // working row r is GT r, its column a query
    else
      out[r] = c;
  }
}

bool fits_in_shared(int64_t queries, int64_t padded_gt) {
  return entries_per_matrix(queries, padded_gt) * kBytesPerEntry <= kSharedBytesLimit;
}

}  // namespace

int64_t assignment_workspace_bytes(int64_t matrices, int64_t queries, int64_t padded_gt) {
  if (fits_in_shared(queries, padded_gt)) return 0;
  return matrices * entries_per_matrix(queries, padded_gt) * kBytesPerEntry;
}

int solve_assignments(const float* cost, const int64_t* gt_counts, int64_t matrices, int64_t queries,
                      int64_t padded_gt, int64_t* assignment, void* workspace, void* stream) {
  if (matrices == 0) return 0;
  const bool shared = fits_in_shared(queries, padded_gt);
  const size_t shared_bytes = shared ? static_cast<size_t>(entries_per_matrix(queries, padded_gt) * kBytesPerEntry) : 0;
  solve_kernel<<<static_cast<unsigned>(matrices), kThreads, shared_bytes, static_cast<cudaStream_t>(stream)>>>(
      cost, gt_counts, static_cast<int>(queries), static_cast<int>(padded_gt), assignment,
      shared ? nullptr : static_cast<char*>(workspace));
  return static_cast<int>(cudaGetLastError());
}

const char* assignment_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::detr::fused
