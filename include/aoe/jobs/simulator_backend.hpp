// Runs OPAT's operators on the reference simulator: one Runner<device::Simulator> per operator
// and knowledge kind, its space holding only that kind's parameters; an operator equal to an
// earlier one but for its name shares that one's model and space (sim::RunnerMemo).
#ifndef AOE_JOBS_SIMULATOR_BACKEND_HPP
#define AOE_JOBS_SIMULATOR_BACKEND_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/simulator/knowledge.hpp"
#include "aoe/measure/simulator/runner_memo.hpp"
#include "aoe/measure/simulator/simulator_options.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/bank_key.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/vocab/timing.hpp"

#include <memory>
#include <span>
#include <utility>

namespace aoe {

/// The backend `run_opat` takes for the simulator.
class SimulatorBackend {
 public:
  /// `measure_latency`: wall-clock seconds each measurement sleeps
  /// (SimulatorOptions::measure_latency, `aoe --measure_latency`; docs/distributed.md).
  explicit SimulatorBackend(sim::Soc soc, double measure_latency = 0)
      : soc_(std::move(soc)),
        measure_latency_(measure_latency),
        runners_(std::make_shared<sim::RunnerMemo>(soc_)) {}

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
    return runners_->create(
        op, SimulatorOptions{.knowledge = {to_sim(kind)}, .measure_latency = measure_latency_});
  }

  /// One runner whose space holds the parameters of all `kinds`: how run_opat measures the
  /// operator with every kind's choice applied together.
  [[nodiscard]] Result<Runner<device::Simulator>> create_combined(
      const OperatorDesc& op, std::span<const KnowledgeKind> kinds) const {
    SimulatorOptions options{.knowledge = {}, .measure_latency = measure_latency_};
    for (const KnowledgeKind k : kinds) options.knowledge.push_back(to_sim(k));
    return runners_->create(op, std::move(options));
  }

  /// The bank scope of this SoC: its name and AI Core count.
  [[nodiscard]] BankScope scope() const { return BankScope{soc_.name, soc_.cube_cores}; }

  [[nodiscard]] const sim::Soc& soc() const noexcept { return soc_; }
  /// The provenance of the job's times: the simulator's timing model (sim::model_timing).
  [[nodiscard]] Timing timing() const { return sim::model_timing(soc_.name); }
  [[nodiscard]] double measure_latency() const noexcept { return measure_latency_; }
  /// The runners created so far, by distinct operator (shared by copies of this backend).
  [[nodiscard]] const sim::RunnerMemo& runners() const noexcept { return *runners_; }

 private:
  sim::Soc soc_;
  double measure_latency_ = 0;
  std::shared_ptr<sim::RunnerMemo> runners_;
};

}  // namespace aoe

#endif  // AOE_JOBS_SIMULATOR_BACKEND_HPP
