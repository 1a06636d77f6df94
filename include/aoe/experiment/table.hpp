// The console table of an experiment: per input and strategy, the fraction of the optimum at
// the budget, the methodology score and the median run's evaluations to 98% of the optimum with
// its 95% interval, as `aoe-bench` prints it (docs/research.md).
#ifndef AOE_EXPERIMENT_TABLE_HPP
#define AOE_EXPERIMENT_TABLE_HPP

#include "aoe/experiment/problem.hpp"
#include "aoe/experiment/results.hpp"
#include "aoe/experiment/settings.hpp"
#include "aoe/measure/replay/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace aoe::experiment {

namespace detail {

// Evaluations as the table shows them: at most one decimal ("52.5", "66"), ">N" beyond the
// run of N evaluations.
inline std::string evaluations_text(double k, std::size_t run_length) {
  if (std::isinf(k)) return ">" + std::to_string(run_length);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", k);
  std::string s = buffer;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

// `format` with its arguments, as printf would print it, appended to `out`.
inline void append_format(std::string& out, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
inline void append_format(std::string& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(n) + 1);
    std::vsnprintf(out.data() + at, static_cast<std::size_t>(n) + 1, format, again);
    out.resize(at + static_cast<std::size_t>(n));
  }
  va_end(again);
}

// The widths of the tables' first two columns: 36 and 14 characters, or the longest input and
// strategy name, so that a long name does not push its row out of line.
struct NameWidths {
  int input = 36;
  int strategy = 14;
};

inline NameWidths name_widths(const std::vector<ProblemResult>& results) {
  NameWidths w;
  for (const auto& pr : results) {
    w.input = std::max(w.input, static_cast<int>(pr.problem->name.size()));
    for (const auto& s : pr.strategies) {
      w.strategy = std::max(w.strategy, static_cast<int>(s.name.size()));
    }
  }
  return w;
}

}  // namespace detail

/// The median run's evaluations to reach `fraction` of the optimum (`StrategyResult::
/// evaluations_to`) and, in brackets, its 95% interval (`evaluations_to_replicates`, at
/// `level`), as the console table and the HTML report show them: "52.5 [35.5, 72.5]". A figure
/// or an end the run did not reach is ">N", N the evaluations each repetition ran.
namespace detail {

/// Pareto: "hypervolume @k [95% CI]" per input and strategy (nothing for other objectives).
inline void append_hypervolumes(std::string& out, const std::vector<ProblemResult>& results,
                                const Settings& settings) {
  if (settings.objective.kind != ObjectiveKind::pareto) return;
  const auto w = name_widths(results);
  out += "hypervolume of the fronts found over the recorded front's (" +
         settings.objective.label() + "):\n";
  for (const auto& pr : results) {
    for (const auto& s : pr.strategies) {
      append_format(out, "%-*s %-*s", w.input, pr.problem->name.c_str(), w.strategy,
                    s.name.c_str());
      for (const auto& [k, h] : s.hypervolume) {
        const auto ci =
            replay::percentile_interval(s.hypervolume_replicates.at(k), settings.bootstrap.level);
        append_format(out, "  @%zu %.4f [%.4f, %.4f]", k, h, ci.low, ci.high);
      }
      out += '\n';
    }
  }
}

}  // namespace detail

[[nodiscard]] inline std::string evaluations_to_text(const StrategyResult& s, double fraction,
                                                     double level) {
  const auto figure = s.evaluations_to.find(fraction);
  if (figure == s.evaluations_to.end()) return "-";
  std::string text = detail::evaluations_text(
      figure->second.value_or(std::numeric_limits<double>::infinity()), s.run_length);
  const auto replicates = s.evaluations_to_replicates.find(fraction);
  if (replicates == s.evaluations_to_replicates.end()) return text;
  const auto ci = replay::percentile_interval(replicates->second, level);
  if (std::isnan(ci.low) || std::isnan(ci.high)) return text;
  return text + " [" + detail::evaluations_text(ci.low, s.run_length) + ", " +
         detail::evaluations_text(ci.high, s.run_length) + "]";
}

