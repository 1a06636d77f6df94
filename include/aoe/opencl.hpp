// The OpenCL component: Runner<device::OpenCL> and what describes a kernel and a device.
// Link aoe::opencl (CMake) or the `aoe_opencl` dependency (Meson); not part of <aoe.hpp>.
#ifndef AOE_OPENCL_HPP
#define AOE_OPENCL_HPP

#include "aoe/measure/opencl/convolution.hpp"
#include "aoe/measure/opencl/device.hpp"
#include "aoe/measure/opencl/gemm.hpp"
#include "aoe/measure/opencl/kernel.hpp"
#include "aoe/measure/opencl/opencl_error.hpp"
#include "aoe/measure/opencl/opencl_runner.hpp"

#endif  // AOE_OPENCL_HPP
