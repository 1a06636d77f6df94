// `mpirun -np N aoe ...` (docs/distributed.md): rank 0 runs the job and writes every output, the
// other ranks run its tuning steps. Built with aoe::mpi only (AOE_WITH_MPI); without it `aoe`
// started as one of several ranks exits 2 (cli.cpp).
#ifndef AOE_TOOLS_AOE_DISTRIBUTED_HPP
#define AOE_TOOLS_AOE_DISTRIBUTED_HPP

#include "command.hpp"
#include <aoe/jobs/gdat/gdat_job.hpp>
#include <aoe/jobs/opat/opat_job.hpp>
#include <aoe/jobs/sgat/sgat_job.hpp>
#include <aoe/measure/simulator/soc.hpp>

#include <functional>
#include <optional>
#include <vector>

namespace aoe_tool {

/// Where the jobs of this run execute their tuning steps (Io::executors; null: in process).
struct JobExecutors {
  aoe::StepExecutor<aoe::OpatStepRequest, aoe::StepOutcome> opat;
  aoe::StepExecutor<aoe::SgatStepRequest, aoe::StepOutcome> sgat;
  aoe::StepExecutor<aoe::GdatMeasureRequest, std::vector<aoe::Measurement>> gdat;
  /// Rank 0's node-local rank: `--device=ascend` opens ASCEND_DEVICE_ID plus it.
  int local_rank = 0;
};

/// Runs `job` as one of the ranks of an MPI job (`mpirun`, `srun`): starts MPI; rank 0 runs
/// `job` with Io::executors set, the others serve its tuning steps (their output discarded) and
/// set `worker`. `run_loop`: aoe.ini's RUN_LOOP for each rank's NPU (--device=ascend). Returns
/// the exit code. Only in builds with aoe::mpi.
[[nodiscard]] int run_ranks(const CommonOptions& common, const aoe::sim::Soc& soc,
                            std::optional<int> run_loop, const Io& io,
                            const std::function<int(const Io&)>& job, bool& worker);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_DISTRIBUTED_HPP
