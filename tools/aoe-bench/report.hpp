// aoe-bench's outputs: the JSON contract (issue 4) and the SVG plot of the curves.
#ifndef AOE_TOOLS_AOE_BENCH_REPORT_HPP
#define AOE_TOOLS_AOE_BENCH_REPORT_HPP

#include "experiment.hpp"
#include <aoe/core/error.hpp>

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace aoe_bench {

/// {"inputs": [{"name", "optimum", "configurations", "valid_configurations", "strategies":
/// [{"name", "repeats", "budget", "fraction_of_optimum": {"25", "50", "100", "200",
/// "<budget>"}, "evaluations_to": {"0.95", "0.98", "0.99"}, "score", "best_so_far_median":
/// [...], "ci95": {"fraction_of_optimum": {...}, "evaluations_to": {...}, "score"}}]}]} plus
/// fields other tools may ignore (documented in docs/research.md). Values the run did not reach
/// are null; so is an interval's end beyond the run.
[[nodiscard]] boost::json::value to_json(const std::vector<ProblemResult>& results,
                                         const Settings& settings);

/// The median run's evaluations to reach `fraction` of the optimum (`StrategyResult::
/// evaluations_to`) and, in brackets, its 95% interval (`evaluations_to_replicates`, at
/// `level`), as the console table and the HTML report show them: "52.5 [35.5, 72.5]". A figure
/// or an end the run did not reach is ">N", N the evaluations each repetition ran.
[[nodiscard]] std::string evaluations_to_text(const StrategyResult& s, double fraction,
                                              double level);

/// An SVG: one panel per input, the fraction of the optimum (median over the repetitions,
/// with the quartile band) against evaluations, one line per strategy, and the exact
/// expectation of random search dashed.
[[nodiscard]] std::string to_svg(const std::vector<ProblemResult>& results,
                                 const Settings& settings);

/// A self-contained HTML page in the style of `aoe`'s job reports (docs/reports.md): the score
/// table (per input and strategy: fraction of the optimum at the budget, the median run's
/// evaluations to 95%, 98% and 99% with their 95% intervals, the methodology score; the best
/// score of each input marked) and per input the median
/// fraction of the optimum against evaluations, one line per strategy, random search's exact
/// expectation dashed.
[[nodiscard]] std::string to_html(const std::vector<ProblemResult>& results,
                                  const Settings& settings);

/// Writes `text` to `path` (through a temporary file renamed into place).
[[nodiscard]] aoe::Result<void> write_file(const std::string& path, const std::string& text);

}  // namespace aoe_bench

#endif  // AOE_TOOLS_AOE_BENCH_REPORT_HPP
