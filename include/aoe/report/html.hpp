// The building blocks of OpenAOE's HTML reports: one self-contained page (inline CSS, inline
// SVG charts, no network, no external font or script), readable at a glance and printable.
// Used by the jobs' reports (report/job_reports.hpp) and `aoe-bench --report`. docs/reports.md.
#ifndef AOE_REPORT_HTML_HPP
#define AOE_REPORT_HTML_HPP

#include "aoe/export/xml_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe::report::html {

/// `s` with &, <, >, " and ' escaped for text and attribute values.
[[nodiscard]] inline std::string escape(std::string_view s) { return xml_escape(s); }

/// `v` with `digits` decimals ("-" for a non-finite value).
[[nodiscard]] inline std::string num(double v, int digits = 3) {
  if (!std::isfinite(v)) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

/// A fraction as a percentage with two decimals: 0.1871 -> "18.71%".
[[nodiscard]] inline std::string percent(double fraction) { return num(fraction * 100, 2) + "%"; }

/// The colours of the charts (colour-blind safe, Okabe-Ito) and of the bounds.
inline constexpr std::string_view palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                               "#56B4E9", "#D55E00", "#F0E442", "#000000"};
[[nodiscard]] inline std::string_view colour(std::size_t i) { return palette[i % 8]; }

/// A page: `title`, then `body` (HTML), with the report style and the small table filter.
[[nodiscard]] inline std::string page(std::string_view title, std::string_view body) {
  std::string s;
  s.reserve(body.size() + 4096);
  s += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  s += "<meta name=\"generator\" content=\"OpenAOE\">\n<title>" + escape(title) + "</title>\n";
  s += R"(<style>
:root{--fg:#1b1f24;--muted:#5b6570;--line:#d8dde3;--bg:#fff;--card:#f5f7f9;--good:#0a7a43;--bad:#b3261e}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1180px;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:14px;margin:0 0 4px}
.sub{color:var(--muted);margin:0 0 16px}.badge{display:inline-block;font-size:11px;padding:1px 6px;border-radius:8px;background:#fff4d6;color:#7a5200;border:1px solid #e8cf8a;vertical-align:middle}
.cards{display:flex;flex-wrap:wrap;gap:10px}.card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px 12px;min-width:130px}
.card .v{font-size:20px;font-weight:600;font-variant-numeric:tabular-nums}.card .l{color:var(--muted);font-size:12px}
.good{color:var(--good)}.bad{color:var(--bad)}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}th,td{padding:3px 6px;border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}
th{font-size:12px;color:var(--muted);font-weight:600;background:var(--card)}td.n,th.n{text-align:right}
td.k{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:11px;word-break:break-all}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(270px,1fr));gap:12px}.cell{border:1px solid var(--line);border-radius:6px;padding:8px;min-width:0}.cell h3{word-break:break-all}
.note{color:var(--muted);font-size:12px}svg{display:block;max-width:100%;height:auto}svg text{font-family:inherit}
td svg{display:inline-block;max-width:none}td.name{word-break:break-all;min-width:140px;max-width:220px}td.type{overflow-wrap:anywhere;max-width:130px}.nowrap{white-space:nowrap}.wide{overflow-x:auto}
input[type=search]{padding:4px 8px;border:1px solid var(--line);border-radius:4px;margin:4px 0 8px;width:260px}
.legend span{display:inline-block;margin-right:12px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:baseline}
@page{size:A4 landscape;margin:10mm}
@media print{body{max-width:none;padding:0;font-size:11px}.wide{overflow:visible}table{font-size:10px}input[type=search]{display:none}h2{break-after:avoid}.cell,tr,svg,.cards{break-inside:avoid}a{color:inherit;text-decoration:none}}
</style>
</head>
<body>
)";
  s += body;
  // The only script: filter a table's rows by a text box (<input data-filter="table id">).
  s += R"(<script>
for (const box of document.querySelectorAll('input[data-filter]')) {
  const table = document.getElementById(box.dataset.filter);
  box.addEventListener('input', () => {
    const q = box.value.toLowerCase();
    for (const row of table.tBodies[0].rows) {
      row.style.display = row.textContent.toLowerCase().includes(q) ? '' : 'none';
    }
  });
}
document.body.dataset.reportReady = 'yes';  // tests: the script ran to its end
</script>
</body>
</html>
)";
  return s;
}

/// A figure card: big value `v` (with an element id, for tests and scripts), label below.
[[nodiscard]] inline std::string card(std::string_view id, std::string_view v,
                                      std::string_view label, std::string_view cls = "") {
  return "<div class=\"card\"><div class=\"v " + std::string(cls) + "\" id=\"" + std::string(id) +
         "\">" + escape(v) + "</div><div class=\"l\">" + escape(label) + "</div></div>";
}

