// The HTML report of each job (OPAT: operators ranked by time saved, bounds, pipe utilisation,
// the search's convergence and the chosen knowledge; SGAT: subgraphs and their strategies;
// GDAT: the gradient timeline and the all-reduce segments of the default and the tuned split),
// and the report files a job writes next to its result file (docs/reports.md):
//   ${name}_${timestamp}_trace.json       Chrome trace of the model before and after tuning
//   ${name}_${timestamp}_op_summary.csv   msprof-style op_summary, one row per operator execution
//   ${name}_${timestamp}_report.html      the self-contained HTML report
// `name` is the tuning name and `timestamp` the result file's, as the tuned model's
// ${model}_${timestamp}_tune.json. Each says whether its times are simulated or measured (the
// report's timing; the pipes and bounds are always the timing model's). Include this header in a
// tool, not in a library header: it pulls in the simulator, the jobs' reports and Boost.JSON.
#ifndef AOE_REPORT_JOB_REPORTS_HPP
#define AOE_REPORT_JOB_REPORTS_HPP

#include "aoe/core/error.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/jobs/gdat/gdat_report.hpp"
#include "aoe/jobs/opat/opat_report.hpp"
#include "aoe/jobs/sgat/sgat_report.hpp"
#include "aoe/jobs/tuned_model_writer.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/report/html.hpp"
#include "aoe/report/profile.hpp"
#include "aoe/vocab/timing.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::report {

// ---- HTML pages ----------------------------------------------------------------------------

namespace detail {

inline std::string_view bound_colour(const std::optional<sim::detail::Profile>& p) {
  if (!p) return "#8da0b3";
  switch (p->bound) {
    case sim::detail::Bound::compute: return "#0072B2";
    case sim::detail::Bound::memory: return "#E69F00";
    case sim::detail::Bound::latency: return "#9aa5b1";
  }
  return "#8da0b3";
}

inline std::string bound_name(const std::optional<sim::detail::Profile>& p) {
  return p ? sim::detail::bound_names[static_cast<std::size_t>(p->bound)] : "-";
}

/// "12.3 us" or "4.56 ms".
inline std::string duration_text(double us) {
  return us >= 1000 ? html::num(us / 1000, 3) + " ms" : html::num(us, 1) + " us";
}

/// "Repository summary": a card per outcome of the job's bank accounting (`r.count(outcome)`).
template <class Report>
std::string repo_summary_html(const Report& r) {
  using O = JobOutcome;
  const std::size_t failed = r.count(O::failed);
  std::string s = "</div><h2>Repository summary</h2><div class=\"cards\">";
  s += html::card("repo-add", std::to_string(r.count(O::add)), "add (new, written)");
  s += html::card("repo-hit", std::to_string(r.count(O::hit)), "hit (in the bank, used)");
  s += html::card("repo-reserved", std::to_string(r.count(O::reserved)),
                  "reserved (bank entry kept)");
  s += html::card("repo-unsatisfied", std::to_string(r.count(O::unsatisfied)),
                  "unsatisfied (no better than default)");
  s += html::card("repo-update", std::to_string(r.count(O::update)), "update (re-tuned, better)");
  s += html::card("repo-failed", std::to_string(failed), "failed", failed > 0 ? "bad" : "");
  return s + "</div>";
}

/// A job page's title ("<job> report: <name>" and its badge) and subtitle ("<what>, <timestamp>,
/// result file <file>, <status>"), then the opening of its cards: the model (or iteration) time
/// before and after tuning (`unit` in the labels) and the improvement.
inline std::string page_head(std::string_view job, std::string_view badge, const std::string& what,
                             const JobReportHead& r, const std::string& status,
                             std::string_view result_file, double before, double after,
                             const std::string& improvement, std::string_view before_label,
                             std::string_view after_label) {
  std::string b = "<h1>" + std::string(job) + " report: " + html::escape(r.tuning_name) +
                  " <span class=\"badge\">" + std::string(badge) + "</span></h1>";
  b += "<p class=\"sub\">" + what + ", " + html::escape(r.timestamp) + ", result file <code>" +
       html::escape(result_file) + "</code>, " + html::escape(status) + "</p>";
  b += "<div class=\"cards\">";
  b += html::card("baseline-ms", html::num(before, 6), before_label);
  b += html::card("result-ms", html::num(after, 6), after_label);
  b += html::card("improvement", improvement, "improvement (before / after - 1)",
                  after < before ? "good" : "");
  return b;
}

}  // namespace detail

