// `aoe --device=ascend`: OPAT on a real NPU. Exists only in builds with the CANN toolkit
// (AOE_WITH_ASCEND, CMake option of the same name); without it this header declares nothing
// and ascend_device.cpp compiles to nothing. docs/ascend.md.
#ifndef AOE_TOOLS_AOE_ASCEND_DEVICE_HPP
#define AOE_TOOLS_AOE_ASCEND_DEVICE_HPP

#if defined(AOE_WITH_ASCEND)

#include <aoe/config/environment.hpp>
#include <aoe/core/error.hpp>
#include <aoe/graph/graph.hpp>
#include <aoe/jobs/opat/opat_job.hpp>
#include <aoe/repo/knowledge_bank.hpp>

#include <filesystem>
#include <iosfwd>

namespace aoe_tool {

/// What `--device=ascend` needs besides the OPAT options.
struct AscendDeviceOptions {
  int device_id = 0;  ///< aoe::Environment::ascend_device_id (ASCEND_DEVICE_ID)
  /// The Ascend C kernel catalogue (docs/ascend.md); empty: the environment variable
  /// AOE_ASCEND_KERNELS, and if that is unset too, none (Schedule is then tuned for no
  /// operator; Format and Impl still are).
  std::filesystem::path kernels{};
};

/// Opens NPU `device.device_id` with the real AscendCL (one tuner per device: Errc::busy if
/// another has it), reads the kernel catalogue, and runs aoe::run_opat on an
/// aoe::AscendBackend. `options.scope` is replaced by the device's (its SoC name and AI Core
/// count). Writes one line to `out` describing the device and the catalogue. Returns
/// run_opat's result (Errc::interrupted with `partial` set when options.stop was raised);
/// errors of the device (Errc::busy, Errc::device_error, Errc::invalid_argument, codes of
/// aoe::ascend::acl_category()) and of the catalogue (Errc::not_found, parse_error,
/// schema_error) name what failed.
[[nodiscard]] aoe::Result<aoe::OpatJobResult> run_opat_on_ascend(
    const aoe::Graph& graph, aoe::KnowledgeBank& bank, aoe::OpatOptions options,
    const AscendDeviceOptions& device, const aoe::GetEnv& getenv, std::ostream& out,
    aoe::OpatJobResult* partial = nullptr);

}  // namespace aoe_tool

#endif  // AOE_WITH_ASCEND

#endif  // AOE_TOOLS_AOE_ASCEND_DEVICE_HPP