/// A horizontal bar pair (before / after) scaled to `max`: an inline SVG for a table cell.
[[nodiscard]] inline std::string bar_pair(double before, double after, double max,
                                          int width = 160) {
  const auto w = [&](double v) { return max > 0 ? std::max(0.5, v / max * width) : 0.0; };
  return "<svg width=\"" + std::to_string(width) + "\" height=\"14\" viewBox=\"0 0 " +
         std::to_string(width) + " 14\" role=\"img\"><title>before " + num(before) + ", after " +
         num(after) + "</title><rect x=\"0\" y=\"1\" height=\"5\" width=\"" + num(w(before), 2) +
         "\" fill=\"#9aa5b1\"/><rect x=\"0\" y=\"8\" height=\"5\" width=\"" + num(w(after), 2) +
         "\" fill=\"#0072B2\"/></svg>";
}

/// Stacked utilisations (0..1 each) as small bars with labels, for a table cell.
[[nodiscard]] inline std::string utilisation_bars(
    const std::vector<std::pair<std::string, double>>& parts) {
  std::string s =
      "<svg width=\"" + std::to_string(parts.size() * 28) + "\" height=\"26\" role=\"img\"><title>";
  for (const auto& [name, u] : parts) s += name + " " + percent(u) + "  ";
  s += "</title>";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const double u = std::clamp(parts[i].second, 0.0, 1.0);
    const double x = static_cast<double>(i) * 28;
    s += "<rect x=\"" + num(x, 0) + "\" y=\"2\" width=\"25\" height=\"14\" fill=\"#eef1f4\"/>";
    s += "<rect x=\"" + num(x, 0) + "\" y=\"" + num(2 + 14 * (1 - u), 2) +
         "\" width=\"25\" height=\"" + num(14 * u, 2) + "\" fill=\"" + std::string(colour(i)) +
         "\"/>";
    s += "<text x=\"" + num(x + 12.5, 1) + "\" y=\"25\" font-size=\"8\" text-anchor=\"middle\">" +
         escape(parts[i].first) + "</text>";
  }
  return s + "</svg>";
}

/// One line of a line chart.
struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  ///< (x, y); non-finite y are gaps
  bool dashed = false;
};

namespace detail {

/// A line chart's plot area and value ranges: values to SVG coordinates.
struct ChartFrame {
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;  ///< the ranges drawn
  bool log_x = false;
  int width = 0, height = 0;  ///< the whole chart's
  double left = 56, right = 10, top = 10, bottom = 40;
  double pw = 0, ph = 0;  ///< the plot area's width and height

  [[nodiscard]] double fx(double x) const {
    if (log_x)
      return left + (std::log10(x) - std::log10(x0)) /
                        std::max(1e-12, std::log10(x1) - std::log10(x0)) * pw;
    return left + (x - x0) / (x1 - x0) * pw;
  }
  [[nodiscard]] double fy(double y) const {
    return top + (1 - (std::min(y, y1) - y0) / (y1 - y0)) * ph;
  }
};

/// The frame of `series`: the range of its points, y capped at `y_cap` and padded by 6%
/// (never below 0 for non-negative data); nullopt when no point is drawn.
[[nodiscard]] inline std::optional<ChartFrame> chart_frame(const std::vector<Series>& series,
                                                           int width, int height, bool log_x,
                                                           double y_cap) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : series) {
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(y) || (log_x && x <= 0)) continue;
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
  }
  if (!std::isfinite(x0)) return std::nullopt;
  const bool non_negative = y0 >= 0;
  y1 = std::min(y1, std::max(y_cap, y0));
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) {
    y1 = y0 + std::max(1e-9, std::abs(y0) * 0.05);
    y0 -= std::max(1e-9, std::abs(y0) * 0.05);
  }
  const double pad = (y1 - y0) * 0.06;
  y0 = non_negative ? std::max(0.0, y0 - pad) : y0 - pad;
  y1 += pad;
  ChartFrame f{
      .x0 = x0, .x1 = x1, .y0 = y0, .y1 = y1, .log_x = log_x, .width = width, .height = height};
  f.pw = width - f.left - f.right;
  f.ph = height - f.top - f.bottom;
  return f;
}

