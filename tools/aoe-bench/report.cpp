#include "report.hpp"

#include <aoe/io/atomic_file.hpp>
#include <aoe/report/html.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace aoe_bench {

namespace {

boost::json::value number_or_null(double x) {
  if (std::isnan(x) || std::isinf(x)) return nullptr;
  return x;
}

boost::json::array curve(const std::vector<double>& values) {
  boost::json::array a;
  a.reserve(values.size());
  for (const double v : values) a.push_back(number_or_null(v));
  return a;
}

boost::json::value interval(std::vector<double> replicates, double level) {
  const auto ci = aoe::replay::percentile_interval(std::move(replicates), level);
  if (std::isnan(ci.low) || std::isnan(ci.high)) return nullptr;
  return boost::json::array{ci.low, ci.high};
}

std::string fraction_key(double p) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%.2f", p);
  return buffer;
}

// The interval of the median run's evaluations to a fraction: an end beyond the run (the
// resampled median runs did not reach it) is null, and so is the interval when both are.
boost::json::value evaluations_interval(const std::vector<double>& replicates, double level) {
  const auto ci = aoe::replay::percentile_interval(replicates, level);
  if (std::isnan(ci.low) || std::isnan(ci.high) || std::isinf(ci.low)) return nullptr;
  return boost::json::array{ci.low, number_or_null(ci.high)};
}

