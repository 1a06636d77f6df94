// OPAT on every bundled model (examples/models/*.json) on the simulator, from an empty bank:
// prints JSON per model with the tuning wall time, the model's simulated time before and after,
// and the median (and minimum) fraction of the simulator oracle's optimum reached per operator
// (oracle time / tuned time; 1 is optimal; never clamped: a value above 1, which would mean the
// oracle missed a configuration, is printed raw and counted in "operators_above_oracle").
// Goal: median >= 0.98.
//
//   opat_bench [--models DIR] [--search NAME] [--budget N] [--level O1|O2] [--seed S]
//              [--soc NAME] [--parallel N] [--budgets N,N,...] [--transfer-hints N,N,...]
//              [--seeds K] [--transfer-effect]
//
// One row of "results" per model, budget (--budgets, else --budget, else the level's), value of
// OpatOptions::transfer_hints (--transfer-hints, else the library's default) and seed (--seeds K:
// seeds S..S+K-1), each with its "transfer_hints" and "seed".
// --transfer-effect (docs/search.md#transfer): budgets 25,50,100, transfer hints 0 (off) and the
// default (on), 10 seeds unless --seeds says otherwise; adds the block "transfer_effect": per
// model and budget the mean improvement and median operator fraction off and on, and their
// paired gain (on - off, seed for seed) with a 95% percentile-bootstrap interval over the seeds
// (aoe/measure/replay/bootstrap.hpp, 2000 resamples, seed 2024). "Off" is transfer_hints = 0:
// no winners of similar operators; the default configuration (and on REPEAT_TUNE the stored
// one) is still the search's first point, measured once, as run_opat always does.
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/opat/opat_job.hpp>
#include <aoe/jobs/simulator_backend.hpp>
#include <aoe/measure/replay/bootstrap.hpp>
#include <aoe/measure/simulator/oracle.hpp>