namespace detail {

/// The timeline's horizontal axis: microseconds to x.
struct TimeAxis {
  double left = 0, width = 0, total = 1;
  [[nodiscard]] double x(double us) const { return left + us / total * width; }
};

/// A lane's rectangle with a tooltip.
inline void lane_rect(std::string& s, double x, double y, double w, double h, std::string_view fill,
                      double opacity, const std::string& title, std::string_view extra = {}) {
  s += "<rect x=\"" + html::num(x, 2) + "\" y=\"" + html::num(y, 1) + "\" width=\"" +
       html::num(w, 2) + "\" height=\"" + html::num(h, 0) + "\" fill=\"" + std::string(fill) + "\"";
  if (opacity < 1) s += " fill-opacity=\"" + html::num(opacity, 2) + "\"";
  s += extra;
  s += "><title>" + html::escape(title) + "</title></rect>";
}

/// A pipe's busy time in an operator execution, in the execution's microseconds.
inline double pipe_busy_us(const OpExecution& op, int q) {
  const auto& p = *op.profile;
  return p.pipes[static_cast<std::size_t>(q)].busy * static_cast<double>(p.waves) * op.duration_us /
         p.seconds;
}

/// Each operator of `ph` as its own rectangle, and its pipes' spans below it.
inline void operator_lanes(std::string& s, const Phase& ph, const TimeAxis& a, double y,
                           double lane, double step) {
  using sim::detail::pipe_count;
  for (const auto& op : ph.ops) {
    const double x = a.x(op.start_us), w = std::max(0.6, a.x(op.start_us + op.duration_us) - x);
    lane_rect(s, x, y, w, lane, bound_colour(op.profile), 1,
              op.name + " (" + op.type + "): " + html::num(op.duration_us) + " us, " +
                  bound_name(op.profile) + " bound",
              " stroke=\"#fff\" stroke-width=\"0.4\"");
    if (!op.profile || op.profile->seconds <= 0) continue;
    const auto& p = *op.profile;
    const double us = op.duration_us / p.seconds;
    const double stretch = p.block > 0 ? p.wave / p.block : 1.0;
    for (int q = 0; q < pipe_count; ++q) {
      const auto& span = p.pipes[static_cast<std::size_t>(q)];
      if (span.busy <= 0) continue;
      const double t0 = op.start_us + (p.launch + span.start * stretch) * us;
      const double t1 =
          op.start_us +
          (p.launch + static_cast<double>(p.waves - 1) * p.wave + span.end * stretch) * us;
      const double u = std::clamp(
          span.end > span.start ? span.busy / ((span.end - span.start) * stretch) : 0.0, 0.0, 1.0);
      lane_rect(s, a.x(t0), y + (q + 1) * step, std::max(0.4, a.x(t1) - a.x(t0)), lane,
                html::colour(static_cast<std::size_t>(q)), 0.15 + 0.85 * u,
                op.name + ": " + sim::detail::pipe_names[q] + " busy " + html::percent(u) +
                    " of its span");
    }
  }
}

/// A phase of more operators than the timeline has pixels: one rectangle per pixel column (the
/// operators whose middle falls in it), coloured by the bound that holds most of its time, and
/// per pipe the share of the column's time that pipe is busy.
inline void binned_lanes(std::string& s, const Phase& ph, const TimeAxis& a, double y, double lane,
                         double step, bool pipes) {
  using sim::detail::pipe_count;
  struct Column {
    std::size_t first = 0, count = 0;
    double us = 0;
    std::map<std::string_view, double> by_colour;
    std::array<double, sim::detail::pipe_count> busy{};
  };
  const auto columns = static_cast<std::size_t>(std::max(1.0, std::ceil(a.width)));
  std::vector<Column> cols(columns);
  for (std::size_t i = 0; i < ph.ops.size(); ++i) {
    const auto& op = ph.ops[i];
    const double mid = a.x(op.start_us + op.duration_us / 2) - a.left;
    Column& c = cols[std::min(columns - 1, static_cast<std::size_t>(std::max(0.0, mid)))];
    if (c.count++ == 0) c.first = i;
    c.us += op.duration_us;
    c.by_colour[bound_colour(op.profile)] += op.duration_us;
    if (!op.profile || op.profile->seconds <= 0) continue;
    for (int q = 0; q < pipe_count; ++q) c.busy[static_cast<std::size_t>(q)] += pipe_busy_us(op, q);
  }
  for (std::size_t k = 0; k < columns; ++k) {
    const Column& c = cols[k];
    if (c.count == 0) continue;
    const auto top =
        std::max_element(c.by_colour.begin(), c.by_colour.end(),
                         [](const auto& l, const auto& r) { return l.second < r.second; });
    const std::string what = std::to_string(c.count) + " operators from " + ph.ops[c.first].name +
                             ": " + html::num(c.us) + " us";
    lane_rect(s, a.left + static_cast<double>(k), y, 1, lane, top->first, 1, what);
    for (int q = 0; pipes && q < pipe_count; ++q) {
      const double u =
          c.us > 0 ? std::clamp(c.busy[static_cast<std::size_t>(q)] / c.us, 0.0, 1.0) : 0.0;
      if (u <= 0) continue;
      lane_rect(s, a.left + static_cast<double>(k), y + (q + 1) * step, 1, lane,
                html::colour(static_cast<std::size_t>(q)), 0.15 + 0.85 * u,
                what + "; " + sim::detail::pipe_names[q] + " busy " + html::percent(u));
    }
  }
}

}  // namespace detail

/// A phase of more operators than this is drawn in pixel columns (`detail::binned_lanes`).
inline constexpr std::size_t timeline_operators = 2000;

