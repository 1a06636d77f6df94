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

#include <atomic>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>

#if defined(AOE_WITH_MPI)
#include <boost/mpi/communicator.hpp>
#endif

namespace aoe_tool {

/// What `--device=ascend` needs besides the OPAT options.
struct AscendDeviceOptions {
  int device_id = 0;  ///< aoe::Environment::ascend_device_id (ASCEND_DEVICE_ID)
  /// The Ascend C kernel catalogue (docs/ascend.md); empty: the environment variable
  /// AOE_ASCEND_KERNELS, and if that is unset too, none (Schedule is then tuned for no
  /// operator; Format and Impl still are).
  std::filesystem::path kernels{};
  /// Under mpirun: the node-local rank (aoe::mpi::node_rank); the device is then
  /// `device_id` + it (aoe::ascend::rank_device_options, docs/distributed.md#devices-per-rank).
  std::optional<int> local_rank{};
  /// aoe.ini's RUN_LOOP (aoe::Environment::run_loop): timed runs per candidate
  /// (aoe::AscendOptions::repetitions); unset: the runner's default.
  std::optional<int> run_loop{};
};

/// Opens NPU `device.device_id` with the real AscendCL (one tuner per device: Errc::busy if
/// another has it), reads the kernel catalogue, and runs aoe::run_opat on an
/// aoe::AscendBackend. `options.scope` is replaced by the device's (its SoC name and AI Core
/// count). Writes one line to `out` describing the device and the catalogue. Returns
/// run_opat's result (Errc::interrupted with `partial` set when options.run.stop was raised);
/// errors of the device (Errc::busy, Errc::device_error, Errc::invalid_argument, codes of
/// aoe::ascend::acl_category()) and of the catalogue (Errc::not_found, parse_error,
/// schema_error) name what failed.
[[nodiscard]] aoe::Result<aoe::OpatJobResult> run_opat_on_ascend(
    const aoe::Graph& graph, aoe::KnowledgeBank& bank, aoe::OpatOptions options,
    const AscendDeviceOptions& device, const aoe::GetEnv& getenv, std::ostream& out,
    aoe::OpatJobResult* partial = nullptr);

/// One OPAT tuning step on an open NPU (aoe::opat_step on its aoe::AscendBackend).
using NpuStep = std::function<aoe::StepOutcome(
    const aoe::OperatorDesc&, const aoe::OpatStepRequest&, const std::atomic<bool>*)>;

/// Opens NPU `device.device_id` (+ `device.local_rank`) and the kernel catalogue as
/// run_opat_on_ascend does, for a rank that runs the steps rank 0 hands out. `description`
/// gets "Ascend device 1 (Ascend910B1, 24 AI Cores)". The errors of run_opat_on_ascend.
[[nodiscard]] aoe::Result<NpuStep> open_npu_steps(const AscendDeviceOptions& device,
                                                  const aoe::GetEnv& getenv,
                                                  std::string& description);

#if defined(AOE_WITH_MPI)
/// `aoe --device=ascend` under mpirun, on every rank of `world` before the job (collective):
/// each rank other than 0 opens its own NPU (ASCEND_DEVICE_ID + `local_rank`) into `npu`;
/// rank 0 opens its own later, in run_opat_on_ascend. If any rank cannot, rank 0 writes one
/// line per such rank to `err` ("aoe: --device=ascend: rank 2: ASCEND_DEVICE_ID=0 + node-local
/// rank 2 = device 2: this machine has 2 Ascend device(s), ...") and every rank returns
/// exit_device; otherwise exit_success, and rank 0 writes each rank's device to `out` when
/// `verbose`.
/// `run_loop`: aoe.ini's RUN_LOOP, as AscendDeviceOptions::run_loop.
[[nodiscard]] int open_rank_npus(const boost::mpi::communicator& world, int local_rank,
                                 std::optional<int> run_loop, const aoe::GetEnv& getenv,
                                 bool verbose, std::ostream& out, std::ostream& err, NpuStep& npu);
#endif

}  // namespace aoe_tool

#endif  // AOE_WITH_ASCEND

#endif  // AOE_TOOLS_AOE_ASCEND_DEVICE_HPP