/// The plot area's border, five ticks and grid lines on each axis, and the axis labels.
inline void chart_axes(std::string& s, const ChartFrame& f, std::string_view x_label,
                       std::string_view y_label) {
  const double left = f.left, top = f.top, pw = f.pw, ph = f.ph, x0 = f.x0, x1 = f.x1, y0 = f.y0,
               y1 = f.y1;
  s += "<rect x=\"" + num(left, 0) + "\" y=\"" + num(top, 0) + "\" width=\"" + num(pw, 0) +
       "\" height=\"" + num(ph, 0) + "\" fill=\"none\" stroke=\"#d8dde3\"/>";
  for (int i = 0; i <= 4; ++i) {
    const double y = y0 + (y1 - y0) * i / 4;
    const double digits = (y1 - y0) < 0.05 ? 4 : (y1 - y0) < 5 ? 3 : (y1 - y0) < 50 ? 1 : 0;
    s += "<line x1=\"" + num(left, 0) + "\" x2=\"" + num(left + pw, 0) + "\" y1=\"" +
         num(f.fy(y), 1) + "\" y2=\"" + num(f.fy(y), 1) + "\" stroke=\"#eef1f4\"/>";
    s += "<text x=\"" + num(left - 4, 0) + "\" y=\"" + num(f.fy(y) + 3, 1) +
         "\" font-size=\"10\" text-anchor=\"end\">" + num(y, static_cast<int>(digits)) + "</text>";
  }
  for (int i = 0; i <= 4; ++i) {
    const double x =
        f.log_x ? std::pow(10.0, std::log10(x0) + (std::log10(x1) - std::log10(x0)) * i / 4)
                : x0 + (x1 - x0) * i / 4;
    s += "<text x=\"" + num(f.fx(x), 1) + "\" y=\"" + num(top + ph + 13, 0) +
         "\" font-size=\"10\" text-anchor=\"middle\">" + num(x, x1 - x0 < 10 ? 1 : 0) + "</text>";
  }
  s += "<text x=\"" + num(left + pw / 2, 0) + "\" y=\"" + num(f.height - 14, 0) +
       "\" font-size=\"11\" text-anchor=\"middle\" fill=\"#5b6570\">" + escape(x_label) + "</text>";
  s += "<text transform=\"translate(12," + num(top + ph / 2, 0) +
       ") rotate(-90)\" font-size=\"11\" text-anchor=\"middle\" fill=\"#5b6570\">" +
       escape(y_label) + "</text>";
}

/// A series' SVG path data: a gap lifts the pen; the inner points of a flat run are dropped.
[[nodiscard]] inline std::string chart_path(const Series& se, const ChartFrame& f) {
  std::string d;
  bool pen = false;
  const auto& pts = se.points;
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const auto [x, y] = pts[k];
    if (!std::isfinite(y) || (f.log_x && x <= 0)) {
      pen = false;
      continue;
    }
    // A step curve (best so far) is flat most of the time: drop the inner points of a run.
    if (pen && k + 1 < pts.size() && pts[k - 1].second == y && pts[k + 1].second == y) continue;
    d += (pen ? "L" : "M") + num(f.fx(x), 1) + " " + num(f.fy(y), 1);
    pen = true;
  }
  return d;
}

}  // namespace detail

/// A line chart with axes, ticks and a legend. `log_x` for evaluation counts over decades;
/// values above `y_cap` are drawn at the top edge (a search's first, far worse candidates).
[[nodiscard]] inline std::string line_chart(
    const std::vector<Series>& series, std::string_view x_label, std::string_view y_label,
    int width = 520, int height = 240, bool log_x = false,
    double y_cap = std::numeric_limits<double>::infinity()) {
  const auto frame = detail::chart_frame(series, width, height, log_x, y_cap);
  if (!frame) return "<p class=\"note\">no data</p>";
  std::string s = "<svg viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                  "\" width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
                  "\" role=\"img\">";
  detail::chart_axes(s, *frame, x_label, y_label);
  double legend_x = frame->left;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& se = series[i];
    s += "<path d=\"" + detail::chart_path(se, *frame) + "\" fill=\"none\" stroke=\"" +
         std::string(colour(i)) + "\" stroke-width=\"1.6\"" +
         (se.dashed ? " stroke-dasharray=\"4 3\"" : "") + "><title>" + escape(se.name) +
         "</title></path>";
    if (series.size() > 1) {
      s += "<rect x=\"" + num(legend_x, 0) + "\" y=\"" + num(height - 9, 0) +
           "\" width=\"8\" height=\"8\" fill=\"" + std::string(colour(i)) + "\"/>";
      s += "<text x=\"" + num(legend_x + 11, 0) + "\" y=\"" + num(height - 1, 0) +
           "\" font-size=\"10\">" + escape(se.name) + "</text>";
      legend_x += 16 + 6.0 * static_cast<double>(se.name.size());
    }
  }
  return s + "</svg>";
}