/// The profile's phases on one time axis: per phase the operator stream (coloured by bound) and,
/// when the simulator modelled the operators, a lane per pipe (each operator's pipe from its
/// first to its last activity, its opacity the pipe's utilisation there). A phase of more than
/// `timeline_operators` operators is drawn one pixel column at a time.
[[nodiscard]] inline std::string timeline_svg(const ModelProfile& m) {
  using sim::detail::pipe_count;
  double total = 0;
  for (const auto& ph : m.phases) total = std::max(total, ph.total_us());
  if (total <= 0) return "<p class=\"note\">no operators</p>";
  bool pipes = false;
  for (const auto& ph : m.phases) {
    for (const auto& op : ph.ops) pipes = pipes || op.profile.has_value();
  }
  const double width = 1120, left = 120, right = 10, lane = 18, gap = 4;
  const detail::TimeAxis axis{left, width - left - right, total};
  const int lanes = pipes ? 1 + pipe_count : 1;
  const double block_h = lanes * (lane + gap) + 22;
  const double height = 24 + block_h * static_cast<double>(m.phases.size());
  std::string s = "<svg id=\"timeline-svg\" viewBox=\"0 0 " + html::num(width, 0) + " " +
                  html::num(height, 0) + "\" width=\"" + html::num(width, 0) + "\" height=\"" +
                  html::num(height, 0) + "\" role=\"img\">";
  // Time axis.
  for (int i = 0; i <= 10; ++i) {
    const double t = total * i / 10;
    s += "<line x1=\"" + html::num(axis.x(t), 1) + "\" x2=\"" + html::num(axis.x(t), 1) +
         "\" y1=\"14\" y2=\"" + html::num(height, 0) + "\" stroke=\"#eef1f4\"/>";
    s += "<text x=\"" + html::num(axis.x(t), 1) + "\" y=\"10\" font-size=\"10\" text-anchor=\"" +
         (i == 10 ? "end" : "middle") + "\">" + detail::duration_text(t) + "</text>";
  }
  double y = 24;
  for (const auto& ph : m.phases) {
    s += "<text x=\"0\" y=\"" + html::num(y + 10, 0) + "\" font-size=\"12\" font-weight=\"600\">" +
         html::escape(ph.name) + "</text>";
    s += "<text x=\"" + html::num(left, 0) + "\" y=\"" + html::num(y + 10, 0) +
         "\" font-size=\"11\" fill=\"#5b6570\">" + detail::duration_text(ph.total_us()) + "</text>";
    y += 16;
    s += "<text x=\"4\" y=\"" + html::num(y + 13, 0) +
         "\" font-size=\"10\" fill=\"#5b6570\">operators</text>";
    for (int q = 0; pipes && q < pipe_count; ++q) {
      s += "<text x=\"4\" y=\"" + html::num(y + (q + 1) * (lane + gap) + 13, 0) +
           "\" font-size=\"10\" fill=\"#5b6570\">" + sim::detail::pipe_names[q] + "</text>";
    }
    if (ph.ops.size() > timeline_operators) {
      detail::binned_lanes(s, ph, axis, y, lane, lane + gap, pipes);
    } else {
      detail::operator_lanes(s, ph, axis, y, lane, lane + gap);
    }
    y += lanes * (lane + gap) + 10;
  }
  return s + "</svg>";
}

namespace detail {

/// The page head's line on where the times came from: "measured: <device>" or "simulated: <soc>
/// timing model" (also for a report that does not say).
inline std::string timing_head(const std::optional<Timing>& t, std::string_view soc) {
  if (t && t->measured()) return "measured: " + html::escape(t->source);
  return "simulated: " + html::escape(soc) + " timing model";
}

/// OPAT's and SGAT's page head: page_head with the model's times (`before`, `after`, in ms),
/// then the time saved, the tasks (`tasks`: the operators or subgraphs, each with its
/// `evaluations`), the candidates measured, the tuning time and the repository summary.
template <class Report, class Tasks>
std::string model_page_head(const Report& r, std::string_view job, const std::string& what,
                            std::string_view soc, std::string_view result_file, double before,
                            double after, const std::string& improvement, const Tasks& tasks,
                            std::string_view tasks_id, std::string_view tasks_label,
                            std::string_view evaluations_label) {
  std::string b =
      page_head(job, timing_head(r.timing, soc), what, r, r.status_text(), result_file, before,
                after, improvement, "model before tuning (ms)", "model after tuning (ms)");
  std::size_t evaluations = 0;
  for (const auto& t : tasks) evaluations += t.evaluations;
  b += html::card("saved-ms", html::num(before - after, 6), "time saved (ms)");
  b += html::card(tasks_id, std::to_string(r.total()), tasks_label);
  b += html::card("evaluations", std::to_string(evaluations), evaluations_label);
  b += html::card("tuning-seconds", html::num(r.tuning_seconds, 1), "tuning time (s)");
  return b + repo_summary_html(r);
}

/// OPAT's closing note: which of the page's times are simulated and which measured.
inline std::string opat_timing_note(const ModelProfile& profile) {
  if (profile.timing.measured()) {
    return "<h2>What is measured, what is simulated</h2><p class=\"note\">The operator times "
           "on this page are the result file's, measured on the device (" +
           html::escape(profile.timing.source) +
           "). The pipes, bounds, block dims and waves are the OpenAOE simulator's timing model "
           "of " +
           html::escape(profile.soc) +
           " (docs/simulator.md) for the configuration in use, scaled to the measured time: a "
           "model, not a measurement. See docs/reports.md.</p>";
  }
  return "<h2>What is simulated</h2><p class=\"note\">Every time on this page is the OpenAOE "
         "simulator's timing model of " +
         html::escape(profile.soc) +
         " (docs/simulator.md), not a measurement: the operator times are the result file's, the "
         "pipes, bounds, block dims and waves the timing model's breakdown of the configuration "
         "in use. See docs/reports.md.</p>";
}

/// A row of OPAT's ranked table: the operator before (`ob`) and after (`oa`), its report.
inline std::string opat_table_row(std::size_t rank, const OpExecution& ob, const OpExecution& oa,
                                  const OpatOperatorReport* rep, double max_us) {
  std::string outcome;
  if (rep != nullptr) {
    for (const auto& k : rep->kinds) {
      outcome += (outcome.empty() ? "" : ", ") +
                 (rep->kinds.size() > 1 ? std::string(to_string(k.kind)) + " " : "") +
                 std::string(to_string(k.outcome));
    }
  }
  std::string util = "-";
  if (oa.profile) {
    const auto& p = *oa.profile;
    const double core = static_cast<double>(p.waves) * p.wave;
    const auto u = [&](sim::detail::Pipe q) {
      return core > 0 ? p.pipes[q].busy * static_cast<double>(p.waves) / core : 0.0;
    };
    util = html::utilisation_bars({{"Cube", u(sim::detail::cube)},
                                   {"Vec", u(sim::detail::vector)},
                                   {"MTE2", u(sim::detail::mte2)},
                                   {"MTE1", u(sim::detail::mte1)},
                                   {"MTE3", u(sim::detail::mte3)}});
  }
  const std::string bound = bound_name(ob.profile) == bound_name(oa.profile)
                                ? bound_name(oa.profile)
                                : bound_name(ob.profile) + " &rarr; " + bound_name(oa.profile);
  return "<tr data-op=\"" + html::escape(ob.name) + "\"><td class=\"n\">" +
         std::to_string(rank + 1) + "</td><td class=\"name\">" + html::escape(ob.name) +
         "</td><td class=\"type\">" + html::escape(ob.type) + "</td><td class=\"n\">" +
         html::num(ob.duration_us) + "</td><td class=\"n\">" + html::num(oa.duration_us) +
         "</td><td class=\"n\">" + html::num(ob.duration_us - oa.duration_us) + "</td><td>" +
         html::bar_pair(ob.duration_us, oa.duration_us, max_us, 110) +
         "</td><td class=\"nowrap\">" + bound + "</td><td>" + util + "</td><td>" +
         html::escape(outcome) + "</td><td class=\"n\">" +
         std::to_string(rep ? rep->evaluations : 0) + "</td></tr>";
}

}  // namespace detail

