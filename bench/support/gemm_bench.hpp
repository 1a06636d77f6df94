// What the GEMM benches against a vendor library share (bench/opencl_bench.cpp against CLBlast,
// bench/cuda_bench.cpp against cuBLAS): the JSON rows, measurements shared between the runs of
// one process, each policy's live runs at 25, 50, 100, ... evaluations, a recorded space
// replayed, and the SVG of best GFLOP/s against evaluations.
#ifndef AOE_BENCH_SUPPORT_GEMM_BENCH_HPP
#define AOE_BENCH_SUPPORT_GEMM_BENCH_HPP

#include <aoe/measure/replay/kernel_tuner_writer.hpp>
#include <aoe/measure/replay/load.hpp>
#include <aoe/measure/replay/record.hpp>
#include <aoe/measure/replay/replay_runner.hpp>
#include <aoe/measure/statistics.hpp>
#include <aoe/search/by_name.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace aoe_bench {

using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// One row of the JSON's "results" (field names fixed: scripts read them).
struct Row {
  std::string kernel, tuner;
  std::size_t evaluations = 0;
  double best_gflops = 0, wall_seconds = 0;
  boost::json::object extra{};
};

inline boost::json::object to_json(const Row& r) {
  boost::json::object o{{"kernel", r.kernel},
                        {"tuner", r.tuner},
                        {"evaluations", r.evaluations},
                        {"best_gflops", r.best_gflops},
                        {"wall_seconds", r.wall_seconds}};
  for (const auto& kv : r.extra) o[kv.key()] = kv.value();
  return o;
}

/// The JSON object in `path` when it parses and has a "results" member (the benches' files,
/// CLBlast's tuner's and Kernel Tuner's scripts' alike); nullopt otherwise.
inline std::optional<boost::json::object> read_results_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  auto root = boost::json::parse(text.str(), ec);
  if (ec || !root.is_object() || !root.as_object().contains("results")) return std::nullopt;
  return std::move(root.as_object());
}

inline std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

/// Measurements shared between the runs of this process: a configuration measured once is not
/// measured again. Reports device time, so that the tuner charges each trial the cost of its
/// original measurement (a run's wall_seconds is what it would have cost alone).
template <class Runner>
class SharedMeasurements {
 public:
  using Timing = std::decay_t<decltype(std::declval<Runner&>().timings()[0])>;
  static constexpr bool reports_device_time = true;
  SharedMeasurements(Runner* runner, std::map<aoe::Configuration, aoe::Measurement>* cache)
      : runner_(runner), cache_(cache) {}
  std::vector<aoe::Measurement> measure(aoe::SpaceView view,
                                        std::span<const aoe::Configuration> batch) {
    std::vector<aoe::Configuration> todo;
    for (const auto& c : batch) {
      if (!cache_->contains(c) && std::find(todo.begin(), todo.end(), c) == todo.end()) {
        todo.push_back(c);
      }
    }
    if (!todo.empty()) {
      const auto m = runner_->measure(view, todo);
      for (std::size_t i = 0; i < todo.size(); ++i) {
        cache_->emplace(todo[i], m[i]);
        timing_[todo[i]] = runner_->timings()[i];
      }
    }
    std::vector<aoe::Measurement> out;
    timings_.clear();
    for (const auto& c : batch) {
      out.push_back(cache_->at(c));
      timings_.push_back(timing_[c]);
    }
    return out;
  }
  /// Where the time of each configuration of the last batch went (for the recording).
  [[nodiscard]] const std::vector<Timing>& timings() const { return timings_; }
  /// Every configuration's timing measured so far.
  [[nodiscard]] const std::map<aoe::Configuration, Timing>& all_timings() const { return timing_; }

 private:
  Runner* runner_;
  std::map<aoe::Configuration, aoe::Measurement>* cache_;
  std::map<aoe::Configuration, Timing> timing_;
  std::vector<Timing> timings_;
};