#include <boost/json/array.hpp>
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
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// "25,50,100" -> {25, 50, 100}; nullopt on anything else (the caller names the flag).
std::optional<std::vector<std::size_t>> parse_list(const std::string& text) {
  std::vector<std::size_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    out.push_back(std::stoul(item));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

struct Run {
  std::string model;
  std::size_t budget = 0;
  std::size_t hints = 0;
  std::uint64_t seed = 0;
  double improvement = 0;
  std::optional<double> median_fraction;
};

// One OPAT job on `graph` from an empty bank, scored against the oracle: a row of "results".
// Errors go to stderr; nullopt then.
std::optional<boost::json::object> run_model(const char* name, const aoe::Graph& graph,
                                             aoe::SimulatorBackend& backend,
                                             const std::string& soc_name, const std::string& search,
                                             aoe::OpatBudget budget, std::size_t hints,
                                             std::uint64_t seed, int parallel,
                                             const fs::path& scratch) {
  fs::remove_all(scratch);
  aoe::KnowledgeBank bank({.custom_root = scratch / "bank"});
  aoe::OpatOptions options{.scope = backend.scope(),
                           .search = search,
                           .budget = budget,
                           .seed = seed,
                           .parallel = parallel,
                           .transfer_hints = hints,
                           .run = {.result_dir = scratch / "work"}};
  const auto t0 = std::chrono::steady_clock::now();
  auto job = aoe::run_opat(graph, backend, bank, options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!job) {
    std::cerr << "opat_bench: " << name << ": " << job.error().message << "\n";
    return std::nullopt;
  }
  // The oracle per distinct operator (exhaustive enumeration of its schedule space).
  std::map<std::string, double> oracle_us;
  std::vector<double> fractions;
  std::int64_t above_oracle = 0;
  const auto fused = aoe::fuse(graph);
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
  o["evaluations_per_operator"] = static_cast<std::int64_t>(budget.evaluations);
  o["transfer_hints"] = static_cast<std::int64_t>(hints);
  o["seed"] = seed;
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
  return o;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

boost::json::array interval(const std::vector<double>& sample) {
  const auto ci = aoe::replay::bootstrap_mean(sample);
  return {ci.low, ci.high};
}

// The "transfer_effect" block: per model and budget, off (hints 0) against on (the largest
// hints value run), paired by seed.
boost::json::array transfer_effect(const std::vector<Run>& runs, std::size_t on_hints) {
  boost::json::array out;
  std::map<std::pair<std::string, std::size_t>,
           std::map<std::uint64_t, std::pair<const Run*, const Run*>>>
      pairs;
  std::vector<std::pair<std::string, std::size_t>> order;
  for (const auto& r : runs) {
    if (r.hints != 0 && r.hints != on_hints) continue;
    const auto key = std::make_pair(r.model, r.budget);
    if (pairs.find(key) == pairs.end()) order.push_back(key);
    auto& slot = pairs[key][r.seed];
    (r.hints == 0 ? slot.first : slot.second) = &r;
  }
  for (const auto& key : order) {
    std::vector<double> off, on, gain, f_off, f_on, f_gain;
    for (const auto& [seed, p] : pairs[key]) {
      if (p.first == nullptr || p.second == nullptr) continue;
      off.push_back(p.first->improvement);
      on.push_back(p.second->improvement);
      gain.push_back(p.second->improvement - p.first->improvement);
      if (p.first->median_fraction && p.second->median_fraction) {
        f_off.push_back(*p.first->median_fraction);
        f_on.push_back(*p.second->median_fraction);
        f_gain.push_back(*p.second->median_fraction - *p.first->median_fraction);
      }
    }
    if (gain.empty()) continue;
    boost::json::object o;
    o["model"] = key.first;
    o["evaluations_per_operator"] = static_cast<std::int64_t>(key.second);
    o["transfer_hints_on"] = static_cast<std::int64_t>(on_hints);
    o["seeds"] = static_cast<std::int64_t>(gain.size());
    o["improvement_off"] = mean(off);
    o["improvement_on"] = mean(on);
    o["improvement_gain"] = mean(gain);
    o["improvement_gain_ci95"] = interval(gain);
    o["median_fraction_of_oracle_off"] = mean(f_off);
    o["median_fraction_of_oracle_on"] = mean(f_on);
    o["median_fraction_gain"] = mean(f_gain);
    o["median_fraction_gain_ci95"] = interval(f_gain);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string models_dir;
  std::string search = "evolutionary";
  std::string level = "O2";
  std::string soc_name = "Ascend910A";
  std::size_t budget = 0;
  std::uint64_t seed = 0;
  int parallel = 2;
  std::vector<std::size_t> budgets;
  std::vector<std::size_t> hints_list;
  std::size_t seeds = 0;
  bool effect = false;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--transfer-effect") {
      effect = true;
      --i;  // a flag without a value
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "opat_bench: " << a << " needs a value\n";
      return 2;
    }
    const std::string v = argv[i + 1];
    if (a == "--models") {
      models_dir = v;
    } else if (a == "--search") {
      search = v;
    } else if (a == "--budget") {
      budget = std::stoul(v);
    } else if (a == "--level") {
      level = v;
    } else if (a == "--seed") {
      seed = std::stoull(v);
    } else if (a == "--soc") {
      soc_name = v;
    } else if (a == "--parallel") {
      parallel = std::stoi(v);
    } else if (a == "--seeds") {
      seeds = std::stoul(v);
    } else if (a == "--budgets" || a == "--transfer-hints") {
      auto list = parse_list(v);
      if (!list) {
        std::cerr << "opat_bench: " << a << " '" << v
                  << "': expected comma-separated non-negative integers\n";
        return 2;
      }
      (a == "--budgets" ? budgets : hints_list) = std::move(*list);
    } else {
      std::cerr << "opat_bench: unknown option " << a << "\n";
      return 2;
    }
  }
  const std::size_t default_hints = aoe::OpatOptions{}.transfer_hints;
  if (effect) {
    if (budgets.empty()) budgets = {25, 50, 100};
    if (hints_list.empty()) hints_list = {0, default_hints};
    if (seeds == 0) seeds = 10;
  }
  if (hints_list.empty()) hints_list = {default_hints};
  if (seeds == 0) seeds = 1;
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
  if (budget > 0) budgets.insert(budgets.begin(), budget);
  if (budgets.empty()) budgets = {preset->evaluations};
  const fs::path scratch =
      fs::temp_directory_path() / ("aoe_opat_bench_" + std::to_string(::getpid()));

  aoe::SimulatorBackend backend(*soc);
  boost::json::array results;
  std::vector<Run> runs;
  int status = 0;
  for (const char* name : {"resnet50", "bert_base", "mobilenet_v2", "gpt2_block"}) {
    const fs::path file = fs::path(models_dir) / (std::string(name) + ".json");
    auto graph = aoe::load_graph(file);
    if (!graph) {
      std::cerr << "opat_bench: " << graph.error().message << "\n";
      status = 1;
      continue;
    }
    for (const std::size_t evaluations : budgets) {
      aoe::OpatBudget b = *preset;
      if (evaluations != preset->evaluations) {
        b.evaluations = evaluations;
        b.patience = std::min(preset->patience, evaluations);
      }
      for (const std::size_t hints : hints_list) {
        for (std::uint64_t s = seed; s < seed + seeds; ++s) {
          auto row =
              run_model(name, *graph, backend, soc_name, search, b, hints, s, parallel, scratch);
          if (!row) {
            status = 1;
            continue;
          }
          Run run{name, evaluations, hints, s, row->at("improvement").as_double(), std::nullopt};
          if (const auto* f = row->if_contains("median_fraction_of_oracle")) {
            run.median_fraction = f->as_double();
          }
          runs.push_back(std::move(run));
          results.push_back(std::move(*row));
        }
      }
    }
  }
  fs::remove_all(scratch);
  boost::json::object root;
  root["benchmark"] = "opat_bench";
  root["results"] = std::move(results);
  if (effect) {
    std::size_t on = 0;
    for (const std::size_t h : hints_list) on = std::max(on, h);
    root["transfer_effect"] = transfer_effect(runs, on);
  }
  std::cout << boost::json::serialize(root) << "\n";
  return status;
}