/// OPAT's ranked table shows this many operators, the rest are in the op_summary CSV.
inline constexpr std::size_t table_operators = 500;

namespace detail {

/// OPAT's operator reports by operator name.
using OpatReportIndex = std::map<std::string, const OpatOperatorReport*>;

inline OpatReportIndex opat_report_index(const OpatReport& r) {
  OpatReportIndex reports;
  for (const auto& op : r.operators) reports.emplace(op.op_name, &op);
  return reports;
}

/// The report of operator `name`, or null.
inline const OpatOperatorReport* report_of(const OpatReportIndex& reports,
                                           const std::string& name) {
  const auto it = reports.find(name);
  return it != reports.end() ? it->second : nullptr;
}

/// The operators (indices into each phase) ranked by time saved, most first.
inline std::vector<std::size_t> opat_ranking(const ModelProfile& profile) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < profile.phases.at(0).ops.size(); ++i) order.push_back(i);
  const auto saved = [&](std::size_t i) {
    return profile.phases[0].ops[i].duration_us - profile.phases[1].ops[i].duration_us;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t c) { return saved(a) > saved(c); });
  return order;
}

/// OPAT's timeline section: the legend, the timeline and a note.
inline std::string opat_timeline_html(const ModelProfile& profile) {
  std::string b = "<h2 id=\"timeline\">Timeline before and after tuning</h2>";
  b += "<div class=\"legend\"><span><i style=\"background:#0072B2\"></i>compute bound</span>"
       "<span><i style=\"background:#E69F00\"></i>memory bound</span><span><i "
       "style=\"background:#9aa5b1\"></i>latency bound</span><span>pipe lanes: opacity = "
       "busy share of the pipe's span</span></div>";
  b += timeline_svg(profile);
  b += "<p class=\"note\">The operators run one after another on one stream; inside each, the "
       "timing model's pipeline (double-buffered stages overlap, waves of blocks over the "
       "cores). The same view, zoomable, is the trace file in Perfetto.</p>";
  return b;
}

/// OPAT's table of the `table_operators` operators that saved the most, in `order`.
inline std::string opat_ranked_table(const ModelProfile& profile,
                                     const std::vector<std::size_t>& order,
                                     const OpatReportIndex& reports) {
  double max_us = 0;
  for (const auto& op : profile.phases[0].ops) max_us = std::max(max_us, op.duration_us);
  std::string b = "<h2>Operators ranked by time saved</h2>";
  b += "<input type=\"search\" placeholder=\"filter operators\" data-filter=\"ops\">";
  b += "<div class=\"wide\"><table id=\"ops\"><thead><tr><th class=\"n\">#</th><th>Op "
       "Name</th><th>OP Type</th><th "
       "class=\"n\">before (us)</th><th class=\"n\">after (us)</th><th class=\"n\">saved "
       "(us)</th><th>before / after</th><th>bound</th><th>pipe utilisation after</th><th>"
       "outcome</th><th class=\"n\" title=\"candidates measured\">evals</th></tr></thead><tbody>";
  const std::size_t rows = std::min(order.size(), table_operators);
  for (std::size_t rank = 0; rank < rows; ++rank) {
    const auto& ob = profile.phases[0].ops[order[rank]];
    b += opat_table_row(rank, ob, profile.phases[1].ops[order[rank]], report_of(reports, ob.name),
                        max_us);
  }
  b += "</tbody></table></div>";
  if (rows < order.size()) {
    b += "<p class=\"note\" id=\"ops-shown\">The " + std::to_string(rows) +
         " operators that saved the most of " + std::to_string(order.size()) +
         "; every operator is in the op_summary CSV.</p>";
  }
  return b;
}

