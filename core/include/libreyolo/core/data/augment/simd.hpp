#pragma once
// LIBREYOLO_VECTOR_CLONES in front of a function compiles it three times, for AVX2, SSE4.1 and
// the baseline target, and the dynamic loader picks one for the CPU it runs on (function
// multiversioning: GCC, and Clang >= 14, on x86-64 glibc). Elsewhere it is empty and the
// function is built once, for the target the build asks for.
//
// For loops left to the auto-vectoriser: baseline x86-64 stops at SSE2, which has no 32-bit
// lane multiply, min / max or byte shuffle, so such loops vectorise poorly there. SSE4.1 has
// them, AVX2 also doubles the lanes, and the build's minimum CPU stays the same.

#include <cstdint>  // defines __GLIBC__ on glibc

#if defined(__x86_64__) && defined(__GLIBC__) && \
    (defined(__clang__) ? __clang_major__ >= 14 : defined(__GNUC__))
#define LIBREYOLO_VECTOR_CLONES __attribute__((target_clones("avx2", "sse4.1", "default")))
#else
#define LIBREYOLO_VECTOR_CLONES
#endif
