// The JSON of an experiment, as `aoe-bench --json` writes it: per input and strategy the
// figures, curves and 95% intervals, a summary over the inputs and the settings
// (docs/research.md#the-json). Boost.JSON.
#ifndef AOE_EXPERIMENT_JSON_HPP
#define AOE_EXPERIMENT_JSON_HPP

#include "aoe/experiment/problem.hpp"
#include "aoe/experiment/results.hpp"
#include "aoe/experiment/settings.hpp"
#include "aoe/measure/replay/bootstrap.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aoe::experiment {

namespace detail {

inline boost::json::value number_or_null(double x) {
  if (std::isnan(x) || std::isinf(x)) return nullptr;
  return x;
}

inline boost::json::array curve(const std::vector<double>& values) {
  boost::json::array a;
  a.reserve(values.size());
  for (const double v : values) a.push_back(number_or_null(v));
  return a;
}

inline boost::json::value interval(std::vector<double> replicates, double level) {
  const auto ci = replay::percentile_interval(std::move(replicates), level);
  if (std::isnan(ci.low) || std::isnan(ci.high)) return nullptr;
  return boost::json::array{ci.low, ci.high};
}

inline std::string fraction_key(double p) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%.2f", p);
  return buffer;
}

// The interval of the median run's evaluations to a fraction: an end beyond the run (the
// resampled median runs did not reach it) is null, and so is the interval when both are.
inline boost::json::value evaluations_interval(const std::vector<double>& replicates,
                                               double level) {
  const auto ci = replay::percentile_interval(replicates, level);
  if (std::isnan(ci.low) || std::isnan(ci.high) || std::isinf(ci.low)) return nullptr;
  return boost::json::array{ci.low, number_or_null(ci.high)};
}

// The "ci95" block of a strategy: 95% percentile-bootstrap intervals over its repetitions.
inline boost::json::object ci_block(const StrategyResult& s, double level) {
  boost::json::object fractions;
  for (const auto& [k, f] : s.fraction_of_optimum) {
    const auto it = s.fraction_replicates.find(k);
    fractions[std::to_string(k)] = it == s.fraction_replicates.end() ? boost::json::value(nullptr)
                                                                     : interval(it->second, level);
  }
  boost::json::object to;
  for (const auto& [fraction, replicates] : s.evaluations_to_replicates) {
    to[fraction_key(fraction)] = evaluations_interval(replicates, level);
  }
  boost::json::object o;
  o["fraction_of_optimum"] = std::move(fractions);
  o["evaluations_to"] = std::move(to);
  o["score"] = interval(s.score_replicates, level);
  return o;
}

// The "summary" block: per strategy, the mean over the inputs of each figure, and its interval
// from the inputs' replicates averaged replicate by replicate (a stratified bootstrap: each
// input's repetitions resampled on their own).
inline boost::json::array summary_block(const std::vector<ProblemResult>& results, double level) {
  std::vector<std::string> names;
  for (const auto& pr : results) {
    for (const auto& s : pr.strategies) {
      if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
    }
  }
  boost::json::array out;
  for (const auto& name : names) {
    std::map<std::size_t, double> sums;
    std::map<std::size_t, std::vector<double>> replicate_sums;
    std::map<std::size_t, std::size_t> counts;
    double score_sum = 0;
    std::vector<double> score_replicate_sum;
    std::size_t inputs = 0;
    std::size_t repeats = 0;
    bool complete = true;  // every input has every figure and its replicates
    const auto add = [&](std::vector<double>& total, const std::vector<double>& replicates) {
      if (total.empty()) total.assign(replicates.size(), 0.0);
      if (total.size() != replicates.size()) {
        complete = false;
        return;
      }
      for (std::size_t b = 0; b < total.size(); ++b) total[b] += replicates[b];
    };
    for (const auto& pr : results) {
      for (const auto& s : pr.strategies) {
        if (s.name != name) continue;
        ++inputs;
        repeats = s.repeats;
        score_sum += s.score;
        add(score_replicate_sum, s.score_replicates);
        for (const auto& [k, f] : s.fraction_of_optimum) {
          const auto it = s.fraction_replicates.find(k);
          if (std::isnan(f) || it == s.fraction_replicates.end()) continue;
          sums[k] += f;
          ++counts[k];
          add(replicate_sums[k], it->second);
        }
      }
    }
    boost::json::object o;
    o["name"] = name;
    o["inputs"] = inputs;
    o["repeats"] = repeats;
    boost::json::object fractions;
    boost::json::object fraction_ci;
    for (const auto& [k, sum] : sums) {
      // A point some input did not reach (a shorter run) is left out rather than averaged
      // over fewer inputs.
      if (counts[k] != inputs) continue;
      const auto n = static_cast<double>(inputs);
      fractions[std::to_string(k)] = sum / n;
      auto replicates = replicate_sums[k];
      for (double& r : replicates) r /= n;
      fraction_ci[std::to_string(k)] = complete ? interval(replicates, level) : nullptr;
    }
    o["fraction_of_optimum"] = std::move(fractions);
    o["score"] = number_or_null(score_sum / static_cast<double>(inputs));
    for (double& r : score_replicate_sum) r /= static_cast<double>(inputs);
    boost::json::object ci;
    ci["fraction_of_optimum"] = std::move(fraction_ci);
    ci["score"] = complete ? interval(score_replicate_sum, level) : nullptr;
    o["ci95"] = std::move(ci);
    out.push_back(std::move(o));
  }
  return out;
}