/// What the live and replayed runs of a bench need.
struct RunSettings {
  std::vector<std::string> policies;
  std::size_t seeds = 1;              ///< live runs per policy
  std::size_t max_evaluations = 200;  ///< live budget: 25, 50, ... up to this
  std::size_t batch = 4;              ///< configurations per batch (compiled in parallel)
  std::size_t replay_seeds = 30;
  std::int64_t size = 0;  ///< M = N = K
  double flops = 0;       ///< of one GEMM
  /// Each live run's best configurations kept for re-measurement (live_rows' `incumbents`).
  std::size_t keep_top = 3;
};

/// A live run's best configurations by its own measurements, best first, at its last
/// evaluation: what it would declare best, re-measured before it is (bench/opencl_bench).
struct RunIncumbents {
  std::string policy;
  std::size_t seed = 0;
  std::size_t evaluations = 0;
  std::vector<aoe::Configuration> top;
  std::vector<double> seconds;  ///< as the search measured them
};

namespace detail {

inline RunIncumbents top_of(const std::string& policy, std::size_t seed, const auto& history,
                            std::size_t keep) {
  RunIncumbents out{policy, seed, history.size(), {}, {}};
  std::vector<std::pair<double, const aoe::Configuration*>> ok;
  for (const auto& t : history) {
    if (t.measurement.ok()) ok.emplace_back(t.measurement.value, &t.configuration);
  }
  std::sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [value, configuration] : ok) {
    if (out.top.size() == keep) break;
    if (std::find(out.top.begin(), out.top.end(), *configuration) != out.top.end()) continue;
    out.top.push_back(*configuration);
    out.seconds.push_back(value);
  }
  return out;
}

}  // namespace detail

/// Each policy tunes through `measure` (SharedMeasurements over the runner), `seeds` runs:
/// rows of the mean best GFLOP/s at 25, 50, ... evaluations, the wall seconds (the costs of the
/// measurements and the search) and, when `compile_seconds` is given, the compile seconds of
/// the configurations the run measured; when `incumbents` is given, each run's `keep_top` best
/// configurations. Returns false after printing why a policy is unknown.
template <class Measure>
bool live_rows(const RunSettings& s, const aoe::Space& space, const Measure& measure,
               std::vector<Row>& rows,
               const std::function<double(const aoe::Configuration&)>& compile_seconds = {},
               std::vector<RunIncumbents>* incumbents = nullptr) {
  std::vector<std::size_t> checkpoints;
  for (std::size_t e = 25; e <= s.max_evaluations; e *= 2) checkpoints.push_back(e);
  const auto begin = Clock::now();
  for (const auto& policy : s.policies) {
    std::map<std::size_t, std::vector<double>> best_at, wall_at, compile_at;
    for (std::size_t seed = 1; seed <= s.seeds; ++seed) {
      auto search = aoe::make_search(policy);
      if (!search) {
        std::fprintf(stderr, "%s\n", search.error().message.c_str());
        return false;
      }
      aoe::Tuner<aoe::AnySearch, Measure> tuner(
          std::move(*search), Measure(measure),
          aoe::TunerOptions{.seed = seed, .batch_size = s.batch});
      const auto result = tuner.tune(space, aoe::MaxEvaluations{s.max_evaluations});
      double best = std::numeric_limits<double>::infinity();
      double compiled = 0;
      std::size_t next = 0;
      for (const auto& t : result.history) {
        if (t.measurement.ok()) best = std::min(best, t.measurement.value);
        if (compile_seconds) compiled += compile_seconds(t.configuration);
        while (next < checkpoints.size() && t.evaluation == checkpoints[next]) {
          best_at[checkpoints[next]].push_back(std::isfinite(best) ? s.flops / best * 1e-9 : 0);
          wall_at[checkpoints[next]].push_back(t.finished);
          compile_at[checkpoints[next]].push_back(compiled);
          ++next;
        }
      }
      std::fprintf(stderr, "%s seed %zu: %zu evaluations, best %.2f GFLOP/s (%.0f s)\n",
                   policy.c_str(), seed, result.history.size(),
                   std::isfinite(best) ? s.flops / best * 1e-9 : 0.0, since(begin));
      if (incumbents != nullptr) {
        incumbents->push_back(detail::top_of(policy, seed, result.history, s.keep_top));
      }
    }
    for (const auto e : checkpoints) {
      const auto& g = best_at[e];
      if (g.empty()) continue;
      Row r{"aoe_gemm",
            policy,
            e,
            aoe::mean(g),
            aoe::mean(wall_at[e]),
            {{"size", s.size},
             {"seeds", g.size()},
             {"best_gflops_min", *std::min_element(g.begin(), g.end())},
             {"best_gflops_max", *std::max_element(g.begin(), g.end())},
             {"best_gflops_stddev", aoe::stddev(g)}}};
      if (compile_seconds) r.extra["compile_seconds"] = aoe::mean(compile_at[e]);
      rows.push_back(std::move(r));
    }
  }
  return true;
}

