#pragma once
// The ABI stamp: what a piece of code was compiled against. A plugin exports its stamp as a
// plain C string and the host compares it with its own before touching any C++ type of the
// plugin. The stamp is a macro, not a function, on purpose: an inline function would be
// merged by the dynamic linker with the host's copy and report the host's build instead of
// the plugin's.
//
// Fields: the SDK ABI version, the LibTorch version, and the C++ library ABI (libstdc++'s dual
// ABI changes std::string and std::list layouts, which cross the boundary).

#include <torch/version.h>  // a tiny header: just the version macros

// Any standard header defines _GLIBCXX_USE_CXX11_ABI (through <bits/c++config.h>). Without
// one, a plugin whose first include is this header would misreport its own ABI.
#include <cstddef>

#include "libreyolo/sdk/version.hpp"

#define LIBREYOLO_ABI_STRINGIFY_(x) #x
#define LIBREYOLO_ABI_STRINGIFY(x) LIBREYOLO_ABI_STRINGIFY_(x)

#if defined(_LIBCPP_VERSION)
#define LIBREYOLO_ABI_CXX_LIBRARY "libc++"
#elif defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI
#define LIBREYOLO_ABI_CXX_LIBRARY "libstdc++-cxx11"
#else
#define LIBREYOLO_ABI_CXX_LIBRARY "libstdc++-pre-cxx11"
#endif

#define LIBREYOLO_ABI_STAMP                                                       \
  "sdk-abi=" LIBREYOLO_ABI_STRINGIFY(LIBREYOLO_SDK_ABI_VERSION) ";torch=" TORCH_VERSION \
  ";cxx-abi=" LIBREYOLO_ABI_CXX_LIBRARY
