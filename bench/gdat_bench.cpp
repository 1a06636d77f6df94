// GDAT on ResNet-50 and BERT-base trained data-parallel on 8 and 64 devices (the default
// cluster: 8 devices per server, two-level all-reduce), each from an empty gradient-fusion bank:
// prints JSON per case with AOE's default split, the tuned split (the job's result, with the
// search policy and its evaluations), the dynamic programme's optimum and the gap to it, plus
// the same job with every other search policy. Goal: tuned <= default and gap <= 1% with the
// default policy.
//
//   gdat_bench [--models DIR] [--search NAME] [--level O1|O2] [--seed S] [--soc NAME]
//              [--policies none|all]   (all: also every other search policy; minutes)
//              [--evaluations N]       (the budget instead of the level's: N evaluations, N
//                                       without improvement)
//              [--repeat_tune 1]       (then each case once more on the bank the job filled,
//                                       REPEAT_TUNE, seed + 1: "repeat_*" fields)
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/gdat/backward_derivation.hpp>
#include <aoe/jobs/gdat/gdat_job.hpp>
#include <aoe/search/search_names.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>

namespace fs = std::filesystem;

namespace {

boost::json::array indices(const aoe::gdat::SplitStrategy& s) {
  boost::json::array a;
  for (const auto e : s.ends) a.push_back(static_cast<std::int64_t>(e));
  return a;
}

boost::json::array numbers(const std::vector<double>& v) {
  boost::json::array a;
  for (const auto x : v) a.push_back(x);
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  std::string models_dir;
  std::string search = "evolutionary";
  std::string level = "O2";
  std::string soc_name = "Ascend910A";
  std::string policies = "none";
  std::uint64_t seed = 0;
  std::size_t evaluations = 0;
  bool repeat_tune = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const std::string v = argv[i + 1];
    if (a == "--models")
      models_dir = v;
    else if (a == "--search")
      search = v;
    else if (a == "--level")
      level = v;
    else if (a == "--seed")
      seed = std::stoull(v);
    else if (a == "--soc")
      soc_name = v;
    else if (a == "--policies")
      policies = v;
    else if (a == "--evaluations")
      evaluations = std::stoull(v);
    else if (a == "--repeat_tune")
      repeat_tune = v == "1";
    else {
      std::cerr << "gdat_bench: unknown option " << a << "\n";
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
  }
  if (models_dir.empty() || !fs::exists(fs::path(models_dir) / "resnet50.json")) {
    std::cerr << "gdat_bench: cannot find examples/models; pass --models DIR\n";
    return 2;
  }
  auto soc = aoe::sim::Soc::builtin(soc_name);
  if (!soc) {
    std::cerr << "gdat_bench: " << soc.error().message << "\n";
    return 2;
  }
  auto budget = aoe::gdat_budget_preset(level);
  if (!budget) {
    std::cerr << "gdat_bench: " << budget.error().message << "\n";
    return 2;
  }
  if (evaluations > 0) *budget = {.evaluations = evaluations, .patience = evaluations};
  const fs::path scratch =
      fs::temp_directory_path() / ("aoe_gdat_bench_" + std::to_string(::getpid()));

  // One job from an empty bank (`again`: REPEAT_TUNE on the bank as the last job left it,
  // seed + 1); its wall time in `wall`.
  const auto job = [&](const aoe::gdat::GradientProfile& p, const aoe::gdat::Cluster& c,
                       const std::string& policy, double& wall, bool again = false) {
    if (!again) fs::remove_all(scratch);
    aoe::gdat::GradientFusionBank bank(scratch / "bank", soc_name);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = aoe::run_gdat(p, c, bank,
                           {.search = policy,
                            .budget = *budget,
                            .seed = seed + (again ? 1 : 0),
                            .repeat_tune = again,
                            .run = {.result_dir = scratch / "work"}});
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };

  boost::json::array results;
  int status = 0;
  for (const char* name : {"resnet50", "bert_base"}) {
    auto graph = aoe::load_graph(fs::path(models_dir) / (std::string(name) + ".json"));
    if (!graph) {
      std::cerr << "gdat_bench: " << graph.error().message << "\n";
      status = 1;
      continue;
    }
    auto profile = aoe::gdat::derive_gradient_profile(*graph, *soc);
    if (!profile) {
      std::cerr << "gdat_bench: " << profile.error().message << "\n";
      status = 1;
      continue;
    }
    for (const int devices : {8, 64}) {
      const aoe::gdat::Cluster cluster{.devices = devices};
      double wall = 0;
      auto r = job(*profile, cluster, search, wall);
      if (!r) {
        std::cerr << "gdat_bench: " << name << ": " << r.error().message << "\n";
        status = 1;
        continue;
      }
      const auto& rep = r->report;
      boost::json::object o;
      o["model"] = name;
      o["soc_version"] = soc_name;
      o["devices"] = devices;
      o["devices_per_server"] = cluster.server_size();
      o["topology"] = std::string(aoe::gdat::to_string(cluster.topology));
      o["gradients"] = static_cast<std::int64_t>(rep.gradients);
      o["gradient_bytes"] = rep.gradient_bytes;
      o["forward_ms"] = rep.forward_seconds * 1e3;
      o["backward_ms"] = rep.backward_seconds * 1e3;
      o["allreduce_all_gradients_ms"] =
          aoe::gdat::allreduce_seconds(cluster, static_cast<double>(rep.gradient_bytes)) * 1e3;
      o["default_ms"] = rep.baseline.seconds * 1e3;
      o["default_split"] = indices(rep.baseline.split);
      o["default_split_by_size"] = numbers(rep.baseline.by_size);
      o["tuned_ms"] = rep.result->seconds * 1e3;
      o["tuned_split"] = indices(rep.result->split);
      o["tuned_split_by_size"] = numbers(rep.result->by_size);
      o["strategy_source"] = rep.strategy_source;
      o["dp_optimum_ms"] = rep.optimum.seconds * 1e3;
      o["dp_split"] = indices(rep.optimum.split);
      o["gap_to_optimum"] = rep.gap(rep.result->seconds);
      o["improvement_over_default"] =
          aoe::GdatReport::improvement(rep.baseline.seconds, rep.result->seconds);
      o["search_policy"] = rep.search_policy;
      o["evaluations"] = static_cast<std::int64_t>(rep.evaluations);
      o["job_wall_seconds"] = wall;
      o["never_worse_than_default"] = rep.result->seconds <= rep.baseline.seconds;
      o["within_1_percent_of_optimum"] = rep.result->seconds <= 1.01 * rep.optimum.seconds;
      if (repeat_tune) {
        double w = 0;
        auto again = job(*profile, cluster, search, w, true);
        if (!again) {
          std::cerr << "gdat_bench: " << name << " (REPEAT_TUNE): " << again.error().message
                    << "\n";
          status = 1;
          continue;
        }
        const auto& q = again->report;
        o["repeat_tuned_ms"] = q.result->seconds * 1e3;
        o["repeat_gap_to_optimum"] = q.gap(q.result->seconds);
        o["repeat_search_best_gap_to_optimum"] =
            q.search_best ? q.gap(q.search_best->seconds) : -1.0;
        o["repeat_outcome"] = q.outcome ? std::string(aoe::to_string(*q.outcome)) : "";
        o["repeat_evaluations"] = static_cast<std::int64_t>(q.evaluations);
      }
      if (policies == "all") {
        boost::json::array others;
        for (const auto policy : aoe::search_names()) {
          if (policy == search) continue;
          double w = 0;
          auto other = job(*profile, cluster, std::string(policy), w);
          if (!other) {
            std::cerr << "gdat_bench: " << name << " " << policy << ": " << other.error().message
                      << "\n";
            status = 1;
            continue;
          }
          const auto& q = other->report;
          boost::json::object p;
          p["search_policy"] = std::string(policy);
          p["tuned_ms"] = q.result->seconds * 1e3;
          p["search_best_ms"] = q.search_best ? q.search_best->seconds * 1e3 : 0.0;
          p["gap_to_optimum"] = q.gap(q.result->seconds);
          p["strategy_source"] = q.strategy_source;
          p["evaluations"] = static_cast<std::int64_t>(q.evaluations);
          p["job_wall_seconds"] = w;
          others.push_back(std::move(p));
        }
        o["other_policies"] = std::move(others);
      }
      results.push_back(std::move(o));
    }
  }
  fs::remove_all(scratch);
  boost::json::object root;
  root["benchmark"] = "gdat_bench";
  root["level"] = level;
  root["budget_evaluations"] = static_cast<std::int64_t>(budget->evaluations);
  root["budget_patience"] = static_cast<std::int64_t>(budget->patience);
  root["seed"] = static_cast<std::int64_t>(seed);
  root["results"] = std::move(results);
  std::cout << boost::json::serialize(root) << "\n";
  return status;
}