/// Records `configurations` through `measure` (a Kernel Tuner cache at `cache_path`), loads the
/// file back as a researcher would and replays it with every policy, `replay_seeds` runs each:
/// rows of the mean fraction of the recorded optimum at 25, 50 and 100 evaluations, and random
/// search's exact expectation. Returns the replayed recording (nullptr after printing why).
template <class Measure>
std::shared_ptr<const aoe::replay::Recording> replay_rows(
    const RunSettings& s, const aoe::Space& space,
    const std::vector<aoe::Configuration>& configurations, Measure& measure,
    const aoe::replay::RecordOptions& options, const std::string& cache_path,
    std::vector<Row>& rows) {
  const auto t0 = Clock::now();
  const auto recording = aoe::replay::record(measure, space, configurations, options);
  (void)aoe::replay::write_kernel_tuner_cache(recording, cache_path);
  auto loaded = aoe::replay::load(cache_path);  // what a researcher replays offline
  if (!loaded) {
    std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
    return nullptr;
  }
  const auto replayed = std::make_shared<const aoe::replay::Recording>(std::move(*loaded));
  const double optimum = replayed->optimum();
  std::fprintf(stderr,
               "recorded %zu configurations (%zu valid) in %.0f s: optimum %.2f GFLOP/s -> %s\n",
               replayed->configurations(), replayed->valid_configurations(), since(t0),
               s.flops / optimum * 1e-9, cache_path.c_str());
  const std::vector<std::size_t> budgets{25, 50, 100};
  for (const auto& policy : s.policies) {
    std::map<std::size_t, std::vector<double>> fraction;
    std::vector<double> to_098;
    for (std::size_t seed = 1; seed <= s.replay_seeds; ++seed) {
      aoe::Tuner<aoe::AnySearch, aoe::ReplayRunner> tuner(
          aoe::make_search(policy).value(), aoe::ReplayRunner(replayed),
          aoe::TunerOptions{.seed = seed, .batch_size = s.batch});
      const auto result =
          tuner.tune(replayed->space(), aoe::MaxEvaluations{replayed->configurations()});
      double best = std::numeric_limits<double>::infinity();
      std::size_t reached = 0;
      for (const auto& t : result.history) {
        if (t.measurement.ok()) best = std::min(best, t.measurement.value);
        for (const auto b : budgets) {
          if (t.evaluation == b) fraction[b].push_back(optimum / best);
        }
        if (reached == 0 && optimum / best >= 0.98) reached = t.evaluation;
      }
      to_098.push_back(static_cast<double>(reached == 0 ? result.history.size() : reached));
    }
    for (const auto b : budgets) {
      if (fraction[b].empty()) continue;
      rows.push_back({"aoe_gemm",
                      policy,
                      b,
                      s.flops / optimum * 1e-9 * aoe::mean(fraction[b]),
                      0,
                      {{"size", s.size},
                       {"replayed", true},
                       {"fraction_of_optimum", aoe::mean(fraction[b])},
                       {"replay_seeds", s.replay_seeds},
                       {"mean_evaluations_to_0.98", aoe::mean(to_098)}}});
    }
  }
  std::size_t random_to_098 = replayed->configurations();
  for (std::size_t k = 1; k <= replayed->configurations(); ++k) {
    if (replayed->expected_random_fraction(k) >= 0.98) {
      random_to_098 = k;
      break;
    }
  }
  for (const auto b : budgets) {
    Row r{"aoe_gemm", "random_expected", b, s.flops / replayed->expected_random_best(b) * 1e-9, 0};
    r.extra["size"] = s.size;
    r.extra["replayed"] = true;
    r.extra["fraction_of_optimum"] = replayed->expected_random_fraction(b);
    r.extra["evaluations_to_0.98"] = random_to_098;
    r.extra["recorded_configurations"] = replayed->configurations();
    r.extra["recorded_optimum_gflops"] = s.flops / optimum * 1e-9;
    rows.push_back(std::move(r));
  }
  return replayed;
}

