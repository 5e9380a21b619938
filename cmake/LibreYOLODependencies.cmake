# Every third-party dependency, found once, with find_package. The same file serves Debian 12
# (LibTorch 1.13, CPU, Boost 1.74) and the GPU machine (LibTorch 2.11 + CUDA 13, NCCL).

find_package(Torch REQUIRED)
message(STATUS "LibreYOLO: LibTorch ${Torch_VERSION}")

# LibTorch's imported targets carry its include folders; mark them SYSTEM so our warnings
# flags do not drown in LibTorch's own warnings.
if(TARGET torch)
  get_target_property(_torch_includes torch INTERFACE_INCLUDE_DIRECTORIES)
  if(_torch_includes)
    set_target_properties(torch PROPERTIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${_torch_includes}")
  endif()
endif()

# CUDA and NCCL are used only when the LibTorch found was built with them.
set(LIBREYOLO_HAS_CUDA OFF)
if(TARGET torch_cuda)
  set(LIBREYOLO_HAS_CUDA ON)
  find_package(CUDAToolkit REQUIRED)
  find_path(LIBREYOLO_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_ROOT PATH_SUFFIXES include)
  find_library(LIBREYOLO_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ENV NCCL_ROOT PATH_SUFFIXES lib lib64)
  if(LIBREYOLO_NCCL_INCLUDE_DIR AND LIBREYOLO_NCCL_LIBRARY)
    message(STATUS "LibreYOLO: NCCL ${LIBREYOLO_NCCL_LIBRARY}")
  else()
    message(STATUS "LibreYOLO: NCCL not found; multi-GPU will use Gloo")
  endif()
  # The SDK's fused kernels (sdk/src/detr/cuda/, docs/fused-kernels.md) need nvcc; OFF (or no
  # nvcc) builds the SDK with the composed PyTorch ops only, as the CPU build is.
  option(LIBREYOLO_CUDA_KERNELS "Compile the SDK's fused CUDA kernels (needs nvcc)" ON)
  if(LIBREYOLO_CUDA_KERNELS)
    if(NOT CMAKE_CUDA_COMPILER AND CUDAToolkit_NVCC_EXECUTABLE)
      set(CMAKE_CUDA_COMPILER "${CUDAToolkit_NVCC_EXECUTABLE}")
    endif()
    enable_language(CUDA)
  endif()
endif()
set(LIBREYOLO_HAS_CUDA_KERNELS OFF)
if(LIBREYOLO_HAS_CUDA AND LIBREYOLO_CUDA_KERNELS)
  set(LIBREYOLO_HAS_CUDA_KERNELS ON)
endif()
if(LIBREYOLO_REQUIRE_CUDA AND NOT LIBREYOLO_HAS_CUDA)
  message(FATAL_ERROR "LIBREYOLO_REQUIRE_CUDA is ON (the 'cuda' preset) but the LibTorch found "
                      "(${Torch_DIR}) was built without CUDA. Point CMAKE_PREFIX_PATH at a CUDA "
                      "LibTorch, e.g. python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'.")
endif()
message(STATUS "LibreYOLO: CUDA ${LIBREYOLO_HAS_CUDA}, fused CUDA kernels ${LIBREYOLO_HAS_CUDA_KERNELS}")

# Boost: CONFIG packages only (CMake 4 removed FindBoost). program_options is compiled;
# Boost.DLL is header-only and uses std::filesystem instead of Boost.Filesystem.
find_package(Boost 1.74 CONFIG REQUIRED COMPONENTS program_options)

find_package(yaml-cpp CONFIG REQUIRED)
if(TARGET yaml-cpp::yaml-cpp)
  set(LIBREYOLO_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(LIBREYOLO_YAML_TARGET yaml-cpp)  # yaml-cpp 0.7 (Debian 12) names its target this way
endif()

find_package(spdlog CONFIG REQUIRED)
find_package(JPEG REQUIRED)
find_package(PNG REQUIRED)
find_package(Threads REQUIRED)

# libcurl downloads weights by name (resume, TLS, redirects). Optional: without it the host
# builds and runs, and says where to put a weight file it would have downloaded.
set(LIBREYOLO_HAS_CURL OFF)
if(LIBREYOLO_DOWNLOADS)
  find_package(CURL)
  if(CURL_FOUND)
    set(LIBREYOLO_HAS_CURL ON)
    message(STATUS "LibreYOLO: weights downloader: libcurl ${CURL_VERSION_STRING}")
  else()
    message(WARNING "LibreYOLO: libcurl not found (Debian/Ubuntu: apt install libcurl4-openssl-dev): "
                    "building without the weights downloader; model=LibreYOLO9s.pt then needs the file "
                    "in the working folder, $LIBREYOLO_WEIGHTS or ~/.cache/libreyolo. "
                    "-DLIBREYOLO_DOWNLOADS=OFF silences this.")
  endif()
else()
  message(STATUS "LibreYOLO: weights downloader off (LIBREYOLO_DOWNLOADS=OFF)")
endif()
# OpenCV, optional and only two of its modules: core (cv::Mat) and imgproc (cv::rectangle,
# cv::putText) draw the boxes `predict` writes (core/src/draw/). Never imgcodecs: on Debian it
# pulls GDAL and a dozen image libraries; our own libjpeg-turbo / libpng code decodes and
# encodes. Debian ships no OpenCVConfig.cmake with libopencv-core-dev / libopencv-imgproc-dev
# (only libopencv-dev, the whole of OpenCV, has it), so the headers and the two libraries are
# also looked for directly. Without them the build still succeeds; predict save=true then says
# what to install. LIBREYOLO_REQUIRE_OPENCV (on in the cpu preset, which CI builds) turns a
# missing OpenCV into a configure error so that the drawing tests cannot silently go away.
# LIBREYOLO_WITH_OPENCV=OFF builds as if there were none (to test that build where OpenCV is).
set(LIBREYOLO_HAS_OPENCV OFF)
if(LIBREYOLO_WITH_OPENCV)
  find_package(OpenCV QUIET COMPONENTS core imgproc)
  if(OpenCV_FOUND)
    add_library(libreyolo_opencv INTERFACE IMPORTED)
    target_include_directories(libreyolo_opencv SYSTEM INTERFACE ${OpenCV_INCLUDE_DIRS})
    target_link_libraries(libreyolo_opencv INTERFACE opencv_core opencv_imgproc)
    set(LIBREYOLO_HAS_OPENCV ON)
  else()
    find_path(LIBREYOLO_OPENCV_INCLUDE_DIR opencv2/imgproc.hpp PATH_SUFFIXES opencv4)
    find_library(LIBREYOLO_OPENCV_CORE_LIBRARY opencv_core)
    find_library(LIBREYOLO_OPENCV_IMGPROC_LIBRARY opencv_imgproc)
    if(LIBREYOLO_OPENCV_INCLUDE_DIR AND LIBREYOLO_OPENCV_CORE_LIBRARY AND LIBREYOLO_OPENCV_IMGPROC_LIBRARY)
      add_library(libreyolo_opencv INTERFACE IMPORTED)
      target_include_directories(libreyolo_opencv SYSTEM INTERFACE ${LIBREYOLO_OPENCV_INCLUDE_DIR})
      target_link_libraries(libreyolo_opencv INTERFACE ${LIBREYOLO_OPENCV_IMGPROC_LIBRARY}
                                                       ${LIBREYOLO_OPENCV_CORE_LIBRARY})
      set(LIBREYOLO_HAS_OPENCV ON)
    endif()
  endif()
endif()
if(LIBREYOLO_REQUIRE_OPENCV AND NOT LIBREYOLO_HAS_OPENCV)
  message(FATAL_ERROR "LIBREYOLO_REQUIRE_OPENCV is ON (the 'cpu' preset) but OpenCV's core and imgproc "
                      "were not found. Install libopencv-core-dev and libopencv-imgproc-dev "
                      "(scripts/setup.sh does), or configure with -DLIBREYOLO_REQUIRE_OPENCV=OFF "
                      "to build without drawing (predict save=true is then refused).")
endif()
message(STATUS "LibreYOLO: OpenCV core+imgproc for drawing ${LIBREYOLO_HAS_OPENCV}")

if(LIBREYOLO_BUILD_TESTS)
  find_package(doctest CONFIG REQUIRED)
endif()