/// A scatter of two-objective points with their front: the front's points (`front`: indices
/// into `points`, sorted by x) joined by a step line, the other points grey, and the point
/// `chosen` (x, y) ringed. Zoomed on the front: each axis shows the front's range and the chosen
/// point, widened by half that range (at least 5 % of the least value) below and one and a half
/// above; the points outside are not drawn, and the caption says how many.
[[nodiscard]] inline std::string front_chart(const std::vector<std::pair<double, double>>& points,
                                             const std::vector<std::size_t>& front,
                                             std::optional<std::pair<double, double>> chosen,
                                             std::string_view x_label, std::string_view y_label,
                                             int width = 300, int height = 190) {
  std::vector<std::pair<double, double>> window;
  for (const std::size_t i : front) window.push_back(points.at(i));
  if (chosen) window.push_back(*chosen);
  if (window.empty()) return "<p class=\"note\">no data</p>";
  double x0 = window[0].first, x1 = x0, y0 = window[0].second, y1 = y0;
  for (const auto& [x, y] : window) {
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  }
  const double dx = std::max(x1 - x0, 0.05 * std::abs(x0)),
               dy = std::max(y1 - y0, 0.05 * std::abs(y0));
  detail::ChartFrame f{.x0 = std::max(0.0, x0 - 0.5 * dx),
                       .x1 = x1 + 1.5 * dx,
                       .y0 = std::max(0.0, y0 - 0.5 * dy),
                       .y1 = y1 + 1.5 * dy,
                       .width = width,
                       .height = height};
  if (!(f.x1 > f.x0)) f.x1 = f.x0 + 1;
  if (!(f.y1 > f.y0)) f.y1 = f.y0 + 1;
  f.pw = width - f.left - f.right;
  f.ph = height - f.top - f.bottom;
  const auto inside = [&f](double x, double y) {
    return x >= f.x0 && x <= f.x1 && y >= f.y0 && y <= f.y1;
  };
  std::size_t outside = 0;
  std::string s = "<svg viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                  "\" width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
                  "\" role=\"img\" class=\"front\">";
  detail::chart_axes(s, f, x_label, y_label);
  for (const auto& [x, y] : points) {
    if (!inside(x, y)) {
      ++outside;
      continue;
    }
    s += "<circle cx=\"" + num(f.fx(x), 1) + "\" cy=\"" + num(f.fy(y), 1) +
         "\" r=\"1.8\" fill=\"#9aa5b1\" fill-opacity=\"0.6\"/>";
  }
  std::string d;
  for (std::size_t i = 0; i < front.size(); ++i) {
    const auto& [x, y] = points.at(front[i]);
    if (i > 0) d += "H" + num(f.fx(x), 1);
    d += (i == 0 ? "M" + num(f.fx(x), 1) + " " : "V") + num(f.fy(y), 1);
  }
  s += "<path d=\"" + d + "\" fill=\"none\" stroke=\"" + std::string(colour(0)) +
       "\" stroke-width=\"1.4\"><title>front (" + std::to_string(front.size()) +
       " points)</title></path>";
  for (const std::size_t i : front) {
    const auto& [x, y] = points.at(i);
    s += "<circle class=\"front-point\" cx=\"" + num(f.fx(x), 1) + "\" cy=\"" + num(f.fy(y), 1) +
         "\" r=\"3\" fill=\"" + std::string(colour(0)) + "\"><title>" + num(x, 3) + ", " +
         num(y, 3) + "</title></circle>";
  }
  if (chosen) {
    s += "<circle class=\"chosen\" cx=\"" + num(f.fx(chosen->first), 1) + "\" cy=\"" +
         num(f.fy(chosen->second), 1) +
         "\" r=\"6\" fill=\"none\" stroke=\"#D55E00\" "
         "stroke-width=\"2\"><title>in use: " +
         num(chosen->first, 3) + ", " + num(chosen->second, 3) + "</title></circle>";
  }
  s += "<text class=\"outside\" x=\"" + num(f.left + f.pw - 4, 0) + "\" y=\"" + num(f.top + 11, 0) +
       "\" font-size=\"10\" text-anchor=\"end\" fill=\"#5b6570\">" + std::to_string(outside) +
       " of " + std::to_string(points.size()) + " outside the view</text>";
  return s + "</svg>";
}

}  // namespace aoe::report::html

#endif  // AOE_REPORT_HTML_HPP
