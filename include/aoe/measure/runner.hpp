// One template for every device: Runner<device::X> is how configurations are measured on X.
#ifndef AOE_MEASURE_RUNNER_HPP
#define AOE_MEASURE_RUNNER_HPP

namespace aoe {

/// Device tags. Each runner is a specialisation of `Runner` for one of them.
namespace device {
struct Host {};       ///< this CPU: times a user's C++ callable (measure/host_runner.hpp)
struct Simulator {};  ///< the reference Ascend AI Core model (measure/simulator/)
struct Ascend {};     ///< a real NPU through AscendCL (measure/ascend/, needs CANN)
struct Replay {};     ///< recorded measurements (measure/replay/)
struct OpenCL {};     ///< any OpenCL device (measure/opencl/, needs an OpenCL driver)
struct Cuda {};       ///< an NVIDIA GPU through NVRTC and the driver API (measure/cuda/)
}  // namespace device

/// Primary template, never defined: include the header of the device you measure on.
template <class Device>
class Runner;

}  // namespace aoe

#endif  // AOE_MEASURE_RUNNER_HPP
