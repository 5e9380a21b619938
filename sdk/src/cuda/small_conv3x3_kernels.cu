// Launchers of the small-channel 3x3 convolution (small_conv3x3_kernels.hpp): the band heights and
// the shared memory each kernel needs. Two launches a pass at most: the kernels read the weight
// in its stored layout and the weight gradient's last block casts it (the thirty-fourth session
// measured the separate preparation and cast launches as part of what the step lost).
#include <cuda_runtime.h>

#include <algorithm>

#include "multiprocessors.cuh"
#include "small_conv3x3_device.cuh"
#include "small_conv3x3_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

// A band's pixels (multiples of 16 after rounding up to whole rows): the forward's between 64 and
// 160, smaller where the batch is small, so that its grid has about four blocks per multiprocessor
// (the first version's fixed 160 gave a 20 x 20 map 48 blocks on 132 multiprocessors). The weight
// gradient's bands are sized as if one block per multiprocessor took them all (64 to 320 pixels),
// and four blocks per multiprocessor walk them, each adding its sums atomically once: the
// thirty-third session's sweep (tests/tools/small_conv_probe.cu, H100) found this at or near the
// best of the band heights and grids it tried for four of YOLOv9's five shapes (one block per
// multiprocessor took up to twice as long; a block per band, up to 1.8 times).
constexpr int kForwardPixelsMost = 160, kForwardPixelsLeast = 64, kForwardBlocksPerSm = 4;
constexpr int kGradPixelsMost = 320, kGradPixelsLeast = 64, kGradBandsPerSm = 1, kGradBlocksPerSm = 4;
// Copies of the weight gradient's float32 sums the blocks spread their atomic adds over (block b
// adds into copy b % kGradReplicas). One, as measured so far; the probe's sweep tries more.
constexpr int kGradReplicas = 1;
constexpr size_t kMostSharedBytes = 96 * 1024;

int rows_for(int64_t width, int target) {
  int rows = std::max<int>(1, static_cast<int>(target / width));
  while (rows * width % 16 != 0) ++rows;
  return rows;
}

int64_t padded(int64_t channels) { return (channels + 15) / 16 * 16; }

size_t forward_bytes(const SmallConvShape& s, int rows) {
  return ((rows + 2) * (s.width + 2) * padded(s.channels) + 9 * padded(s.channels) * padded(s.channels)) *
         sizeof(__half);
}

size_t grad_bytes(const SmallConvShape& s, int rows) {
  return ((rows + 2) * (s.width + 2) * s.channels + rows * s.width * padded(s.channels)) * sizeof(__half);
}

// Rows per band: the band that spreads the batch's pixels over `blocks` bands, within [least, most].
int rows_spreading(const SmallConvShape& s, int64_t blocks, int least, int most) {
  const int64_t share = s.batch * s.height * s.width / std::max<int64_t>(1, blocks);
  return rows_for(s.width, static_cast<int>(std::clamp<int64_t>(share, least, most)));
}

int forward_rows(const SmallConvShape& s) {
  return rows_spreading(s, int64_t{kForwardBlocksPerSm} * multiprocessors(), kForwardPixelsLeast, kForwardPixelsMost);
}

int grad_rows(const SmallConvShape& s) {
  return rows_spreading(s, int64_t{kGradBandsPerSm} * multiprocessors(), kGradPixelsLeast, kGradPixelsMost);
}

// Once per kernel (a static per instantiation), outside any graph capture in practice (the first
// step runs eagerly): the most shared memory any shape of small_conv3x3_fits may ask.
template <auto Kernel>
cudaError_t allow_most_shared() {
  static const cudaError_t allowed =
      cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kMostSharedBytes));
  return allowed;
}

// A block per band of `rows` output rows, per image.
dim3 band_grid(const SmallConvShape& s, int rows) {
  return dim3(static_cast<unsigned>((s.height + rows - 1) / rows), static_cast<unsigned>(s.batch));
}

// The probe (tests/tools/small_conv_probe.cu) calls these two directly to try other band sizes
// and grids; small_conv3x3_forward, small_conv3x3_input_grad and small_conv3x3_weight_grad pass
// the choices above.
template <int CH, bool kInputGradient>
int launch_forward(const SmallConvShape& s, const __half* x, const __half* weight, __half* y, cudaStream_t stream,
                   int rows) {
  const size_t bytes = forward_bytes(s, rows);
  if (bytes > kMostSharedBytes || rows * s.width % 16 != 0) return static_cast<int>(cudaErrorInvalidValue);
  constexpr auto kernel = small_conv::conv3x3_forward<CH, kInputGradient>;
  if (const auto allowed = allow_most_shared<kernel>()) return static_cast<int>(allowed);
  const dim3 grid = band_grid(s, rows);
  const int threads = 32 * std::max(1, std::min(8, static_cast<int>(rows * s.width / 16)));
  kernel<<<grid, threads, bytes, stream>>>(x, weight, y, static_cast<int>(s.height), static_cast<int>(s.width), rows);
  return static_cast<int>(cudaGetLastError());
}

