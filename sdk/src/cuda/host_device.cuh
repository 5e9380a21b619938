#pragma once
// Marks code that nvcc compiles for the device and the host, and a plain C++ compiler for the
// host alone: the kernels' per-item code that unit tests run on the CPU (simota_*_device.cuh).
#ifdef __CUDACC__
#define LIBREYOLO_HOST_DEVICE __host__ __device__
#else
#define LIBREYOLO_HOST_DEVICE
#endif
