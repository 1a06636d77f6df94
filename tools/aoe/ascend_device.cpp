// `aoe --device=ascend` (builds with AOE_WITH_ASCEND only; otherwise this file is empty).
#include "ascend_device.hpp"

#if defined(AOE_WITH_ASCEND)

#include <aoe/measure/ascend/ascend_backend.hpp>
#include <aoe/measure/ascend/ascend_runner.hpp>
#include <aoe/measure/ascend/kernel_catalog.hpp>
#include <aoe/measure/ascend/real_acl_api.hpp>

#include <ostream>
#include <string>
#include <utility>

namespace aoe_tool {

aoe::Result<aoe::OpatJobResult> run_opat_on_ascend(const aoe::Graph& graph,
                                                   aoe::KnowledgeBank& bank,
                                                   aoe::OpatOptions options,
                                                   const AscendDeviceOptions& device,
                                                   const aoe::GetEnv& getenv, std::ostream& out,
                                                   aoe::OpatJobResult* partial) {
  std::filesystem::path catalogue = device.kernels;
  if (catalogue.empty()) {
    if (auto v = getenv("AOE_ASCEND_KERNELS"); v && !v->empty()) catalogue = *v;
  }
  aoe::ascend::KernelCatalog kernels;
  if (!catalogue.empty()) {
    auto loaded = aoe::ascend::KernelCatalog::load(catalogue);
    if (!loaded) return loaded.error();
    kernels = std::move(*loaded);
  }
  auto runner = aoe::Runner<aoe::device::Ascend>::open(
      aoe::ascend::real_acl_api(), aoe::AscendOptions{.device_id = device.device_id});
  if (!runner) return runner.error();
  out << "aoe: Ascend device " << runner->device_id() << " (" << runner->soc_name() << ", "
      << runner->ai_core_count() << " AI Cores); ";
  if (kernels.kernels.empty()) {
    out << "no Ascend C kernel catalogue (AOE_ASCEND_KERNELS): Schedule is not tuned\n";
  } else {
    out << "kernel catalogue " << catalogue.string() << " (" << kernels.kernels.size()
        << " kernels)\n";
  }
  aoe::AscendBackend backend(std::move(*runner), std::move(kernels),
                             aoe::AscendBackendOptions{.impl_mode = options.impl_mode});
  options.scope = backend.scope();
  return aoe::run_opat(graph, backend, bank, options, partial);
}

}  // namespace aoe_tool

#endif  // AOE_WITH_ASCEND