/// OPAT's table of failed operators, or nothing when none failed.
inline std::string opat_failed_html(const OpatReport& r) {
  bool failed_any = false;
  for (const auto& op : r.operators) failed_any = failed_any || op.failed();
  if (!failed_any) return "";
  std::string b =
      "<h2>Failed operators</h2><table><thead><tr><th>Op Name</th><th>OP Type</th><th>why"
      "</th></tr></thead><tbody>";
  for (const auto& op : r.operators) {
    if (!op.failed()) continue;
    b += "<tr><td>" + html::escape(op.op_name) + "</td><td>" + html::escape(op.op_type) +
         "</td><td>" + html::escape(op.error) + "</td></tr>";
  }
  return b + "</tbody></table>";
}

/// A searched operator's cell: per knowledge kind its best so far (and where the search
/// started, dashed), then the knowledge chosen (`knowledge`).
inline std::string opat_convergence_cell(const OpatOperatorReport& rep,
                                         const std::string& knowledge) {
  std::vector<html::Series> series;
  for (const auto& k : rep.kinds) {
    if (k.best_so_far_us.empty()) continue;
    html::Series s{std::string(to_string(k.kind)) + " best so far", {}, false};
    for (std::size_t e = 0; e < k.best_so_far_us.size(); ++e) {
      s.points.emplace_back(static_cast<double>(e + 1), k.best_so_far_us[e]);
    }
    series.push_back(std::move(s));
    series.push_back(
        {std::string(to_string(k.kind)) + " start",
         {{1.0, k.before_us}, {static_cast<double>(k.best_so_far_us.size()), k.before_us}},
         true});
  }
  std::string cell = "<div class=\"cell\"><h3>" + html::escape(rep.op_name) +
                     "</h3><div class=\"note\">" + html::escape(rep.op_type) + ": " +
                     html::num(rep.default_us) + " us &rarr; " + html::num(rep.result_us) +
                     " us</div>";
  double start = 0;
  for (const auto& k : rep.kinds) start = std::max(start, k.before_us);
  cell += html::line_chart(series, "evaluation (log scale)", "us", 300, 170, true, 2 * start);
  cell += "<div class=\"k\" style=\"font-family:ui-monospace,monospace;font-size:11px\">" +
          html::escape(knowledge) + "</div></div>";
  return cell;
}

/// The operators searched in this job that a section shows a cell of: the first this many.
inline constexpr std::size_t searched_cells_shown = 24;

/// The cells `cell(report, index)` of the operators searched in this job, the first
/// searched_cells_shown in `order`; `searched` counts them all.
template <class Cell>
std::string searched_cells(const ModelProfile& profile, const std::vector<std::size_t>& order,
                           const OpatReportIndex& reports, std::size_t& searched, Cell&& cell) {
  std::string cells;
  for (const std::size_t i : order) {
    const auto* rep = report_of(reports, profile.phases[0].ops[i].name);
    if (rep == nullptr || rep->evaluations == 0) continue;
    if (++searched > searched_cells_shown) continue;
    cells += cell(*rep, i);
  }
  return cells;
}

/// OPAT's convergence section: a cell per operator searched in this job, the first 24 in
/// `order`.
inline std::string opat_convergence_html(const ModelProfile& profile,
                                         const std::vector<std::size_t>& order,
                                         const OpatReportIndex& reports) {
  constexpr std::size_t shown = searched_cells_shown;
  std::size_t searched = 0;
  const std::string cells = searched_cells(
      profile, order, reports, searched, [&](const OpatOperatorReport& rep, std::size_t i) {
        return opat_convergence_cell(rep, profile.phases[1].ops[i].knowledge);
      });
  std::string b = "<h2>Search convergence and chosen knowledge</h2>";
  if (searched == 0) {
    return b + "<p class=\"note\">No operator was searched in this job (all bank hits).</p>";
  }
  return b +
         "<p class=\"note\">Best so far per evaluation of each knowledge kind (dashed: where the "
         "search started, the default or the bank's policy)" +
         std::string(searched > shown
                         ? "; the " + std::to_string(shown) + " operators that saved the most of " +
                               std::to_string(searched) + " searched"
                         : "") +
         ".</p><div class=\"grid\">" + cells + "</div>";
}

/// Microjoules of `joules`, for a page ("-" when unknown).
inline std::string microjoules(const std::optional<double>& joules) {
  return joules ? html::num(*joules * 1e6) : std::string("-");
}

/// A searched operator's cell of the energy section: per knowledge kind, its evaluations (us
/// against uJ), their front and the configuration in use.
inline std::string opat_front_cell(const OpatOperatorReport& rep) {
  std::string cell = "<div class=\"cell\" data-front=\"" + html::escape(rep.op_name) + "\"><h3>" +
                     html::escape(rep.op_name) + "</h3><div class=\"note\">" +
                     html::escape(rep.op_type) + ": " + html::num(rep.default_us) + " us, " +
                     microjoules(rep.default_j) + " uJ &rarr; " + html::num(rep.result_us) +
                     " us, " + microjoules(rep.result_j) + " uJ</div>";
  for (const auto& k : rep.kinds) {
    if (k.trials_us_j.empty()) continue;
    std::vector<std::pair<double, double>> points;
    points.reserve(k.trials_us_j.size());
    for (const auto& [us, j] : k.trials_us_j) points.emplace_back(us, j * 1e6);
    std::optional<std::pair<double, double>> chosen;
    if (k.after_j) chosen.emplace(k.after_us, *k.after_j * 1e6);
    cell += "<div class=\"note\">" + std::string(to_string(k.kind)) + ": " +
            std::to_string(k.front.size()) + " on the front of " + std::to_string(points.size()) +
            " evaluations</div>";
    cell += html::front_chart(points, k.front, chosen, "time (us)", "energy (uJ)");
  }
  return cell + "</div>";
}

