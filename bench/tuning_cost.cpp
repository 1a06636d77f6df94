// Tuning cost (issue #13): how close OPAT gets to the simulator oracle's optimum for a given
// number of measurements per operator. For every bundled model (examples/models/) and, when
// this build has ONNX import, the two ONNX models of ../shared/models; for budgets of
// evaluations per distinct operator and knowledge kind; for each search policy; over several
// seeds (means reported): the model-level fraction of the oracle (the model's time with every
// operator at the oracle's optimum / its tuned time), the median and worst operator's fraction,
// and the search's own CPU seconds per evaluation. Each job runs from an empty bank on the
// reference simulator (Ascend910A), one measuring thread. The oracle only scores: it is called
// here, after the job, never by the job.
//
//   tuning_cost [--models DIR] [--shared DIR] [--model NAME,...] [--search NAME,...]
//               [--budgets N,...] [--seeds N] [--soc NAME] [--bank-from MODEL,...] [--verbose]
//               [--rank-correlation SAMPLES]
// (--rank-correlation: instead of tuning, the analytic cost model's Spearman rank correlation
// with the simulator on SAMPLES uniform configurations of every distinct operator, as
// {"results": [{"model", "operator", "type", "samples", "spearman", ...}]})
// (--verbose: every operator's default, tuned and oracle time on stderr; --bank-from: before
// each measured job, the same job on these models fills the bank it starts from, so that the
// measured one has the bank's records to transfer from: hints and the cost model's rows)
//
// Prints {"default_search": NAME, "results": [{"model", "search", "evaluations_per_operator",
// "model_fraction_of_oracle", "median_operator_fraction", "worst_operator_fraction",
// "search_cpu_seconds_per_evaluation", ..., "per_seed": [{"seed", "model_fraction_of_oracle",
// "median_operator_fraction", "worst_operator_fraction"}, ...]}, ...]}. An operator fraction above
// 1 (the job beat the oracle, which means the oracle is not one) is reported raw and counted in
// "operators_above_oracle".
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/opat/opat_job.hpp>
#include <aoe/jobs/simulator_backend.hpp>
#include <aoe/measure/simulator/oracle.hpp>
#if defined(AOE_WITH_ONNX)
#include <aoe/graph/onnx/onnx_loader.hpp>
#endif

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// The simulator backend, with the CPU time its evaluations take (the job measures on one
// thread, so the job's CPU time minus this is the search's own, plus bookkeeping).
struct TimedRunner {
  aoe::Runner<aoe::device::Simulator> runner;
  double* spent;
  [[nodiscard]] const aoe::Space& space() const { return runner.space(); }
  [[nodiscard]] aoe::Configuration default_configuration() const {
    return runner.default_configuration();
  }
  [[nodiscard]] aoe::Measurement evaluate(const aoe::Configuration& c) const {
    const double t0 = cpu_seconds();
    auto m = runner.evaluate(c);
    *spent += cpu_seconds() - t0;
    return m;
  }
};

struct TimedBackend {
  aoe::SimulatorBackend inner;
  double spent = 0;
  [[nodiscard]] const aoe::sim::Soc& soc() const noexcept { return inner.soc(); }
  [[nodiscard]] aoe::Result<TimedRunner> create(const aoe::OperatorDesc& op,
                                                aoe::KnowledgeKind kind) {
    auto r = inner.create(op, kind);
    if (!r) return r.error();
    return TimedRunner{std::move(*r), &spent};
  }
};

// Spearman's rank correlation of x and y (average ranks for ties; +infinity, a failed or
// infeasible configuration, ties last).
double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  const auto ranks = [](const std::vector<double>& v) {
    std::vector<std::size_t> order(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < order.size();) {
      std::size_t j = i;
      while (j + 1 < order.size() && !(v[order[i]] < v[order[j + 1]])) ++j;
      for (std::size_t k = i; k <= j; ++k) r[order[k]] = 0.5 * static_cast<double>(i + j);
      i = j + 1;
    }
    return r;
  };
  const auto rx = ranks(x), ry = ranks(y);
  const double n = static_cast<double>(x.size());
  const double mean = (n - 1) / 2;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

