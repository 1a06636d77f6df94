// `aoe --device=ascend` (builds with AOE_WITH_ASCEND only; otherwise this file is empty).
#include "ascend_device.hpp"

#if defined(AOE_WITH_ASCEND)

#include "cli.hpp"
#include <aoe/measure/ascend/ascend_backend.hpp>
#include <aoe/measure/ascend/ascend_runner.hpp>
#include <aoe/measure/ascend/kernel_catalog.hpp>
#include <aoe/measure/ascend/rank_device.hpp>
#include <aoe/measure/ascend/real_acl_api.hpp>

#if defined(AOE_WITH_MPI)
#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#endif

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace aoe_tool {

namespace {

/// The device of `device` (ASCEND_DEVICE_ID, plus the node-local rank under mpirun) opened,
/// with the kernel catalogue (`catalogue`: the file read, empty: none).
aoe::Result<aoe::AscendBackend> open_backend(const AscendDeviceOptions& device,
                                             const aoe::GetEnv& getenv,
                                             const std::string& impl_mode,
                                             std::filesystem::path& catalogue) {
  catalogue = device.kernels;
  if (catalogue.empty()) {
    if (auto v = getenv("AOE_ASCEND_KERNELS"); v && !v->empty()) catalogue = *v;
  }
  aoe::ascend::KernelCatalog kernels;
  if (!catalogue.empty()) {
    auto loaded = aoe::ascend::KernelCatalog::load(catalogue);
    if (!loaded) return loaded.error();
    kernels = std::move(*loaded);
  }
  aoe::AscendOptions options{.device_id = device.device_id};
  if (device.run_loop) options.repetitions = static_cast<std::size_t>(*device.run_loop);
  if (device.local_rank) {
    auto ranked = aoe::ascend::rank_device_options(std::move(options), *device.local_rank);
    if (!ranked) return ranked.error();
    options = std::move(*ranked);
  }
  auto runner = aoe::Runner<aoe::device::Ascend>::open(aoe::ascend::real_acl_api(), options);
  if (!runner) return runner.error();
  return aoe::AscendBackend(std::move(*runner), std::move(kernels),
                            aoe::AscendBackendOptions{.impl_mode = impl_mode});
}

std::string describe(const aoe::AscendBackend& backend, const std::filesystem::path& catalogue) {
  const auto& r = backend.runner();
  std::string s = "Ascend device " + std::to_string(r.device_id()) + " (" + r.soc_name() + ", " +
                  std::to_string(r.ai_core_count()) + " AI Cores); ";
  if (backend.kernels().kernels.empty()) {
    s += "no Ascend C kernel catalogue (AOE_ASCEND_KERNELS): Schedule is not tuned";
  } else {
    s += "kernel catalogue " + catalogue.string() + " (" +
         std::to_string(backend.kernels().kernels.size()) + " kernels)";
  }
  return s;
}

}  // namespace

aoe::Result<aoe::OpatJobResult> run_opat_on_ascend(const aoe::Graph& graph,
                                                   aoe::KnowledgeBank& bank,
                                                   aoe::OpatOptions options,
                                                   const AscendDeviceOptions& device,
                                                   const aoe::GetEnv& getenv, std::ostream& out,
                                                   aoe::OpatJobResult* partial) {
  std::filesystem::path catalogue;
  auto backend = open_backend(device, getenv, options.impl_mode, catalogue);
  if (!backend) return backend.error();
  out << "aoe: " << describe(*backend, catalogue) << "\n";
  options.scope = backend->scope();
  return aoe::run_opat(graph, *backend, bank, options, partial);
}

aoe::Result<NpuStep> open_npu_steps(const AscendDeviceOptions& device, const aoe::GetEnv& getenv,
                                    std::string& description) {
  std::filesystem::path catalogue;
  // The tool tunes with OpatOptions' impl mode (rank 0's run_opat_on_ascend does the same).
  auto backend = open_backend(device, getenv, aoe::OpatOptions{}.impl_mode, catalogue);
  if (!backend) return backend.error();
  description = describe(*backend, catalogue);
  auto shared = std::make_shared<aoe::AscendBackend>(std::move(*backend));
  return NpuStep(
      [shared](const aoe::OperatorDesc& op, const aoe::OpatStepRequest& q,
               const std::atomic<bool>* stop) { return aoe::opat_step(*shared, op, q, stop); });
}

#if defined(AOE_WITH_MPI)
int open_rank_npus(const boost::mpi::communicator& world, int local_rank,
                   std::optional<int> run_loop, const aoe::GetEnv& getenv, bool verbose,
                   std::ostream& out, std::ostream& err, NpuStep& npu) {
  // (opened, what: the device or the error); rank 0 opens its own in run_opat_on_ascend.
  std::pair<bool, std::string> mine{true, ""};
  if (world.rank() != 0) {
    auto env = aoe::read_environment(getenv);
    if (!env) {
      mine = {false, env.error().message};
    } else {
      auto opened = open_npu_steps(
          {.device_id = env->ascend_device_id, .local_rank = local_rank, .run_loop = run_loop},
          getenv, mine.second);
      if (opened) {
        npu = std::move(*opened);
      } else {
        mine = {false, opened.error().message};
      }
    }
  }
  std::vector<std::pair<bool, std::string>> all;
  boost::mpi::all_gather(world, mine, all);  // every rank decides alike, no rank waits alone
  bool ok = true;
  for (std::size_t r = 1; r < all.size(); ++r) {
    ok = ok && all[r].first;
    if (world.rank() != 0) continue;
    if (!all[r].first) {
      err << "aoe: --device=ascend: rank " << r << ": " << all[r].second << "\n";
    } else if (verbose) {
      out << "aoe: rank " << r << ": " << all[r].second << "\n";
    }
  }
  if (!ok) npu = nullptr;  // closes this rank's device before the exit
  return ok ? exit_success : exit_device;
}
#endif

}  // namespace aoe_tool

#endif  // AOE_WITH_ASCEND
