// The SVG plot of an experiment, as `aoe-bench --plot` writes it: one panel per input, the
// median fraction of the optimum against evaluations with the quartile band per strategy and
// random search's exact expectation dashed (docs/research.md).
#ifndef AOE_EXPERIMENT_SVG_HPP
#define AOE_EXPERIMENT_SVG_HPP

#include "aoe/experiment/problem.hpp"
#include "aoe/experiment/results.hpp"
#include "aoe/experiment/settings.hpp"
#include "aoe/export/xml_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::experiment {

namespace detail {

using aoe::xml_escape;

// Okabe-Ito colours (distinguishable with colour-vision deficiencies).
inline constexpr const char* palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                          "#E69F00", "#56B4E9", "#000000", "#F0E442"};

inline std::string fmt(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", x);
  return buffer;
}

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
inline double panel_floor(const ProblemResult& pr, std::size_t budget) {
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
inline void svg_axes(std::ostringstream& svg, const Panel& p) {
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
inline void svg_curves(std::ostringstream& svg, const Panel& p, const ProblemResult& pr) {
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
inline void svg_legend(std::ostringstream& svg, const Panel& p, const ProblemResult& pr) {
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
        << xml_escape(st.name) << " (score " << score << ")</text>\n";
  }
  svg << "<line x1=\"" << lx << "\" x2=\"" << lx + 18 << "\" y1=\"" << fmt(ly - 2) << "\" y2=\""
      << fmt(ly - 2)
      << "\" stroke=\"#777\" stroke-width=\"1.5\" stroke-dasharray=\"5,4\"/><text x=\"" << lx + 24
      << "\" y=\"" << fmt(ly + 2) << "\">random (exact)</text>\n";
  svg << "<text x=\"" << lx << "\" y=\"" << fmt(ly + 22)
      << "\" fill=\"#555\" font-size=\"10\">lines: median; bands: quartiles</text>\n";
}

}  // namespace detail

/// An SVG: one panel per input, the fraction of the optimum (median over the repetitions,
/// with the quartile band) against evaluations, one line per strategy, and the exact
/// expectation of random search dashed.
[[nodiscard]] inline std::string to_svg(const std::vector<ProblemResult>& results,
                                        const Settings& settings) {
  using namespace detail;
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
        << "font-weight=\"bold\">" << detail::xml_escape(pr.problem->name) << " ("
        << settings.repeats << " repetitions, seed " << settings.seed << ")</text>\n";
    svg_axes(svg, p);
    svg_curves(svg, p, pr);
    svg_legend(svg, p, pr);
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace aoe::experiment

#endif  // AOE_EXPERIMENT_SVG_HPP
