// OPAT on every bundled model (examples/models/*.json) on the simulator, from an empty bank:
// prints JSON per model with the tuning wall time, the model's simulated time before and after,
// and the median (and minimum) fraction of the simulator oracle's optimum reached per operator
// (oracle time / tuned time; 1 is optimal; never clamped: a value above 1, which would mean the
// oracle missed a configuration, is printed raw and counted in "operators_above_oracle").
// Goal: median >= 0.98.
//
//   opat_bench [--models DIR] [--search NAME] [--budget N] [--level O1|O2] [--seed S]
//              [--soc NAME] [--parallel N]
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/opat_job.hpp>
#include <aoe/jobs/simulator_backend.hpp>
#include <aoe/measure/simulator/oracle.hpp>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::string models_dir;
  std::string search = "evolutionary";
  std::string level = "O2";
  std::string soc_name = "Ascend910A";
  std::size_t budget = 0;
  std::uint64_t seed = 0;
  int parallel = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const std::string v = argv[i + 1];
    if (a == "--models")
      models_dir = v;
    else if (a == "--search")
      search = v;
    else if (a == "--budget")
      budget = std::stoul(v);
    else if (a == "--level")
      level = v;
    else if (a == "--seed")
      seed = std::stoull(v);
    else if (a == "--soc")
      soc_name = v;
    else if (a == "--parallel")
      parallel = std::stoi(v);
    else {
      std::cerr << "opat_bench: unknown option " << a << "\n";
      return 2;
    }
  }
  if (models_dir.empty()) {
    for (const char* c : {"examples/models", "../examples/models", "../../examples/models"}) {
      if (fs::exists(fs::path(c) / "resnet50.json")) {
        models_dir = c;
        break;
      }
    }
#ifdef AOE_SOURCE_DIR
    if (models_dir.empty()) models_dir = std::string(AOE_SOURCE_DIR) + "/examples/models";
#endif
  }
  if (models_dir.empty() || !fs::exists(fs::path(models_dir) / "resnet50.json")) {
    std::cerr << "opat_bench: cannot find examples/models; pass --models DIR\n";
    return 2;
  }
  auto soc = aoe::sim::Soc::builtin(soc_name);
  if (!soc) {
    std::cerr << "opat_bench: " << soc.error().message << "\n";
    return 2;
  }
  auto preset = aoe::opat_budget_preset(level);
  if (!preset) {
    std::cerr << "opat_bench: " << preset.error().message << "\n";
    return 2;
  }
  if (budget > 0) {
    preset->evaluations = budget;
    preset->patience = std::min(preset->patience, budget);
  }
  const fs::path scratch =
      fs::temp_directory_path() / ("aoe_opat_bench_" + std::to_string(::getpid()));

  aoe::SimulatorBackend backend(*soc);
  boost::json::array results;
  int status = 0;
  for (const char* name : {"resnet50", "bert_base", "mobilenet_v2", "gpt2_block"}) {
    const fs::path file = fs::path(models_dir) / (std::string(name) + ".json");
    auto graph = aoe::load_graph(file);
    if (!graph) {
      std::cerr << "opat_bench: " << graph.error().message << "\n";
      status = 1;
      continue;
    }
    fs::remove_all(scratch);
    aoe::KnowledgeBank bank({.custom_root = scratch / "bank"});
    aoe::OpatOptions options{.scope = backend.scope(),
                             .search = search,
                             .budget = *preset,
                             .seed = seed,
                             .parallel = parallel,
                             .result_dir = scratch / "work"};
    const auto t0 = std::chrono::steady_clock::now();
    auto job = aoe::run_opat(*graph, backend, bank, options);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!job) {
      std::cerr << "opat_bench: " << name << ": " << job.error().message << "\n";
      status = 1;
      continue;
    }
    // The oracle per distinct operator (exhaustive enumeration of its schedule space).
    std::map<std::string, double> oracle_us;
    std::vector<double> fractions;
    std::int64_t above_oracle = 0;
    const auto fused = aoe::fuse(*graph);
    std::map<std::string, const aoe::FusedOperator*> by_name;
    for (const auto& f : fused) by_name[f.op.name] = &f;
    for (const auto& op : job->report.operators) {
      if (op.failed() || op.kinds.empty()) continue;
      const auto* f = by_name.at(op.op_name);
      const std::string key = aoe::operator_key_text(f->op, "");
      auto it = oracle_us.find(key);
      if (it == oracle_us.end()) {
        auto runner = backend.create(f->op, aoe::KnowledgeKind::schedule);
        if (!runner) continue;
        it = oracle_us.emplace(key, aoe::sim::oracle(*runner).value * 1e6).first;
      }
      // Raw: a fraction above 1 means the job beat the "oracle", which then is none (its
      // enumeration missed a configuration): counted and flagged, never clamped.
      const double fraction = it->second / op.kinds.front().after_us;
      if (fraction > 1 + 1e-9) {
        ++above_oracle;
        std::cerr << "opat_bench: " << name << ": " << op.op_name << " beat the oracle ("
                  << op.kinds.front().after_us << " us < " << it->second << " us)\n";
      }
      fractions.push_back(fraction);
    }
    std::sort(fractions.begin(), fractions.end());
    const auto& r = job->report;
    boost::json::object o;
    o["model"] = name;
    o["soc_version"] = soc_name;
    o["search"] = search;
    o["evaluations_per_operator"] = static_cast<std::int64_t>(preset->evaluations);
    o["tuning_wall_seconds"] = wall;
    o["operators"] = static_cast<std::int64_t>(r.total());
    o["distinct_operators"] = static_cast<std::int64_t>(oracle_us.size());
    o["repo_add_num"] = static_cast<std::int64_t>(r.count(aoe::OpatOutcome::add));
    o["repo_unsatisfied_num"] = static_cast<std::int64_t>(r.count(aoe::OpatOutcome::unsatisfied));
    o["failed"] = static_cast<std::int64_t>(r.count(aoe::OpatOutcome::failed));
    o["model_time_before_ms"] = r.baseline_ms();
    o["model_time_after_ms"] = r.result_ms();
    o["improvement"] = aoe::OpatReport::improvement(r.baseline_ms(), r.result_ms());
    o["operators_above_oracle"] = above_oracle;
    if (!fractions.empty()) {
      o["median_fraction_of_oracle"] = fractions[fractions.size() / 2];
      o["min_fraction_of_oracle"] = fractions.front();
    }
    results.push_back(std::move(o));
  }
  fs::remove_all(scratch);
  boost::json::object root;
  root["benchmark"] = "opat_bench";
  root["results"] = std::move(results);
  std::cout << boost::json::serialize(root) << "\n";
  return status;
}
