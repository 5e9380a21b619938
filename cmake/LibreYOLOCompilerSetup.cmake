# Compiler policy shared by every target of the project: C++17, PIC everywhere (the SDK and the
# family plugins are shared libraries and static core code ends up beside them), warnings,
# and ccache when it is installed (2-core machines rebuild LibTorch-heavy code often).

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

find_program(LIBREYOLO_CCACHE ccache)
if(LIBREYOLO_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${LIBREYOLO_CCACHE}")
endif()

# Warnings for our own targets only (LibTorch's headers are included as SYSTEM).
function(libreyolo_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  endif()
endfunction()

# Precompiled <torch/torch.h> for targets whose translation units nearly all use LibTorch: the
# SDK and every plugin's network library. Measured on the 2-core machine (2026-12-01, GCC 12,
# Debian's LibTorch 1.13): the precompiled header is 570 MB and loading it costs ~6.5 s of CPU
# per translation unit, while parsing <torch/torch.h> costs ~10 s more than that (a network
# file: 26.6 s without, 16.3 s with). A torch-free file pays the 6.5 s for nothing (0.9 s
# without, 7.3 s with), and more than half of core's and the tests' files are torch-free, so
# those targets compile without it.
option(LIBREYOLO_USE_PCH "Precompile <torch/torch.h> for LibTorch-heavy targets" ON)
if(LIBREYOLO_CCACHE AND LIBREYOLO_USE_PCH)
  # ccache can only reuse precompiled-header builds with these sloppiness settings.
  set(CMAKE_CXX_COMPILER_LAUNCHER
      "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;${LIBREYOLO_CCACHE}")
endif()
function(libreyolo_use_torch_pch target)
  if(LIBREYOLO_USE_PCH)
    target_precompile_headers(${target} PRIVATE <torch/torch.h>)
  endif()
endfunction()

# The plugins' static network and criterion libraries all compile with the same flags (static,
# position-independent, hidden visibility), so they share one precompiled header: the first
# built asks for it, the others reuse it. Each .gch costs ~43 s of CPU on the 2-core machine, six
# of them about four minutes of a cold CI build. A library whose flags ever differ gets GCC's
# invalid-PCH warning (-Winvalid-pch) and parses the header itself: slower, never wrong.
function(libreyolo_use_plugin_torch_pch target)
  if(NOT LIBREYOLO_USE_PCH)
    return()
  endif()
  get_property(origin GLOBAL PROPERTY LIBREYOLO_PLUGIN_PCH_ORIGIN)
  if(origin)
    target_precompile_headers(${target} REUSE_FROM ${origin})
  else()
    target_precompile_headers(${target} PRIVATE <torch/torch.h>)
    set_property(GLOBAL PROPERTY LIBREYOLO_PLUGIN_PCH_ORIGIN ${target})
  endif()
endfunction()