/// The table `aoe-bench` prints: per input and strategy, the mean and the median over the
/// repetitions of the fraction of the optimum after `settings.budget` evaluations, the
/// With a pareto objective, then the hypervolume of each strategy's fronts over the recorded
/// front's at each report point up to the budget, with its 95% interval.
/// methodology score, and the median run's evaluations to 0.98 of the optimum with its 95%
/// interval; then a note where the methodology score made each repetition run past the budget.
[[nodiscard]] inline std::string table(const std::vector<ProblemResult>& results,
                                       const Settings& settings) {
  std::string out;
  const std::string mean_label = "mean fraction @" + std::to_string(settings.budget);
  const int mean_width = static_cast<int>(std::max<std::size_t>(mean_label.size(), 8));
  const auto w = detail::name_widths(results);
  detail::append_format(out, "%-*s %-*s %*s %8s %7s  %s\n", w.input, "input", w.strategy,
                        "strategy", mean_width, mean_label.c_str(), "median", "score",
                        "median run to 0.98 [95% CI]");
  for (const auto& pr : results) {
    for (const auto& s : pr.strategies) {
      const double median = s.fraction_median.size() >= s.budget && s.budget != 0
                                ? s.fraction_median[s.budget - 1]
                                : std::numeric_limits<double>::quiet_NaN();
      detail::append_format(out, "%-*s %-*s %*.4f %8.4f %7.3f  %s\n", w.input,
                            pr.problem->name.c_str(), w.strategy, s.name.c_str(), mean_width,
                            s.fraction_of_optimum.at(s.budget), median, s.score,
                            evaluations_to_text(s, 0.98, settings.bootstrap.level).c_str());
    }
  }
  for (const auto& pr : results) {
    if (!pr.strategies.empty() && pr.strategies.front().run_length > settings.budget) {
      const auto& s = pr.strategies.front();
      detail::append_format(
          out,
          "note: %s: each repetition ran %zu evaluations, not %zu: the methodology score "
          "averages up to random search's cutoff (evaluations %zu-%zu); the fractions above "
          "are at %zu\n",
          pr.problem->name.c_str(), s.run_length, settings.budget, s.score_range.first,
          s.score_range.last, settings.budget);
    }
  }
  detail::append_hypervolumes(out, results, settings);
  return out;
}

/// A table of the fraction of the optimum with its 95% interval, per input and strategy, at each
/// report point up to the budget (25, 50, 100, 200 and the budget): "0.9131 [0.8903, 0.9352]",
/// the mean over the repetitions and the percentile-bootstrap interval of `ci95` in the JSON.
[[nodiscard]] inline std::string fraction_table(const std::vector<ProblemResult>& results,
                                                const Settings& settings) {
  std::vector<std::size_t> points;
  for (const std::size_t k : report_points(settings.budget)) {
    if (k <= settings.budget) points.push_back(k);
  }
  std::string out;
  const auto w = detail::name_widths(results);
  detail::append_format(out, "%-*s %-*s", w.input, "input", w.strategy, "strategy");
  for (const std::size_t k : points) {
    detail::append_format(out, " %-24s", ("fraction @" + std::to_string(k) + " [95% CI]").c_str());
  }
  out.erase(out.find_last_not_of(' ') + 1);
  out += '\n';
  for (const auto& pr : results) {
    for (const auto& s : pr.strategies) {
      detail::append_format(out, "%-*s %-*s", w.input, pr.problem->name.c_str(), w.strategy,
                            s.name.c_str());
      for (const std::size_t k : points) {
        const auto f = s.fraction_of_optimum.find(k);
        const auto r = s.fraction_replicates.find(k);
        const auto ci = r == s.fraction_replicates.end()
                            ? replay::Interval{}
                            : replay::percentile_interval(r->second, settings.bootstrap.level);
        std::string cell;
        detail::append_format(
            cell, "%.4f [%.4f, %.4f]",
            f == s.fraction_of_optimum.end() ? std::numeric_limits<double>::quiet_NaN() : f->second,
            ci.low, ci.high);
        detail::append_format(out, " %-24s", cell.c_str());
      }
      out.erase(out.find_last_not_of(' ') + 1);
      out += '\n';
    }
  }
  return out;
}

}  // namespace aoe::experiment

#endif  // AOE_EXPERIMENT_TABLE_HPP
