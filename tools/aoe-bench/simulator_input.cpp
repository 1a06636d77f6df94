// `sim:` inputs: operator spaces of the reference Ascend simulator, with every value known by
// enumeration (the exhaustive oracle), so that they are scored like recorded spaces.
#include "experiment.hpp"
#include <aoe/measure/simulator/oracle.hpp>
#include <aoe/measure/simulator/simulator_runner.hpp>
#include <aoe/measure/simulator/soc.hpp>
#include <aoe/measure/simulator/workloads.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace aoe_bench {

namespace {

std::vector<aoe::OperatorDesc> all_operators() {
  namespace w = aoe::sim::workloads;
  std::vector<aoe::OperatorDesc> ops = w::resnet50_convolutions();
  for (auto& op : w::resnet50_other_operators()) ops.push_back(std::move(op));
  for (auto& op : w::bert_base_matmuls()) ops.push_back(std::move(op));
  for (auto& op : w::bert_base_vector_operators()) ops.push_back(std::move(op));
  return ops;
}

// The operators a workload name stands for: a group, or one operator by its name.
std::vector<aoe::OperatorDesc> select(const std::string& workload) {
  namespace w = aoe::sim::workloads;
  if (workload == "resnet50-conv") return w::resnet50_convolutions();
  if (workload == "resnet50") {
    auto ops = w::resnet50_convolutions();
    ops.push_back(w::resnet50_fc());
    return ops;
  }
  if (workload == "bert-matmul" || workload == "bert") return w::bert_base_matmuls();
  std::vector<aoe::OperatorDesc> out;
  for (auto& op : all_operators()) {
    if (op.name == workload) out.push_back(std::move(op));
  }
  return out;
}

aoe::Result<Problem> problem_for(const aoe::sim::Soc& soc, const aoe::OperatorDesc& op,
                                 const std::string& spec) {
  auto created = aoe::SimulatorRunner::create(soc, op);
  if (!created) {
    return aoe::make_error(aoe::Errc::unsupported,
                           spec + ": operator '" + op.name + "': " + created.error().message);
  }
  auto runner = std::make_shared<const aoe::SimulatorRunner>(std::move(*created));
  Problem p;
  p.name = "sim:" + op.name + "@" + soc.name;
  p.source = spec;
  p.space = &runner->space();
  // Every configuration that satisfies the constraints, timed without noise: the population
  // random search draws from and its valid values (as aoe::sim::oracle enumerates them).
  std::vector<double> values;
  std::size_t population = 0;
  aoe::Space::Enumerator e = runner->space().enumerate();
  aoe::Configuration c;
  while (e.next(c)) {
    ++population;
    const auto o = runner->time(c);
    if (o.buffer == aoe::sim::detail::Buffer::none) values.push_back(o.seconds);
  }
  p.configurations = population;
  p.valid_configurations = values.size();
  if (values.empty()) {
    return aoe::make_error(aoe::Errc::unsupported,
                           spec + ": operator '" + op.name + "' has no configuration that fits");
  }
  p.baseline = aoe::replay::RandomBaseline(std::move(values), population);
  p.defaults.push_back(runner->default_configuration());
  p.measure = [runner](aoe::SpaceView view, std::span<const aoe::Configuration> batch) {
    return runner->measure(view, batch);
  };
  p.space_holder = std::shared_ptr<const aoe::Space>(runner, &runner->space());
  return p;
}

}  // namespace

aoe::Result<std::vector<Problem>> load_simulator_problems(const std::string& spec) {
  // sim:<workload>[@<SoC>]
  std::string rest = spec.substr(4);
  std::string soc_name = "Ascend910A";
  if (const auto at = rest.rfind('@'); at != std::string::npos) {
    soc_name = rest.substr(at + 1);
    rest.erase(at);
  }
  auto soc = aoe::sim::Soc::builtin(soc_name);
  if (!soc) return aoe::make_error(aoe::Errc::not_found, spec + ": " + soc.error().message);
  const auto ops = select(rest);
  if (ops.empty()) {
    std::string names = "resnet50, resnet50-conv, bert-matmul";
    for (const auto& op : all_operators()) names += ", " + op.name;
    return aoe::make_error(aoe::Errc::not_found,
                           spec + ": unknown workload '" + rest + "': expected one of " + names);
  }
  std::vector<Problem> out;
  for (const auto& op : ops) {
    auto p = problem_for(*soc, op, spec);
    if (!p) return p.error();
    out.push_back(std::move(*p));
  }
  return out;
}

}  // namespace aoe_bench