/// A horizontal line of the plot: a vendor library's GFLOP/s.
struct Reference {
  double gflops = 0;
  std::string label;
  std::string dash;  ///< SVG stroke-dasharray
};

/// Best GFLOP/s against evaluations, one line per tuner of the live rows of kernel `kernel`
/// (rows with "fraction_of_optimum" are replayed and left out), and the references as
/// horizontal lines (SVG).
inline void write_svg(const std::string& path, const std::vector<Row>& rows,
                      const std::vector<Reference>& references, std::size_t max_evaluations,
                      const std::string& kernel = "aoe_gemm") {
  double top = 0;
  for (const auto& ref : references) top = std::max(top, ref.gflops);
  for (const auto& r : rows) top = std::max(top, r.best_gflops);
  top = std::ceil(top / 10 + 0.5) * 10;
  const double w = 720, h = 420, left = 60, right = 170, bottom = 50, upper = 20;
  const auto x = [&](double e) {
    return left + (w - left - right) * std::log2(e / 25.0) / std::log2(max_evaluations / 25.0);
  };
  const auto y = [&](double g) { return h - bottom - (h - bottom - upper) * g / top; };
  std::ofstream out(path);
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h
      << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' "
         "fill='white'/>\n";
  out << "<text x='" << left << "' y='14'>best GFLOP/s (mean over seeds) against evaluations"
      << "</text>\n";
  for (double g = 0; g <= top; g += top / 5) {
    out << "<line x1='" << left << "' x2='" << w - right << "' y1='" << y(g) << "' y2='" << y(g)
        << "' stroke='#ddd'/><text x='" << left - 8 << "' y='" << y(g) + 4 << "' text-anchor='end'>"
        << static_cast<int>(g) << "</text>\n";
  }
  for (std::size_t e = 25; e <= max_evaluations; e *= 2) {
    out << "<text x='" << x(static_cast<double>(e)) << "' y='" << h - bottom + 16
        << "' text-anchor='middle'>" << e << "</text>\n";
  }
  const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  std::map<std::string, std::vector<const Row*>> lines;
  for (const auto& r : rows) {
    if (r.kernel == kernel && !r.extra.contains("fraction_of_optimum") && r.evaluations >= 25) {
      lines[r.tuner].push_back(&r);
    }
  }
  std::size_t i = 0;
  for (const auto& [name, points] : lines) {
    const char* colour = colours[i % 10];
    out << "<polyline fill='none' stroke='" << colour << "' stroke-width='2' points='";
    for (const Row* p : points) {
      out << x(static_cast<double>(p->evaluations)) << "," << y(p->best_gflops) << " ";
    }
    out << "'/>\n<text x='" << w - right + 8 << "' y='" << upper + 16 * (i + 1) << "' fill='"
        << colour << "'>" << name << "</text>\n";
    ++i;
  }
  for (const auto& ref : references) {
    if (ref.gflops <= 0) continue;
    out << "<line x1='" << left << "' x2='" << w - right << "' y1='" << y(ref.gflops) << "' y2='"
        << y(ref.gflops) << "' stroke='black' stroke-dasharray='" << ref.dash << "'/><text x='"
        << w - right + 8 << "' y='" << y(ref.gflops) + 4 << "'>" << ref.label << "</text>\n";
  }
  out << "<text x='" << (w - right + left) / 2 << "' y='" << h - 12
      << "' text-anchor='middle'>evaluations</text>\n</svg>\n";
}

}  // namespace aoe_bench

#endif  // AOE_BENCH_SUPPORT_GEMM_BENCH_HPP
