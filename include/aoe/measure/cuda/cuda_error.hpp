// The driver API's error codes as text, and which of them poison a context.
#ifndef AOE_MEASURE_CUDA_CUDA_ERROR_HPP
#define AOE_MEASURE_CUDA_CUDA_ERROR_HPP

#include "aoe/measure/cuda/driver_api.hpp"

#include <cuda.h>

#include <string>

namespace aoe::cuda {

/// "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered": the driver's
/// name and description of `result`.
[[nodiscard]] inline std::string error_name(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.get_error_name != nullptr) (void)api.get_error_name(result, &name);
  if (api.get_error_string != nullptr) (void)api.get_error_string(result, &text);
  std::string out = name != nullptr ? name : "CUDA error";
  out += " (" + std::to_string(static_cast<int>(result)) + ")";
  if (text != nullptr) out += std::string(": ") + text;
  return out;
}

/// Whether `result` leaves the context unusable (every later call fails the same way): the
/// faults of a kernel, which the driver reports as sticky errors. The runner then replaces
/// the context.
[[nodiscard]] constexpr bool poisons_context(CUresult result) noexcept {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED: return true;
    default: return false;
  }
}

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_CUDA_ERROR_HPP
