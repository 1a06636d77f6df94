// GPUs described without the GPU: the properties the driver reports for a known model, for
// planning a space (its constraints read the device's limits) on a machine that does not have
// it, e.g. to hand the space to another tuner or to test constraints.
#ifndef AOE_MEASURE_CUDA_KNOWN_DEVICES_HPP
#define AOE_MEASURE_CUDA_KNOWN_DEVICES_HPP

#include "aoe/measure/cuda/device.hpp"

namespace aoe::cuda {

/// An NVIDIA H100 80GB HBM3 (SXM5), compute capability 9.0, as cuDeviceGetAttribute reports it:
/// 132 multiprocessors, 1024 threads and 64 K registers per block, 48 KiB of shared memory per
/// block (227 KiB opted in, 228 KiB per multiprocessor), 50 MiB of L2 (NVIDIA H100 Tensor Core
/// GPU datasheet; CUDA C++ Programming Guide, compute capability 9.0).
[[nodiscard]] inline DeviceInfo h100_sxm() {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.compute_major = 9;
  d.compute_minor = 0;
  d.multiprocessors = 132;
  d.max_threads_per_block = 1024;
  d.shared_memory_per_block = 48 * 1024;
  d.shared_memory_per_block_optin = 227 * 1024;
  d.shared_memory_per_multiprocessor = 228 * 1024;
  d.registers_per_block = 65536;
  d.registers_per_multiprocessor = 65536;
  d.l2_bytes = 50 * 1024 * 1024;
  d.global_memory_bytes = 80ULL * 1024 * 1024 * 1024;
  return d;
}

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_KNOWN_DEVICES_HPP
