// Runs OPAT's operators on the reference simulator: one Runner<device::Simulator> per operator
// and knowledge kind, its space holding only that kind's parameters.
#ifndef AOE_JOBS_SIMULATOR_BACKEND_HPP
#define AOE_JOBS_SIMULATOR_BACKEND_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/simulator/knowledge.hpp"
#include "aoe/measure/simulator/simulator_options.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/repo/bank_key.hpp"

#include <span>
#include <utility>

namespace aoe {

/// The backend `run_opat` takes for the simulator.
class SimulatorBackend {
 public:
  explicit SimulatorBackend(sim::Soc soc) : soc_(std::move(soc)) {}

  [[nodiscard]] static sim::Knowledge to_sim(KnowledgeKind k) noexcept {
    switch (k) {
      case KnowledgeKind::schedule: return sim::Knowledge::schedule;
      case KnowledgeKind::format: return sim::Knowledge::format;
      case KnowledgeKind::impl: return sim::Knowledge::impl;
    }
    return sim::Knowledge::schedule;
  }

  [[nodiscard]] Result<Runner<device::Simulator>> create(const OperatorDesc& op,
                                                         KnowledgeKind kind) const {
    return Runner<device::Simulator>::create(soc_, op,
                                             SimulatorOptions{.knowledge = {to_sim(kind)}});
  }

  /// One runner whose space holds the parameters of all `kinds`: how run_opat measures the
  /// operator with every kind's choice applied together.
  [[nodiscard]] Result<Runner<device::Simulator>> create_combined(
      const OperatorDesc& op, std::span<const KnowledgeKind> kinds) const {
    SimulatorOptions options{.knowledge = {}};
    for (const KnowledgeKind k : kinds) options.knowledge.push_back(to_sim(k));
    return Runner<device::Simulator>::create(soc_, op, std::move(options));
  }

  /// The bank scope of this SoC: its name and AI Core count.
  [[nodiscard]] BankScope scope() const { return BankScope{soc_.name, soc_.cube_cores}; }

  [[nodiscard]] const sim::Soc& soc() const noexcept { return soc_; }

 private:
  sim::Soc soc_;
};

}  // namespace aoe

#endif  // AOE_JOBS_SIMULATOR_BACKEND_HPP