// A strategy's "traces": per repetition, its values (null where it failed), the device seconds
// charged and the wall seconds of the run; with a pareto objective, its energies.
inline boost::json::array traces_json(const std::vector<Trace>& traces) {
  boost::json::array out;
  for (const auto& t : traces) {
    boost::json::array costs;
    for (const double c : t.costs) costs.push_back(c);
    boost::json::object o{
        {"values", curve(t.values)}, {"costs", std::move(costs)}, {"seconds", t.seconds}};
    if (!t.energies.empty()) o["energies"] = curve(t.energies);  // pareto: joules, null: none
    out.push_back(std::move(o));
  }
  return out;
}

// One strategy's figures on one input.
inline boost::json::object strategy_json(const StrategyResult& s, const Settings& settings) {
  boost::json::object o;
  o["name"] = s.name;
  o["repeats"] = s.repeats;
  o["budget"] = s.budget;
  boost::json::object fractions;
  for (const auto& [k, f] : s.fraction_of_optimum) {
    fractions[std::to_string(k)] = number_or_null(f);
  }
  o["fraction_of_optimum"] = std::move(fractions);
  boost::json::object to;
  for (const auto& [fraction, k] : s.evaluations_to) {
    to[fraction_key(fraction)] = k ? boost::json::value(*k) : boost::json::value(nullptr);
  }
  o["evaluations_to"] = std::move(to);
  o["score"] = number_or_null(s.score);
  o["score_evaluations"] = boost::json::array{s.score_range.first, s.score_range.last};
  o["run_length"] = s.run_length;
  o["best_so_far_median"] = curve(s.best_median);
  o["best_so_far_mean"] = curve(s.best_mean);
  o["best_so_far_q1"] = curve(s.best_q1);
  o["best_so_far_q3"] = curve(s.best_q3);
  o["fraction_of_optimum_mean"] = curve(s.fraction_mean);
  boost::json::array evals;
  for (const auto e : s.evaluations_run) evals.push_back(e);
  o["evaluations_run"] = std::move(evals);
  o["ci95"] = ci_block(s, settings.bootstrap.level);
  if (!s.hypervolume.empty()) {
    // Pareto: the found front's hypervolume over the recorded front's, with its 95% interval.
    boost::json::object hv;
    for (const auto& [k, h] : s.hypervolume) {
      const auto ci =
          replay::percentile_interval(s.hypervolume_replicates.at(k), settings.bootstrap.level);
      hv[std::to_string(k)] = boost::json::object{{"mean", number_or_null(h)},
                                                  {"ci_low", number_or_null(ci.low)},
                                                  {"ci_high", number_or_null(ci.high)}};
    }
    o["hypervolume"] = std::move(hv);
  }
  if (settings.traces) o["traces"] = traces_json(s.traces);
  return o;
}

