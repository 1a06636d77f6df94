// `sim:` inputs of an experiment: operator spaces of the reference Ascend simulator, with every
// value known by enumeration (the exhaustive oracle), so that they are scored like recorded
// spaces.
#ifndef AOE_EXPERIMENT_SIMULATOR_PROBLEMS_HPP
#define AOE_EXPERIMENT_SIMULATOR_PROBLEMS_HPP

#include "aoe/core/error.hpp"
#include "aoe/experiment/problem.hpp"
#include "aoe/measure/replay/random_baseline.hpp"
#include "aoe/measure/simulator/oracle.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/measure/simulator/workloads.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace aoe::experiment {

namespace detail {

inline std::vector<OperatorDesc> simulator_operators() {
  namespace w = sim::workloads;
  std::vector<OperatorDesc> ops = w::resnet50_convolutions();
  for (auto& op : w::resnet50_other_operators()) ops.push_back(std::move(op));
  for (auto& op : w::bert_base_matmuls()) ops.push_back(std::move(op));
  for (auto& op : w::bert_base_vector_operators()) ops.push_back(std::move(op));
  return ops;
}

// The operators a workload name stands for: a group, or one operator by its name.
inline std::vector<OperatorDesc> select_operators(const std::string& workload) {
  namespace w = sim::workloads;
  if (workload == "resnet50-conv") return w::resnet50_convolutions();
  if (workload == "resnet50") {
    auto ops = w::resnet50_convolutions();
    ops.push_back(w::resnet50_fc());
    return ops;
  }
  if (workload == "bert-matmul" || workload == "bert") return w::bert_base_matmuls();
  std::vector<OperatorDesc> out;
  for (auto& op : simulator_operators()) {
    if (op.name == workload) out.push_back(std::move(op));
  }
  return out;
}

inline Result<Problem> simulator_problem(const sim::Soc& soc, const OperatorDesc& op,
                                         const std::string& spec) {
  auto created = SimulatorRunner::create(soc, op);
  if (!created) {
    return make_error(Errc::unsupported,
                      spec + ": operator '" + op.name + "': " + created.error().message);
  }
  auto runner = std::make_shared<const SimulatorRunner>(std::move(*created));
  Problem p;
  p.name = "sim:" + op.name + "@" + soc.name;
  p.source = spec;
  p.space = &runner->space();
  // Every configuration that satisfies the constraints, timed without noise: the population
  // random search draws from and its valid values (as sim::oracle enumerates them), and the
  // time-energy front of the simulated energies.
  std::vector<double> values;
  std::size_t population = 0;
  Space::Enumerator e = runner->space().enumerate();
  Configuration c;
  while (e.next(c)) {
    ++population;
    sim::detail::Joules joules;
    const auto o = runner->time_and_energy(c, joules);
    if (o.buffer != sim::detail::Buffer::none) continue;
    (void)add_to_front(p.front, {o.seconds, joules.value, values.size()});
    values.push_back(o.seconds);
  }
  p.configurations = population;
  p.valid_configurations = values.size();
  if (values.empty()) {
    return make_error(Errc::unsupported,
                      spec + ": operator '" + op.name + "' has no configuration that fits");
  }
  p.baseline = replay::RandomBaseline(std::move(values), population);
  p.defaults.push_back(runner->default_configuration());
  p.measure = [runner](SpaceView view, std::span<const Configuration> batch) {
    return runner->measure(view, batch);
  };
  p.space_holder = std::shared_ptr<const Space>(runner, &runner->space());
  return p;
}

}  // namespace detail

/// The operator spaces of the reference simulator named by `sim:<workload>[@<SoC>]`:
/// <workload> is an operator of include/aoe/measure/simulator/workloads.hpp by name
/// ("res2a_branch2b", "attention/self/query"), or a group: resnet50 (its convolutions and
/// fc), resnet50-conv, bert-matmul; <SoC> one of sim::Soc::builtin_names() (default
/// Ascend910A). Every value is known by enumeration, as sim::oracle does. Errors:
/// `not_found` (SoC, workload), `unsupported` (an operator the simulator cannot run or with no
/// configuration that fits).
[[nodiscard]] inline Result<std::vector<Problem>> load_simulator_problems(const std::string& spec) {
  // sim:<workload>[@<SoC>]
  std::string rest = spec.substr(4);
  std::string soc_name = "Ascend910A";
  if (const auto at = rest.rfind('@'); at != std::string::npos) {
    soc_name = rest.substr(at + 1);
    rest.erase(at);
  }
  auto soc = sim::Soc::builtin(soc_name);
  if (!soc) return make_error(Errc::not_found, spec + ": " + soc.error().message);
  const auto ops = detail::select_operators(rest);
  if (ops.empty()) {
    std::string names = "resnet50, resnet50-conv, bert-matmul";
    for (const auto& op : detail::simulator_operators()) names += ", " + op.name;
    return make_error(Errc::not_found,
                      spec + ": unknown workload '" + rest + "': expected one of " + names);
  }
  std::vector<Problem> out;
  for (const auto& op : ops) {
    auto p = detail::simulator_problem(*soc, op, spec);
    if (!p) return p.error();
    out.push_back(std::move(*p));
  }
  return out;
}

}  // namespace aoe::experiment

#endif  // AOE_EXPERIMENT_SIMULATOR_PROBLEMS_HPP
