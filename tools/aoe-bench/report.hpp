// aoe-bench's HTML report; the JSON, the table and the SVG plot are the experiment's own
// (aoe/experiment/json.hpp, table.hpp, svg.hpp).
#ifndef AOE_TOOLS_AOE_BENCH_REPORT_HPP
#define AOE_TOOLS_AOE_BENCH_REPORT_HPP

#include <aoe/core/error.hpp>
#include <aoe/experiment/results.hpp>
#include <aoe/experiment/settings.hpp>

#include <string>
#include <vector>

namespace aoe_bench {

/// A self-contained HTML page in the style of `aoe`'s job reports (docs/reports.md): the score
/// table (per input and strategy: fraction of the optimum at the budget, the median run's
/// evaluations to 95%, 98% and 99% with their 95% intervals, the methodology score; the best
/// score of each input marked) and per input the median
/// fraction of the optimum against evaluations, one line per strategy, random search's exact
/// expectation dashed.
[[nodiscard]] std::string to_html(const std::vector<aoe::experiment::ProblemResult>& results,
                                  const aoe::experiment::Settings& settings);

/// Writes `text` to `path` (through a temporary file renamed into place).
[[nodiscard]] aoe::Result<void> write_file(const std::string& path, const std::string& text);

}  // namespace aoe_bench

#endif  // AOE_TOOLS_AOE_BENCH_REPORT_HPP