/// An objective other than plain time (the report's): the model's energy before and after, then
/// the time against the energy of each operator searched in this job, the first 24 in `order`.
inline std::string opat_energy_html(const OpatReport& r, const ModelProfile& profile,
                                    const std::vector<std::size_t>& order,
                                    const OpatReportIndex& reports) {
  if (r.objective.plain_time()) return "";
  const auto before = r.energy_j(true), after = r.energy_j(false);
  const auto mj = [](const std::optional<double>& j) {
    return j ? html::num(*j * 1e3, 6) : std::string("-");
  };
  std::string b =
      "<h2 id=\"energy\">Time and energy (objective: " + html::escape(r.objective.label()) +
      ")</h2><div class=\"cards\">";
  b += html::card("energy-before-mj", mj(before), "model energy before tuning (mJ)");
  b += html::card("energy-after-mj", mj(after), "model energy after tuning (mJ)");
  b += html::card(
      "energy-improvement",
      before && after ? html::percent(OpatReport::improvement(*before, *after)) : std::string("-"),
      "energy improvement");
  b += "</div>";
  std::size_t searched = 0;
  const std::string cells = searched_cells(
      profile, order, reports, searched,
      [](const OpatOperatorReport& rep, std::size_t) { return opat_front_cell(rep); });
  if (searched == 0) return b;
  return b +
         "<p class=\"note\">Each operator's evaluations, time against energy (grey; under the "
         "power cap where there is one), their Pareto front (blue) and the configuration in use "
         "(ringed), zoomed on the front (each chart says how many evaluations lie outside). The "
         "model's energy is the sum of its operators', each the runner's: on the simulator its "
         "energy model (docs/simulator.md#the-energy-model; docs/energy.md).</p>"
         "<div class=\"grid\">" +
         cells + "</div>";
}

}  // namespace detail

/// The OPAT job's page. `result_file` is the name shown; `profile` from `opat_profile`.
[[nodiscard]] inline std::string opat_html(const OpatReport& r, const ModelProfile& profile,
                                           std::string_view result_file) {
  const double before = r.baseline_ms(), after = r.result_ms();
  std::string b = detail::model_page_head(
      r, "OPAT", "Operator tuning", profile.soc, result_file, before, after,
      aoe::detail::percent(OpatReport::improvement(before, after)), r.operators, "operators",
      "operators tuned or hit", "candidates measured");
  b += detail::opat_timeline_html(profile);
  const auto order = detail::opat_ranking(profile);
  const auto reports = detail::opat_report_index(r);
  b += detail::opat_ranked_table(profile, order, reports);
  b += detail::opat_failed_html(r);
  // Convergence and knowledge of the operators searched in this job.
  b += detail::opat_convergence_html(profile, order, reports);
  b += detail::opat_energy_html(r, profile, order, reports);
  b += detail::opat_timing_note(profile);
  return html::page("OPAT report: " + r.tuning_name, b);
}

/// The SGAT job's page.
[[nodiscard]] inline std::string sgat_html(const SgatReport& r, const ModelProfile& profile,
                                           std::string_view result_file) {
  const double before = r.baseline_ms, after = r.result_ms();
  std::string b =
      detail::model_page_head(r, "SGAT", "Subgraph tuning", profile.soc, result_file, before, after,
                              sgat_percent(SgatReport::improvement(before, after)), r.subgraphs,
                              "subgraphs", "subgraphs", "strategies measured");
  b += "<h2 id=\"timeline\">Timeline before and after tuning</h2>";
  b += timeline_svg(profile);
  std::vector<const SgatSubgraphReport*> order;
  for (const auto& s : r.subgraphs) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* c) {
    return a->default_ms - a->after_ms > c->default_ms - c->after_ms;
  });
  double max_ms = 0;
  for (const auto* s : order) max_ms = std::max(max_ms, s->default_ms);
  b += "<h2>Subgraphs and their strategies, ranked by time saved</h2>";
  b += "<input type=\"search\" placeholder=\"filter subgraphs\" data-filter=\"subgraphs\">";
  b += "<div class=\"wide\"><table id=\"subgraphs\"><thead><tr><th "
       "class=\"n\">#</th><th>subgraph</th><th>outcome"
       "</th><th class=\"n\">untuned (ms)</th><th class=\"n\">before (ms)</th><th class=\"n\">"
       "after (ms)</th><th class=\"n\">saved (ms)</th><th>untuned / after</th><th>strategy</th>"
       "<th>repo_key</th><th class=\"n\">evaluations</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& s = *order[i];
    b += "<tr><td class=\"n\">" + std::to_string(i + 1) + "</td><td>" + html::escape(s.name) +
         "</td><td>" + std::string(to_string(s.outcome)) + "</td><td class=\"n\">" +
         html::num(s.default_ms, 6) + "</td><td class=\"n\">" + html::num(s.before_ms, 6) +
         "</td><td class=\"n\">" + html::num(s.after_ms, 6) + "</td><td class=\"n\">" +
         html::num(s.default_ms - s.after_ms, 6) + "</td><td>" +
         html::bar_pair(s.default_ms, s.after_ms, max_ms) + "</td><td class=\"k\">" +
         html::escape(s.failed() ? s.error : s.strategy) + "</td><td class=\"k\">" +
         html::escape(s.repo_key) + "</td><td class=\"n\">" + std::to_string(s.evaluations) +
         "</td></tr>";
  }
  b += "</tbody></table></div>";
  b += "<h2>What is simulated</h2><p class=\"note\">Every time on this page is the OpenAOE "
       "simulator's timing model of " +
       html::escape(profile.soc) +
       " (docs/simulator.md, docs/sgat.md), not a measurement. See docs/reports.md.</p>";
  return html::page("SGAT report: " + r.tuning_name, b);
}

