// aoe-bench's HTML report (--report) over the experiment's results (aoe/experiment/), and the
// atomic write of its outputs.
#include "report.hpp"

#include <aoe/experiment/table.hpp>
#include <aoe/io/atomic_file.hpp>
#include <aoe/report/html.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace aoe_bench {

using aoe::experiment::evaluations_to_text;
using aoe::experiment::ProblemResult;
using aoe::experiment::Settings;

aoe::Result<void> write_file(const std::string& path, const std::string& text) {
  return aoe::write_file_atomically(path, text);
}

std::string to_html(const std::vector<ProblemResult>& results, const Settings& settings) {
  namespace html = aoe::report::html;
  std::string b = "<h1>aoe-bench: search policy comparison</h1>";
  b += "<p class=\"sub\">" + std::to_string(results.size()) + " input(s), budget " +
       std::to_string(settings.budget) + " evaluations, " + std::to_string(settings.repeats) +
       " seeded repetitions (seed " + std::to_string(settings.seed) +
       "). Fraction of the optimum: optimum / best found (1 = the optimum); evaluations to a "
       "fraction: the median run's, with its 95% bootstrap interval over the repetitions in "
       "brackets (&gt;N: not within the N evaluations run); score: the methodology score "
       "(docs/research.md), 0 = random search.</p>";
  b += "<h2>Scores</h2><table id=\"scores\"><thead><tr><th>input</th><th>strategy</th><th "
       "class=\"n\">repeats</th><th class=\"n\">mean fraction @" +
       std::to_string(settings.budget) +
       "</th><th class=\"n\">median</th><th class=\"n\">evaluations to 95%</th><th "
       "class=\"n\">to 98%</th><th class=\"n\">to 99%</th><th "
       "class=\"n\">score</th></tr></thead><tbody>";
  for (const auto& pr : results) {
    double best = -std::numeric_limits<double>::infinity();
    for (const auto& s : pr.strategies) {
      if (std::isfinite(s.score)) best = std::max(best, s.score);
    }
    for (const auto& s : pr.strategies) {
      const double median = s.fraction_median.size() >= s.budget && s.budget != 0
                                ? s.fraction_median[s.budget - 1]
                                : std::numeric_limits<double>::quiet_NaN();
      const auto to = [&](double f) {
        return html::escape(evaluations_to_text(s, f, settings.bootstrap.level));
      };
      const auto at = s.fraction_of_optimum.find(s.budget);
      const bool top = std::isfinite(s.score) && s.score == best;
      b += "<tr><td>" + html::escape(pr.problem->name) + "</td><td>" + html::escape(s.name) +
           "</td><td class=\"n\">" + std::to_string(s.repeats) + "</td><td class=\"n\">" +
           html::num(at == s.fraction_of_optimum.end() ? std::nan("") : at->second, 4) +
           "</td><td class=\"n\">" + html::num(median, 4) + "</td><td class=\"n\">" + to(0.95) +
           "</td><td class=\"n\">" + to(0.98) + "</td><td class=\"n\">" + to(0.99) +
           "</td><td class=\"n" + (top ? " good" : "") + "\"" +
           (top ? " title=\"best score of this input\"" : "") + ">" + html::num(s.score, 3) +
           (top ? " &#9733;" : "") + "</td></tr>";
    }
  }
  b += "</tbody></table>";
  b += "<h2>Curves per input</h2><div class=\"grid\" style=\"grid-template-columns:repeat(auto-"
       "fill,minmax(540px,1fr))\">";
  for (const auto& pr : results) {
    std::vector<html::Series> series;
    std::size_t budget = 0;
    for (const auto& s : pr.strategies) {
      html::Series line{s.name, {}, false};
      for (std::size_t k = 0; k < s.fraction_median.size(); ++k) {
        const double f = s.fraction_median[k];
        line.points.emplace_back(static_cast<double>(k + 1),
                                 f > 0 ? f : std::numeric_limits<double>::quiet_NaN());
      }
      budget = std::max(budget, s.fraction_median.size());
      series.push_back(std::move(line));
    }
    html::Series random{"random (exact)", {}, true};
    for (std::size_t k = 1; k <= budget; ++k) {
      random.points.emplace_back(static_cast<double>(k), pr.problem->baseline.expected_fraction(k));
    }
    series.push_back(std::move(random));
    b += "<div class=\"cell\"><h3>" + html::escape(pr.problem->name) + "</h3><div class=\"note\">" +
         html::escape(pr.problem->source) + ", " +
         std::to_string(pr.problem->valid_configurations) + " valid of " +
         std::to_string(pr.problem->configurations) + " configurations</div>" +
         html::line_chart(series, "evaluations (log scale)", "median fraction of optimum", 520, 260,
                          true) +
         "</div>";
  }
  b += "</div>";
  return html::page("aoe-bench: search policy comparison", b);
}

}  // namespace aoe_bench
