#pragma once
// Tensor-core building blocks the SDK's convolution kernels share (small_conv3x3_device.cuh,
// image_conv3x3_device.cuh): the m16n8k16 float16 multiply-accumulate with float32 sums, ldmatrix
// (one instruction per set of 8x8 matrices instead of a load per register or per half) and
// asynchronous 16-byte copies into shared memory. No torch headers. Needs sm_80 or later.
#include <cuda_fp16.h>

#include <cstdint>

namespace libreyolo::sdk::fused::tensor_core {

__device__ __forceinline__ void mma16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ uint32_t shared_address(const __half* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ldmatrix: lane t names row t % 8 of 8x8 matrix t / 8 (16 bytes, 16-byte aligned); each lane
// receives, per matrix, row lane / 4's elements 2 * (lane % 4) and + 1 (.trans: that column's).
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const __half* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const __half* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}
// Two matrices: lanes 0-15 name the rows (the others' addresses are not read).
__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], const __half* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(shared_address(row)));
}
__device__ __forceinline__ void ldmatrix_x2_trans(uint32_t (&r)[2], const __half* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(shared_address(row)));
}

// 16 bytes from global to shared memory without staging them in registers (cp.async, sm_80+), so
// a thread has all its copies in flight at once instead of waiting out each load's latency (the
// loads were most of a small map's kernel time). `real` false writes zeros (source size 0; the
// address is then only named, never read). Completed by wait_for_copies.
__device__ __forceinline__ void copy16_async(void* shared_dst, const void* global_src, bool real) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(shared_dst))),
               "l"(global_src), "r"(real ? 16 : 0)
               : "memory");
}

// This thread's copies landed; the block's, after the __syncthreads that must follow.
__device__ __forceinline__ void wait_for_copies() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

}  // namespace libreyolo::sdk::fused::tensor_core