namespace detail {

/// One split's step: compute lane (forward, backward), all-reduce lane (segments), the
/// gradients' ready times as ticks.
inline void gdat_lanes(const gdat::IterationTimeline& t, std::string_view label, double total,
                       double y, std::string& s) {
  const double left = 170, pw = 940;
  const auto fx = [&](double sec) { return left + sec / total * pw; };
  s += "<text x=\"0\" y=\"" + html::num(y + 12, 0) + "\" font-size=\"12\" font-weight=\"600\">" +
       html::escape(label) + "</text>";
  s += "<text x=\"0\" y=\"" + html::num(y + 26, 0) + "\" font-size=\"10\" fill=\"#5b6570\">" +
       html::num(t.iteration * 1e3, 3) + " ms</text>";
  s += "<text x=\"112\" y=\"" + html::num(y + 13, 0) +
       "\" font-size=\"10\" fill=\"#5b6570\">compute</text>";
  s += "<rect x=\"" + html::num(fx(0), 1) + "\" y=\"" + html::num(y, 0) + "\" width=\"" +
       html::num(fx(t.forward) - fx(0), 2) + "\" height=\"18\" fill=\"#56B4E9\"><title>forward " +
       html::num(t.forward * 1e3, 3) + " ms</title></rect>";
  s += "<rect x=\"" + html::num(fx(t.forward), 1) + "\" y=\"" + html::num(y, 0) + "\" width=\"" +
       html::num(fx(t.forward + t.backward) - fx(t.forward), 2) +
       "\" height=\"18\" fill=\"#0072B2\"><title>backward " + html::num(t.backward * 1e3, 3) +
       " ms</title></rect>";
  s += "<text x=\"112\" y=\"" + html::num(y + 35, 0) +
       "\" font-size=\"10\" fill=\"#5b6570\">all-reduce</text>";
  for (std::size_t i = 0; i < t.segments.size(); ++i) {
    const auto& g = t.segments[i];
    const double x0 = fx(t.forward + g.start), x1 = fx(t.forward + g.end);
    s += "<rect x=\"" + html::num(x0, 2) + "\" y=\"" + html::num(y + 22, 0) + "\" width=\"" +
         html::num(std::max(0.8, x1 - x0), 2) + "\" height=\"18\" fill=\"" +
         std::string(i % 2 == 0 ? "#E69F00" : "#D55E00") + "\"><title>segment " +
         std::to_string(i) + ": gradients " + std::to_string(g.first) + ".." +
         std::to_string(g.last) + ", " + html::num(static_cast<double>(g.bytes) / 1048576.0, 1) +
         " MiB, ready " + html::num((t.forward + g.ready) * 1e3, 3) + " ms, all-reduce " +
         html::num((t.forward + g.start) * 1e3, 3) + ".." +
         html::num((t.forward + g.end) * 1e3, 3) + " ms</title></rect>";
    const double xr = fx(t.forward + g.ready);
    s += "<line x1=\"" + html::num(xr, 2) + "\" x2=\"" + html::num(xr, 2) + "\" y1=\"" +
         html::num(y + 20, 0) + "\" y2=\"" + html::num(y + 42, 0) +
         "\" stroke=\"#000\" stroke-width=\"1\"/>";
  }
}

inline std::string split_row(std::string_view name, const GdatSplit& s, const GdatReport& r) {
  std::string idx, size;
  for (std::size_t i = 0; i < s.split.ends.size(); ++i) {
    idx += (i == 0 ? "" : ", ") + std::to_string(s.split.ends[i]);
  }
  for (std::size_t i = 0; i < s.by_size.size(); ++i) {
    size += (i == 0 ? "" : ", ") + html::num(s.by_size[i], 2);
  }
  return "<tr><td>" + html::escape(name) + "</td><td class=\"n\">" +
         std::to_string(s.split.segments()) + "</td><td class=\"k\">[" + idx +
         "]</td><td class=\"k\">[" + size + "]</td><td class=\"n\">" +
         html::num(s.seconds * 1e3, 6) + "</td><td class=\"n\">" + html::percent(r.gap(s.seconds)) +
         "</td></tr>";
}

}  // namespace detail

