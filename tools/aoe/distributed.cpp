// `mpirun -np N aoe ...`: the ranks of a distributed job (docs/distributed.md). Compiles to
// nothing without aoe::mpi.
#include "distributed.hpp"

#if defined(AOE_WITH_MPI)

#include "model_input.hpp"
#if defined(AOE_WITH_ASCEND)
#include "ascend_device.hpp"
#endif
#include <aoe/graph/fusion.hpp>
#include <aoe/jobs/simulator_backend.hpp>
#include <aoe/mpi/job_executor.hpp>
#include <aoe/mpi/node_rank.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <map>
#include <optional>
#include <tuple>

namespace aoe_tool {

namespace {

/// A worker rank: runs the steps rank 0 hands out on its own copy of the model (read on the
/// first step) and its own simulator. A model it cannot read makes each step fail with that
/// error, which rank 0 reports for the operator or subgraph.
class Worker {
 public:
  Worker(const CommonOptions& common, const aoe::sim::Soc& soc, const std::atomic<bool>* stop)
      : common_(common), soc_(soc), backend_(soc, common.measure_latency), stop_(stop) {}

  aoe::StepOutcome opat(const aoe::OpatStepRequest& q) {
    const auto& ops = fused();
    if (q.op >= ops.size()) {
      throw aoe::Error(aoe::Errc::invalid_argument,
                       "operator " + std::to_string(q.op) + " is not in this rank's model");
    }
#if defined(AOE_WITH_ASCEND)
    if (npu) return npu(ops[q.op].op, q, stop_);  // --device=ascend: this rank's own NPU
#endif
    return aoe::opat_step(backend_, ops[q.op].op, q, stop_);
  }

#if defined(AOE_WITH_ASCEND)
  NpuStep npu;  ///< --device=ascend: open_rank_npus
#endif

  aoe::StepOutcome sgat(const aoe::SgatStepRequest& q) {
    const auto key = std::tuple{q.nonhomo_split, q.max_slices, q.min_kernels, q.max_kernels};
    auto it = subgraphs_.find(key);
    if (it == subgraphs_.end()) {
      double baseline_ms = 0;
      it = subgraphs_
               .emplace(key, aoe::detail::sgat_tasks(model(), soc_, aoe::sgat_task_options(q),
                                                     baseline_ms))
               .first;
    }
    if (q.subgraph >= it->second.size()) {
      throw aoe::Error(aoe::Errc::invalid_argument,
                       "subgraph " + std::to_string(q.subgraph) + " is not in this rank's model");
    }
    return aoe::sgat_step(it->second[q.subgraph], q, stop_);
  }

 private:
  const aoe::Graph& model() {
    if (!graph_) {
      auto g = load_model(common_);
      if (!g) throw aoe::Error(g.error());
      graph_ = std::move(*g);
      aoe::mpi::detail::Trace::get().event("loaded");
    }
    return *graph_;
  }
  const std::vector<aoe::FusedOperator>& fused() {
    if (!fused_) {
      fused_ = aoe::fuse(model());
      aoe::mpi::detail::Trace::get().event("fused");
    }
    return *fused_;
  }

  CommonOptions common_;
  aoe::sim::Soc soc_;
  aoe::SimulatorBackend backend_;
  const std::atomic<bool>* stop_;
  std::optional<aoe::Graph> graph_;
  std::optional<std::vector<aoe::FusedOperator>> fused_;
  std::map<std::tuple<bool, std::int64_t, std::uint64_t, std::uint64_t>,
           std::vector<aoe::detail::SgatTask>>
      subgraphs_;
};

}  // namespace

int run_ranks(const CommonOptions& common, const aoe::sim::Soc& soc,
              [[maybe_unused]] std::optional<int> run_loop, const Io& io,
              const std::function<int(const Io&)>& job, bool& worker) {
  // MPI calls come from this thread only; the measurement threads never make any.
  static boost::mpi::environment env(boost::mpi::threading::funneled);
  const boost::mpi::communicator world;
  worker = world.rank() != 0;
  {
    const aoe::GetEnv getenv = io.getenv != nullptr ? *io.getenv : aoe::process_getenv();
    const std::string dir = getenv("AOE_MPI_TRACE").value_or("");
    const std::string why = aoe::mpi::detail::Trace::get().open(dir, world.rank());
    if (!why.empty()) io.err << "aoe: warning: AOE_MPI_TRACE: " << why << "; no trace\n";
  }
  aoe::mpi::detail::Trace::get().event("started", world.rank());
  if (world.size() < 2) return job(io);
  const aoe::mpi::NodeRank node = aoe::mpi::node_rank(world);  // collective
  Worker w(common, soc, io.stop);
#if defined(AOE_WITH_ASCEND)
  if (common.device == "ascend") {  // each rank its own NPU: ASCEND_DEVICE_ID + node rank
    const int opened = open_rank_npus(world, node.rank, run_loop,
                                      io.getenv != nullptr ? *io.getenv : aoe::process_getenv(),
                                      common.verbosity() >= 2, io.out, io.err, w.npu);
    if (opened != exit_success) return opened;
  }
#endif
  if (worker) {
    aoe::mpi::serve_jobs(world, {.opat = [&](const aoe::OpatStepRequest& q) { return w.opat(q); },
                                 .sgat = [&](const aoe::SgatStepRequest& q) { return w.sgat(q); },
                                 .gdat =
                                     [](const aoe::GdatMeasureRequest& q) {
                                       if (!q.context)
                                         throw aoe::Error(aoe::Errc::invalid_argument,
                                                          "no GDAT model");
                                       return aoe::gdat_measure(*q.context, q.batch);
                                     }});
    return exit_success;
  }
  int code = exit_success;
  {
    const aoe::mpi::JobExecutor executor(world);  // the workers serve until it is destroyed
    const JobExecutors executors{executor.opat(), executor.sgat(), executor.gdat(), node.rank};
    Io rank0 = io;
    rank0.executors = &executors;
    if (common.verbosity() >= 2) {
      io.out << "aoe: " << world.size() << " MPI ranks: rank 0 plans and writes, every rank "
             << "tunes\n";
    }
    code = job(rank0);
    aoe::mpi::detail::Trace::get().event("job_end");
  }
  return code;
}

}  // namespace aoe_tool

#endif  // AOE_WITH_MPI