// The analytic cost model against the simulator on every distinct operator of `fused`
// (schedule knowledge): Spearman's rho over `samples` uniform valid configurations, and how
// often both call a configuration infeasible / failed.
boost::json::array rank_correlation(const std::string& model,
                                    const std::vector<aoe::FusedOperator>& fused,
                                    const aoe::SimulatorBackend& backend, std::size_t samples) {
  boost::json::array out;
  std::map<std::string, bool> seen;
  for (const auto& f : fused) {
    const std::string key = aoe::operator_key_text(f.op, "");
    if (seen[key]) continue;
    seen[key] = true;
    auto runner = backend.create(f.op, aoe::KnowledgeKind::schedule);
    if (!runner || runner->space().dimensions() == 0) continue;
    auto analytic = aoe::AnalyticCostModel::create(backend.soc(), f.op, runner->space());
    if (!analytic) continue;
    aoe::Rng rng(aoe::detail::fnv1a(key));
    std::vector<double> sim, pred;
    std::size_t both_fail = 0, sim_fail = 0, model_fail = 0;
    for (std::size_t i = 0; i < samples; ++i) {
      const auto c = runner->space().sample(rng);
      if (!c) break;
      const auto m = runner->evaluate(*c);
      const double p = analytic->predict_seconds(*c);
      const bool sf = !m.ok(), mf = !std::isfinite(p);
      both_fail += sf && mf ? 1 : 0;
      sim_fail += sf ? 1 : 0;
      model_fail += mf ? 1 : 0;
      sim.push_back(sf ? HUGE_VAL : m.value);
      pred.push_back(p);
    }
    if (sim.size() < 3) continue;
    std::vector<double> sim_ok, pred_ok;  // where both give a time
    for (std::size_t i = 0; i < sim.size(); ++i) {
      if (std::isfinite(sim[i]) && std::isfinite(pred[i])) {
        sim_ok.push_back(sim[i]);
        pred_ok.push_back(pred[i]);
      }
    }
    boost::json::object o;
    o["model"] = model;
    o["operator"] = f.op.name;
    o["type"] = f.op.type;
    o["samples"] = static_cast<std::int64_t>(sim.size());
    o["spearman"] = spearman(sim, pred);
    o["spearman_both_valid"] = sim_ok.size() >= 3 ? spearman(sim_ok, pred_ok) : 0.0;
    o["both_valid"] = static_cast<std::int64_t>(sim_ok.size());
    o["simulator_failures"] = static_cast<std::int64_t>(sim_fail);
    o["model_infeasible"] = static_cast<std::int64_t>(model_fail);
    o["both"] = static_cast<std::int64_t>(both_fail);
    out.push_back(std::move(o));
  }
  return out;
}

struct Point {
  double model_fraction = 0;
  double median = 0;
  double worst = 0;
  double cpu_per_evaluation = 0;
  std::size_t above = 0;
  std::size_t evaluations = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string models_dir;
  std::string shared_dir;
  std::vector<std::string> models{"resnet50",
                                  "bert_base",
                                  "mobilenet_v2",
                                  "gpt2_block",
                                  "ch_ppocr_mobile_v2.0_cls_infer",
                                  "ch_PP-OCRv4_det_infer"};
  std::vector<std::string> searches{"evolutionary", "annealing", "bayesian"};
#if defined(AOE_WITH_XGBOOST)
  searches.push_back("xgboost");
  searches.push_back("evolutionary-xgboost");
#endif
  std::vector<std::size_t> budgets{8, 16, 32, 64, 128, 400};
  std::size_t seeds = 3;
  std::string soc_name = "Ascend910A";
  std::vector<std::string> bank_from;
  bool verbose = false;
  std::size_t rank_samples = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--verbose") {
      verbose = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "tuning_cost: " << a << " needs a value\n";
      return 2;
    }
    const std::string v = argv[++i];
    if (a == "--models") {
      models_dir = v;
    } else if (a == "--shared") {
      shared_dir = v;
    } else if (a == "--model") {
      models = split(v);
    } else if (a == "--search") {
      searches = split(v);
    } else if (a == "--budgets") {
      budgets.clear();
      for (const auto& b : split(v)) budgets.push_back(std::stoul(b));
    } else if (a == "--seeds") {
      seeds = std::stoul(v);
    } else if (a == "--soc") {
      soc_name = v;
    } else if (a == "--bank-from") {
      bank_from = split(v);
    } else if (a == "--rank-correlation") {
      rank_samples = std::stoul(v);
    } else {
      std::cerr << "tuning_cost: unknown option " << a << "\n";
      return 2;
    }
  }