// The "ci95" block of a strategy: 95% percentile-bootstrap intervals over its repetitions.
boost::json::object ci_block(const StrategyResult& s, double level) {
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
boost::json::array summary_block(const std::vector<ProblemResult>& results, double level) {
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

// Evaluations as the table shows them: at most one decimal ("52.5", "66"), ">N" beyond the
// run of N evaluations.
std::string evaluations_text(double k, std::size_t run_length) {
  if (std::isinf(k)) return ">" + std::to_string(run_length);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", k);
  std::string s = buffer;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

}  // namespace

std::string evaluations_to_text(const StrategyResult& s, double fraction, double level) {
  const auto figure = s.evaluations_to.find(fraction);
  if (figure == s.evaluations_to.end()) return "-";
  std::string text = evaluations_text(
      figure->second.value_or(std::numeric_limits<double>::infinity()), s.run_length);
  const auto replicates = s.evaluations_to_replicates.find(fraction);
  if (replicates == s.evaluations_to_replicates.end()) return text;
  const auto ci = aoe::replay::percentile_interval(replicates->second, level);
  if (std::isnan(ci.low) || std::isnan(ci.high)) return text;
  return text + " [" + evaluations_text(ci.low, s.run_length) + ", " +
         evaluations_text(ci.high, s.run_length) + "]";
}

namespace {

// A strategy's "traces": per repetition, its values (null where it failed), the device seconds
// charged and the wall seconds of the run.
boost::json::array traces_json(const std::vector<Trace>& traces) {
  boost::json::array out;
  for (const auto& t : traces) {
    boost::json::array costs;
    for (const double c : t.costs) costs.push_back(c);
    out.push_back(boost::json::object{
        {"values", curve(t.values)}, {"costs", std::move(costs)}, {"seconds", t.seconds}});
  }
  return out;
}

// One strategy's figures on one input.
boost::json::object strategy_json(const StrategyResult& s, const Settings& settings) {
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
  if (settings.traces) o["traces"] = traces_json(s.traces);
  return o;
}

// One input: what it is, random search's expected figures and every strategy's.
boost::json::object input_json(const ProblemResult& pr, const Settings& settings) {
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
boost::json::object settings_json(const Settings& settings) {
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
  boost::json::object boot;
  boot["method"] = "percentile bootstrap over the repetitions";
  boot["resamples"] = settings.bootstrap.resamples;
  boot["level"] = settings.bootstrap.level;
  boot["seed"] = settings.bootstrap.seed;
  run["bootstrap"] = std::move(boot);
  return run;
}

}  // namespace

boost::json::value to_json(const std::vector<ProblemResult>& results, const Settings& settings) {
  boost::json::object root;
  boost::json::array inputs;
  for (const auto& pr : results) inputs.push_back(input_json(pr, settings));
  root["inputs"] = std::move(inputs);
  root["summary"] = summary_block(results, settings.bootstrap.level);
  root["settings"] = settings_json(settings);
  return root;
}

namespace {

// Okabe-Ito colours (distinguishable with colour-vision deficiencies).
constexpr const char* palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                   "#E69F00", "#56B4E9", "#000000", "#F0E442"};

std::string fmt(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", x);
  return buffer;
}

}  // namespace

namespace {

// One problem's panel of the SVG plot: its place and scales. Fractions below `y_min` are
// clipped.
struct Panel {
  static constexpr double width = 640;
  static constexpr double height = 300;
  static constexpr double left = 70;
  static constexpr double right = 200;
  static constexpr double top = 40;
  static constexpr double bottom = 50;
  static constexpr double plot_w = width - left - right;
  static constexpr double plot_h = height - top - bottom;
  double y0 = 0;  ///< the panel's top
  double y_min = 0;
  std::size_t budget = 1;

  [[nodiscard]] double px(double k) const {
    return left + plot_w * (budget == 1 ? 0.0 : (k - 1) / static_cast<double>(budget - 1));
  }
  [[nodiscard]] double py(double f) const {
    f = std::clamp(f, y_min, 1.0);
    return y0 + top + plot_h * (1 - (f - y_min) / (1 - y_min));
  }
};

// The lowest fraction a panel shows: the lowest quartile or random search's expectation,
// rounded down to a tenth.
double panel_floor(const ProblemResult& pr, std::size_t budget) {
  double y_min = 1;
  for (const auto& s : pr.strategies) {
    for (const double f : s.fraction_q1) y_min = std::min(y_min, f);
  }
  for (std::size_t k = 1; k <= budget; ++k) {
    y_min = std::min(y_min, pr.problem->baseline.expected_fraction(k));
  }
  y_min = std::max(0.0, std::floor(y_min * 10) / 10);
  return y_min >= 1 ? 0.9 : y_min;
}

// A panel's frame: the grid and ticks of both axes and their labels.
void svg_axes(std::ostringstream& svg, const Panel& p) {
  constexpr double left = Panel::left;
  constexpr double plot_w = Panel::plot_w;
  constexpr double plot_h = Panel::plot_h;
  constexpr double top = Panel::top;
  svg << "<rect x=\"" << left << "\" y=\"" << fmt(p.y0 + top) << "\" width=\"" << plot_w
      << "\" height=\"" << plot_h << "\" fill=\"none\" stroke=\"#333\"/>\n";
  const double y_step = 1 - p.y_min <= 0.5 ? 0.1 : 0.2;
  for (double f = 1.0; f >= p.y_min - 1e-9; f -= y_step) {
    svg << "<line x1=\"" << left << "\" x2=\"" << left + plot_w << "\" y1=\"" << fmt(p.py(f))
        << "\" y2=\"" << fmt(p.py(f)) << "\" stroke=\"#ddd\"/>\n"
        << "<text x=\"" << left - 6 << "\" y=\"" << fmt(p.py(f) + 4) << "\" text-anchor=\"end\">"
        << std::lround(f * 100) << "%</text>\n";
  }
  // Evaluation ticks at 1 and at multiples of a round step.
  std::size_t x_step = 1;
  for (const std::size_t step : {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000}) {
    x_step = step;
    if (p.budget / step <= 8) break;
  }
  std::vector<std::size_t> x_ticks{1};
  for (std::size_t k = x_step; k <= p.budget; k += x_step) {
    if (k > 1) x_ticks.push_back(k);
  }
  for (const std::size_t tick : x_ticks) {
    const auto k = static_cast<double>(tick);
    svg << "<text x=\"" << fmt(p.px(k)) << "\" y=\"" << fmt(p.y0 + top + plot_h + 16)
        << "\" text-anchor=\"middle\">" << static_cast<long>(std::lround(k)) << "</text>\n";
  }
  svg << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << fmt(p.y0 + Panel::height - 12)
      << "\" text-anchor=\"middle\">evaluations</text>\n"
      << "<text transform=\"translate(16," << fmt(p.y0 + top + plot_h / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">fraction of optimum (optimum / best)</text>\n";
}

// A panel's curves: random search's exact expectation, then per strategy its quartile band and
// median line.
void svg_curves(std::ostringstream& svg, const Panel& p, const ProblemResult& pr) {
  svg << "<polyline fill=\"none\" stroke=\"#777\" stroke-width=\"1.5\" "
         "stroke-dasharray=\"5,4\" points=\"";
  for (std::size_t k = 1; k <= p.budget; ++k) {
    svg << fmt(p.px(static_cast<double>(k))) << ','
        << fmt(p.py(pr.problem->baseline.expected_fraction(k))) << ' ';
  }
  svg << "\"/>\n";
  for (std::size_t s = 0; s < pr.strategies.size(); ++s) {
    const auto& st = pr.strategies[s];
    const char* colour = palette[s % (sizeof palette / sizeof palette[0])];
    svg << "<polygon fill=\"" << colour << "\" fill-opacity=\"0.15\" stroke=\"none\" points=\"";
    for (std::size_t k = 0; k < st.fraction_q3.size(); ++k) {
      svg << fmt(p.px(static_cast<double>(k + 1))) << ',' << fmt(p.py(st.fraction_q3[k])) << ' ';
    }
    for (std::size_t k = st.fraction_q1.size(); k-- > 0;) {
      svg << fmt(p.px(static_cast<double>(k + 1))) << ',' << fmt(p.py(st.fraction_q1[k])) << ' ';
    }
    svg << "\"/>\n<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
    for (std::size_t k = 0; k < st.fraction_median.size(); ++k) {
      svg << fmt(p.px(static_cast<double>(k + 1))) << ',' << fmt(p.py(st.fraction_median[k]))
          << ' ';
    }
    svg << "\"/>\n";
  }
}

// A panel's legend: each strategy with its score, random search, and what lines and bands are.
void svg_legend(std::ostringstream& svg, const Panel& p, const ProblemResult& pr) {
  const double lx = Panel::left + Panel::plot_w + 14;
  double ly = p.y0 + Panel::top + 8;
  for (std::size_t s = 0; s < pr.strategies.size(); ++s, ly += 20) {
    const auto& st = pr.strategies[s];
    const char* colour = palette[s % (sizeof palette / sizeof palette[0])];
    char score[32];
    std::snprintf(score, sizeof score, "%.2f", st.score);
    svg << "<rect x=\"" << lx << "\" y=\"" << fmt(ly - 6) << "\" width=\"18\" height=\"8\" fill=\""
        << colour << "\" fill-opacity=\"0.3\"/><line x1=\"" << lx << "\" x2=\"" << lx + 18
        << "\" y1=\"" << fmt(ly - 2) << "\" y2=\"" << fmt(ly - 2) << "\" stroke=\"" << colour
        << "\" stroke-width=\"2\"/><text x=\"" << lx + 24 << "\" y=\"" << fmt(ly + 2) << "\">"
        << aoe::report::html::escape(st.name) << " (score " << score << ")</text>\n";
  }
  svg << "<line x1=\"" << lx << "\" x2=\"" << lx + 18 << "\" y1=\"" << fmt(ly - 2) << "\" y2=\""
      << fmt(ly - 2)
      << "\" stroke=\"#777\" stroke-width=\"1.5\" stroke-dasharray=\"5,4\"/><text x=\"" << lx + 24
      << "\" y=\"" << fmt(ly + 2) << "\">random (exact)</text>\n";
  svg << "<text x=\"" << lx << "\" y=\"" << fmt(ly + 22)
      << "\" fill=\"#555\" font-size=\"10\">lines: median; bands: quartiles</text>\n";
}

}  // namespace

std::string to_svg(const std::vector<ProblemResult>& results, const Settings& settings) {
  const double height =
      Panel::height * static_cast<double>(std::max<std::size_t>(1, results.size()));
  const std::size_t budget = std::max<std::size_t>(1, settings.budget);
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << Panel::width << "\" height=\""
      << height << "\" viewBox=\"0 0 " << Panel::width << ' ' << height
      << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& pr = results[i];
    const Panel p{.y0 = Panel::height * static_cast<double>(i),
                  .y_min = panel_floor(pr, budget),
                  .budget = budget};
    svg << "<text x=\"" << Panel::left << "\" y=\"" << fmt(p.y0 + 22) << "\" font-size=\"14\" "
        << "font-weight=\"bold\">" << aoe::report::html::escape(pr.problem->name) << " ("
        << settings.repeats << " repetitions, seed " << settings.seed << ")</text>\n";
    svg_axes(svg, p);
    svg_curves(svg, p, pr);
    svg_legend(svg, p, pr);
  }
  svg << "</svg>\n";
  return svg.str();
}

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
