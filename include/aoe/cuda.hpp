// The CUDA component: Runner<device::Cuda> (NVRTC and the driver API), what describes a kernel
// and a GPU, and the project's own CUDA kernels. Link aoe::cuda (CMake) or the `aoe_cuda`
// dependency (Meson); not part of <aoe.hpp>. docs/cuda.md.
#ifndef AOE_CUDA_HPP
#define AOE_CUDA_HPP

#include "aoe/measure/cuda/convolution.hpp"
#include "aoe/measure/cuda/cuda_error.hpp"
#include "aoe/measure/cuda/cuda_runner.hpp"
#include "aoe/measure/cuda/device.hpp"
#include "aoe/measure/cuda/driver_api.hpp"
#include "aoe/measure/cuda/driver_library.hpp"
#include "aoe/measure/cuda/gemm.hpp"
#include "aoe/measure/cuda/gpu_settings.hpp"
#include "aoe/measure/cuda/kernel.hpp"
#include "aoe/measure/cuda/known_devices.hpp"
#include "aoe/measure/cuda/nvml.hpp"
#include "aoe/measure/cuda/nvrtc_compiler.hpp"

#endif  // AOE_CUDA_HPP