#ifdef AOE_SOURCE_DIR
  if (models_dir.empty()) models_dir = std::string(AOE_SOURCE_DIR) + "/examples/models";
  if (shared_dir.empty()) shared_dir = std::string(AOE_SOURCE_DIR) + "/../../shared/models";
#endif
  for (const auto& s : searches) {
    if (auto ok = aoe::make_opat_search(s); !ok) {
      std::cerr << "tuning_cost: --search: " << ok.error().message << "\n";
      return 2;
    }
  }
  auto soc = aoe::sim::Soc::builtin(soc_name);
  if (!soc) {
    std::cerr << "tuning_cost: --soc: " << soc.error().message << "\n";
    return 2;
  }
  const fs::path scratch =
      fs::temp_directory_path() / ("aoe_tuning_cost_" + std::to_string(::getpid()));
  boost::json::array results;
  int status = 0;
  // The model called `name`: a bundled JSON model or an ONNX model of the shared folder.
  const auto load = [&](const std::string& name) -> aoe::Result<aoe::Graph> {
    if (fs::exists(fs::path(models_dir) / (name + ".json"))) {
      return aoe::load_graph(fs::path(models_dir) / (name + ".json"));
    }
    if (fs::exists(fs::path(shared_dir) / (name + ".onnx"))) {
#if defined(AOE_WITH_ONNX)
      const std::string shape =
          name.find("det") != std::string::npos ? "x:1,3,640,640" : "x:1,3,48,192";
      auto shapes = aoe::parse_input_shape(shape);
      if (!shapes) return shapes.error();
      return aoe::load_onnx(fs::path(shared_dir) / (name + ".onnx"), {.input_shapes = *shapes});
#else
      return aoe::make_error(aoe::Errc::unsupported, "this build has no ONNX import");
#endif
    }
    return aoe::make_error(aoe::Errc::not_found,
                           "not found in " + models_dir + " or " + shared_dir);
  };
  std::vector<aoe::Graph> bank_graphs;
  for (const auto& name : bank_from) {
    auto g = load(name);
    if (!g) {
      std::cerr << "tuning_cost: --bank-from " << name << ": " << g.error().message << "\n";
      return 2;
    }
    bank_graphs.push_back(std::move(*g));
  }
  for (const auto& name : models) {
    auto graph = load(name);
    if (!graph) {
      std::cerr << "tuning_cost: " << name << ": " << graph.error().message << ": skipped\n";
      if (graph.error().code != aoe::make_error_code(aoe::Errc::not_found) &&
          graph.error().code != aoe::make_error_code(aoe::Errc::unsupported)) {
        status = 1;
      }
      continue;
    }
    const auto fused = aoe::fuse(*graph);
    if (rank_samples > 0) {
      for (auto& r : rank_correlation(name, fused, aoe::SimulatorBackend(*soc), rank_samples)) {
        if (verbose) std::cerr << boost::json::serialize(r) << "\n";
        results.push_back(std::move(r));
      }
      continue;
    }
    std::map<std::string, const aoe::FusedOperator*> by_name;
    for (const auto& f : fused) by_name[f.op.name] = &f;
    std::map<std::string, double> oracle_us;  // by operator key text
    aoe::SimulatorBackend plain(*soc);
    for (const auto& search : searches) {
      for (const std::size_t budget : budgets) {
        Point mean;
        std::size_t runs = 0;
        boost::json::array per_seed;  // each seed's own figures, for intervals over seeds
        for (std::size_t seed = 0; seed < seeds; ++seed) {
          fs::remove_all(scratch);
          aoe::KnowledgeBank bank({.custom_root = scratch / "bank"});
          TimedBackend backend{aoe::SimulatorBackend(*soc)};
          aoe::OpatOptions options{.scope = plain.scope(),
                                   .search = search,
                                   .budget = {.evaluations = budget, .patience = budget},
                                   .seed = seed,
                                   .parallel = 1,
                                   .run = {.result_dir = scratch / "work"}};
          for (const auto& g : bank_graphs) {
            aoe::SimulatorBackend fill(*soc);
            if (auto ok = aoe::run_opat(g, fill, bank, options); !ok) {
              std::cerr << "tuning_cost: --bank-from " << g.name << ": " << ok.error().message
                        << "\n";
              return 1;
            }
          }
          const double cpu0 = cpu_seconds();
          auto job = aoe::run_opat(*graph, backend, bank, options);
          const double cpu = cpu_seconds() - cpu0;
          if (!job) {
            std::cerr << "tuning_cost: " << name << " " << search << ": " << job.error().message
                      << "\n";
            status = 1;
            continue;
          }
          std::vector<double> fractions;
          double tuned = 0;
          double best = 0;
          Point p;
          for (const auto& op : job->report.operators) {
            if (op.failed() || op.kinds.empty()) continue;
            const auto* f = by_name.at(op.op_name);
            const std::string key = aoe::operator_key_text(f->op, "");
            auto it = oracle_us.find(key);
            if (it == oracle_us.end()) {
              auto runner = plain.create(f->op, aoe::KnowledgeKind::schedule);
              if (!runner) continue;
              it = oracle_us.emplace(key, aoe::sim::oracle(*runner).value * 1e6).first;
            }
            const double after = op.kinds.front().after_us;
            fractions.push_back(it->second / after);
            if (verbose) {
              std::cerr << "  " << op.op_name << " " << op.op_type << " default "
                        << op.kinds.front().before_us << " tuned " << after << " oracle "
                        << it->second << " fraction " << it->second / after << " evaluations "
                        << op.evaluations << "\n";
            }
            p.above += it->second > after * (1 + 1e-9) ? 1 : 0;
            tuned += after;
            best += it->second;
            p.evaluations += op.evaluations;
          }
          if (fractions.empty()) continue;
          std::sort(fractions.begin(), fractions.end());
          p.model_fraction = best / tuned;
          p.median = fractions[fractions.size() / 2];
          p.worst = fractions.front();
          p.cpu_per_evaluation = p.evaluations ? std::max(0.0, cpu - backend.spent) /
                                                     static_cast<double>(p.evaluations)
                                               : 0;
          per_seed.push_back(boost::json::object{{"seed", static_cast<std::int64_t>(seed)},
                                                 {"model_fraction_of_oracle", p.model_fraction},
                                                 {"median_operator_fraction", p.median},
                                                 {"worst_operator_fraction", p.worst}});
          mean.model_fraction += p.model_fraction;
          mean.median += p.median;
          mean.worst += p.worst;
          mean.cpu_per_evaluation += p.cpu_per_evaluation;
          mean.above += p.above;
          mean.evaluations += p.evaluations;
          ++runs;
        }
        if (runs == 0) continue;
        const auto n = static_cast<double>(runs);
        boost::json::object o;
        o["model"] = name;
        o["search"] = search;
        o["evaluations_per_operator"] = static_cast<std::int64_t>(budget);
        o["model_fraction_of_oracle"] = mean.model_fraction / n;
        o["median_operator_fraction"] = mean.median / n;
        o["worst_operator_fraction"] = mean.worst / n;
        o["search_cpu_seconds_per_evaluation"] = mean.cpu_per_evaluation / n;
        o["seeds"] = static_cast<std::int64_t>(runs);
        o["evaluations"] = static_cast<double>(mean.evaluations) / n;
        o["operators_above_oracle"] = static_cast<std::int64_t>(mean.above);
        o["per_seed"] = std::move(per_seed);
        // Each point on stderr as it ends, so that a run stopped early keeps what it measured.
        std::cerr << boost::json::serialize(o) << "\n";
        results.push_back(std::move(o));
      }
    }
  }
  fs::remove_all(scratch);
  boost::json::object root;
  root["default_search"] = aoe::OpatOptions{}.search;
  root["results"] = std::move(results);
  std::cout << boost::json::serialize(root) << "\n";
  return status;
}