/// The GDAT job's page.
[[nodiscard]] inline std::string gdat_html(const GdatReport& r, std::string_view result_file) {
  const double before = r.baseline.seconds * 1e3;
  const double after = r.result ? r.result->seconds * 1e3 : before;
  std::string b = detail::page_head(
      "GDAT", "simulated: iteration model",
      "Gradient split tuning on " + std::to_string(r.cluster.devices) + " devices", r,
      r.status_text(), result_file, before, after,
      aoe::detail::percent(GdatReport::improvement(before, after)), "iteration, default split (ms)",
      "iteration, tuned split (ms)");
  b += html::card("optimum-ms", html::num(r.optimum.seconds * 1e3, 6),
                  "dynamic programme's optimum (ms)");
  b += html::card("gap", html::percent(r.gap(r.result ? r.result->seconds : r.baseline.seconds)),
                  "gap to the optimum");
  b += html::card("evaluations", std::to_string(r.evaluations), "splits evaluated");
  b += html::card("source", r.strategy_source.empty() ? "-" : r.strategy_source, "result from");
  b += detail::repo_summary_html(r);
  b += "<h2 id=\"timeline\">Gradient timeline and all-reduce segments</h2>";
  b += "<div class=\"legend\"><span><i style=\"background:#56B4E9\"></i>forward</span><span><i "
       "style=\"background:#0072B2\"></i>backward</span><span><i "
       "style=\"background:#E69F00\"></i>all-reduce segment</span><span>| a segment's last "
       "gradient ready</span></div>";
  const double total = std::max(r.baseline_timeline.iteration, r.timeline.iteration);
  std::string svg =
      "<svg id=\"timeline-svg\" viewBox=\"0 0 1120 130\" width=\"1120\" "
      "height=\"130\" role=\"img\">";
  if (total > 0) {
    detail::gdat_lanes(r.baseline_timeline, "default split", total, 8, svg);
    detail::gdat_lanes(r.timeline, "tuned split", total, 70, svg);
  }
  b += svg + "</svg>";
  b += "<p class=\"note\">Exposed communication (all-reduce after backward ends): default " +
       html::num(r.baseline_timeline.exposed_communication() * 1e3, 3) + " ms, tuned " +
       html::num(r.timeline.exposed_communication() * 1e3, 3) + " ms. " +
       std::to_string(r.gradients) + " gradients, " +
       html::num(static_cast<double>(r.gradient_bytes) / 1048576.0, 1) + " MiB.</p>";
  b += "<h2>Splits</h2><table id=\"splits\"><thead><tr><th>split</th><th class=\"n\">segments"
       "</th><th>by_idx</th><th>by_size (%)</th><th class=\"n\">iteration (ms)</th><th "
       "class=\"n\">gap to optimum</th></tr></thead><tbody>";
  b += detail::split_row("default (AOE)", r.baseline, r);
  if (r.result) b += detail::split_row("in use after the job", *r.result, r);
  if (r.search_best)
    b += detail::split_row("search's best (" + r.search_policy + ")", *r.search_best, r);
  b += detail::split_row("optimum (dynamic programme)", r.optimum, r);
  b += "</tbody></table>";
  b += "<h2>What is simulated</h2><p class=\"note\">The step is the iteration model of "
       "docs/gdat.md (forward, backward, ring all-reduce on the cluster's links), not a "
       "measurement. See docs/reports.md.</p>";
  return html::page("GDAT report: " + r.tuning_name, b);
}

// ---- Files ---------------------------------------------------------------------------------

/// The three files' paths.
struct ReportFiles {
  std::filesystem::path trace;
  std::filesystem::path op_summary;  ///< empty for GDAT (no operators)
  std::filesystem::path html;
};

[[nodiscard]] inline ReportFiles report_file_names(const std::filesystem::path& dir,
                                                   const std::string& name,
                                                   const std::string& timestamp) {
  const std::string stem = model_file_stem(name) + "_" + timestamp;  // stays in `dir`
  return {dir / (stem + "_trace.json"), dir / (stem + "_op_summary.csv"),
          dir / (stem + "_report.html")};
}

/// Writes one report file atomically (readers see the old file or the new one). Reports are
/// outputs a job can rebuild: not fsynced.
[[nodiscard]] inline Result<void> write_report_file(const std::filesystem::path& file,
                                                    const std::string& text) {
  return write_file_atomically(file, text, false);
}

/// What a job's report files hold: the trace, the op_summary CSV (a job with operators) and the
/// HTML page.
struct ReportTexts {
  boost::json::object trace;
  std::optional<std::string> op_summary;  ///< none for GDAT (no operators)
  std::string html;
};

/// Writes a job's report files next to `result_file`, named after its tuning name and timestamp
/// (report_file_names): the trace, the op_summary when the job has one, the HTML page.
[[nodiscard]] inline Result<ReportFiles> write_job_reports(const JobReportHead& r,
                                                           const std::filesystem::path& result_file,
                                                           const ReportTexts& texts) {
  auto files = report_file_names(result_file.parent_path(), r.tuning_name, r.timestamp);
  if (!texts.op_summary) files.op_summary.clear();
  if (auto ok = write_report_file(files.trace, boost::json::serialize(texts.trace) + "\n"); !ok) {
    return ok.error();
  }
  if (texts.op_summary) {
    if (auto ok = write_report_file(files.op_summary, *texts.op_summary); !ok) return ok.error();
  }
  if (auto ok = write_report_file(files.html, texts.html); !ok) return ok.error();
  return files;
}

/// OPAT's three files, next to `result_file`.
[[nodiscard]] inline Result<ReportFiles> write_opat_reports(
    const Graph& graph, const OpatReport& r, const sim::Soc& soc,
    const std::filesystem::path& result_file) {
  const ModelProfile profile = opat_profile(graph, r, soc);
  return write_job_reports(r, result_file,
                           {trace_json(profile, "OPAT"), op_summary_csv(profile, soc.split),
                            opat_html(r, profile, result_file.filename().string())});
}

/// SGAT's three files (the subgraphs as the stream's executions).
[[nodiscard]] inline Result<ReportFiles> write_sgat_reports(
    const SgatReport& r, const sim::Soc& soc, const std::filesystem::path& result_file) {
  const ModelProfile profile = sgat_profile(r, soc.name);
  return write_job_reports(r, result_file,
                           {trace_json(profile, "SGAT"), op_summary_csv(profile, soc.split),
                            sgat_html(r, profile, result_file.filename().string())});
}

/// GDAT's trace and HTML (a step has no operators: no op_summary).
[[nodiscard]] inline Result<ReportFiles> write_gdat_reports(
    const GdatReport& r, const std::filesystem::path& result_file) {
  return write_job_reports(
      r, result_file,
      {gdat_trace_json(r), std::nullopt, gdat_html(r, result_file.filename().string())});
}

}  // namespace aoe::report

#endif  // AOE_REPORT_JOB_REPORTS_HPP