// `blocks` blocks walking all bands of `rows` rows, adding into `replicas` copies of the sums (the
// work buffer: the copies, 9 * C * C floats each, then the arrival count, zeroed by the caller).
template <int CH>
int launch_weight_grad(const SmallConvShape& s, const __half* x, const __half* grad_y, float* work,
                       __half* grad_weight, cudaStream_t stream, int rows, int64_t blocks, int replicas) {
  constexpr int kCP = (CH + 15) / 16 * 16;
  const size_t bytes = grad_bytes(s, rows);
  if (bytes > kMostSharedBytes || rows * s.width % 16 != 0) return static_cast<int>(cudaErrorInvalidValue);
  constexpr auto kernel = small_conv::conv3x3_weight_grad<CH, kCP>;
  if (const auto allowed = allow_most_shared<kernel>()) return static_cast<int>(allowed);
  const int64_t per_image = (s.height + rows - 1) / rows, bands = per_image * s.batch;
  const auto grid = static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, bands));
  auto* arrivals = reinterpret_cast<unsigned*>(work + replicas * 9 * CH * CH);
  kernel<<<grid, 32 * small_conv::kWeightGradWarps, bytes, stream>>>(
      x, grad_y, work, arrivals, grad_weight, static_cast<int>(s.height), static_cast<int>(s.width), CH, rows,
      static_cast<int>(per_image), static_cast<int>(bands), replicas);
  return static_cast<int>(cudaGetLastError());
}

// The forward or the input gradient at the launchers' band height.
template <bool kInputGradient>
int convolve(const SmallConvShape& s, const void* x, const void* weight, void* y, void* stream) {
  const auto* in = static_cast<const __half*>(x);
  const auto* w = static_cast<const __half*>(weight);
  auto* out = static_cast<__half*>(y);
  auto* st = static_cast<cudaStream_t>(stream);
  const int rows = forward_rows(s);
  switch (s.channels) {
    case 16: return launch_forward<16, kInputGradient>(s, in, w, out, st, rows);
    case 24: return launch_forward<24, kInputGradient>(s, in, w, out, st, rows);
    case 32: return launch_forward<32, kInputGradient>(s, in, w, out, st, rows);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

}  // namespace

bool small_conv3x3_fits(const SmallConvShape& s) {
  const bool channels = s.channels == 16 || s.channels == 24 || s.channels == 32;
  return channels && s.batch > 0 && s.batch <= 65535 && s.height > 0 && s.width > 0 &&
         s.batch * s.height < (int64_t{1} << 31) &&  // the weight gradient's band count fits an int
         forward_bytes(s, rows_for(s.width, kForwardPixelsMost)) <= kMostSharedBytes &&
         grad_bytes(s, rows_for(s.width, kGradPixelsMost)) <= kMostSharedBytes;
}

// The sums' copies, then one float32-sized slot for the arrival count.
int64_t small_conv3x3_work_elements(const SmallConvShape& s) {
  return kGradReplicas * 9 * s.channels * s.channels + 1;
}

int small_conv3x3_forward(const SmallConvShape& s, const void* x, const void* weight, void* y, void* stream) {
  return convolve<false>(s, x, weight, y, stream);
}

int small_conv3x3_input_grad(const SmallConvShape& s, const void* grad_y, const void* weight, void* grad_x,
                             void* stream) {
  return convolve<true>(s, grad_y, weight, grad_x, stream);
}

int small_conv3x3_weight_grad(const SmallConvShape& s, const void* x, const void* grad_y, float* work,
                              void* grad_weight, void* stream) {
  auto* st = static_cast<cudaStream_t>(stream);
  const int64_t total = small_conv3x3_work_elements(s);
  if (const auto e = cudaMemsetAsync(work, 0, total * sizeof(float), st)) return static_cast<int>(e);
  const auto* in = static_cast<const __half*>(x);
  const auto* gy = static_cast<const __half*>(grad_y);
  const int rows = grad_rows(s);
  const int64_t blocks = int64_t{kGradBlocksPerSm} * multiprocessors();
  auto* out = static_cast<__half*>(grad_weight);
  switch (s.channels) {
    case 16: return launch_weight_grad<16>(s, in, gy, work, out, st, rows, blocks, kGradReplicas);
    case 24: return launch_weight_grad<24>(s, in, gy, work, out, st, rows, blocks, kGradReplicas);
    case 32: return launch_weight_grad<32>(s, in, gy, work, out, st, rows, blocks, kGradReplicas);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

const char* small_conv3x3_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