// One input: what it is, random search's expected figures and every strategy's.
inline boost::json::object input_json(const ProblemResult& pr, const Settings& settings) {
  const Problem& p = *pr.problem;
  boost::json::object in;
  in["name"] = p.name;
  in["source"] = p.source;
  in["optimum"] = number_or_null(p.optimum());
  in["configurations"] = p.configurations;
  in["valid_configurations"] = p.valid_configurations;
  if (settings.transfer) {
    boost::json::array sources;
    for (const auto& s : p.transfer_sources) sources.push_back(boost::json::value(s));
    in["transfer_sources"] = std::move(sources);
    boost::json::array weights;
    for (const auto& w : p.transfer_weights) {
      weights.push_back({{"source", w.device},
                         {"weight", w.weight},
                         {"predicted", w.predicted},
                         {"seeds", w.seeds}});
    }
    in["transfer_weights"] = std::move(weights);
    in["transfer_configurations"] = p.transfer.size();
  }
  boost::json::object random;
  for (const std::size_t k : report_points(settings.budget)) {
    random[std::to_string(k)] = p.baseline.expected_fraction(k);
  }
  in["random_expected_fraction_of_optimum"] = std::move(random);
  boost::json::array strategies;
  for (const auto& s : pr.strategies) strategies.push_back(strategy_json(s, settings));
  in["strategies"] = std::move(strategies);
  return in;
}

// The "settings" block: what the run was asked for.
inline boost::json::object settings_json(const Settings& settings) {
  boost::json::object run;
  run["seed"] = settings.seed;
  run["repeats"] = settings.repeats;
  run["budget"] = settings.budget;
  run["budget_seconds"] = settings.budget_seconds ? boost::json::value(*settings.budget_seconds)
                                                  : boost::json::value(nullptr);
  run["methodology_cutoff"] = settings.methodology.cutoff;
  run["methodology_cutoff_start"] = settings.methodology.cutoff_start;
  run["methodology_count_failures"] = settings.methodology.count_failures;
  run["start_from_default"] = settings.start_from_default;
  run["transfer"] = settings.transfer;
  run["objective_unit"] = "seconds";
  // Only where the objective is not plain time: a time run's JSON is as before.
  if (!settings.objective.plain_time()) run["objective"] = settings.objective.label();
  boost::json::object boot;
  boot["method"] = "percentile bootstrap over the repetitions";
  boot["resamples"] = settings.bootstrap.resamples;
  boot["level"] = settings.bootstrap.level;
  boot["seed"] = settings.bootstrap.seed;
  run["bootstrap"] = std::move(boot);
  return run;
}

}  // namespace detail

/// {"inputs": [{"name", "optimum", "configurations", "valid_configurations", "strategies":
/// [{"name", "repeats", "budget", "fraction_of_optimum": {"25", "50", "100", "200",
/// "<budget>"}, "evaluations_to": {"0.95", "0.98", "0.99"}, "score", "best_so_far_median":
/// [...], "ci95": {"fraction_of_optimum": {...}, "evaluations_to": {...}, "score"}}]}]} plus
/// fields other tools may ignore (documented in docs/research.md). Values the run did not reach
/// are null; so is an interval's end beyond the run.
[[nodiscard]] inline boost::json::value to_json(const std::vector<ProblemResult>& results,
                                                const Settings& settings) {
  boost::json::object root;
  boost::json::array inputs;
  for (const auto& pr : results) inputs.push_back(detail::input_json(pr, settings));
  root["inputs"] = std::move(inputs);
  root["summary"] = detail::summary_block(results, settings.bootstrap.level);
  root["settings"] = detail::settings_json(settings);
  return root;
}

/// `to_json` as text, one line and a newline: the bytes of `aoe-bench --json`.
[[nodiscard]] inline std::string json_text(const std::vector<ProblemResult>& results,
                                           const Settings& settings) {
  return boost::json::serialize(to_json(results, settings)) + "\n";
}

}  // namespace aoe::experiment

#endif  // AOE_EXPERIMENT_JSON_HPP
