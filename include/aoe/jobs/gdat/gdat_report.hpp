// The gradient-tuning result file, aoe_result_gdat_${YYYYMMDD_HHMMSSMS}_${pid}.json, in the
// style of AOE's OPAT and SGAT reports (opat_report.hpp; docs/gdat.md#result-file):
//   {"report_${timestamp}_${tid}": [{"basic": {"tuning_name", "tuning_time(s)"}},
//                                   {"GDAT": {"model_baseline_performance(ms)", ...}}]}
// Rewritten atomically as the job goes, so it is valid JSON at every moment.
#ifndef AOE_JOBS_GDAT_REPORT_HPP
#define AOE_JOBS_GDAT_REPORT_HPP

#include "aoe/core/error.hpp"
#include "aoe/jobs/gdat/cluster.hpp"
#include "aoe/jobs/gdat/gradient_fusion_bank.hpp"
#include "aoe/jobs/gdat/iteration_model.hpp"
#include "aoe/jobs/gdat/split_strategy.hpp"
#include "aoe/jobs/result_file.hpp"
#include "aoe/version.hpp"
#include "aoe/vocab/timing.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aoe {

/// How a GDAT job's bank accounting ended (AOE's repo_summary categories).
using GdatOutcome = JobOutcome;

/// A split with its size percentages and iteration time.
struct GdatSplit {
  gdat::SplitStrategy split;
  std::vector<double> by_size;
  double seconds = 0;
};

/// The provenance of every time GDAT gives: its iteration model (docs/gdat.md, "The cost
/// model"), not a measurement of a cluster.
[[nodiscard]] inline Timing gdat_timing() {
  return Timing{TimingKind::simulated, "openaoe GDAT iteration model " AOE_VERSION_STRING};
}

/// The state of a GDAT job's report; `to_json` turns it into the result file.
struct GdatReport : JobReportHead {
  std::string model_hash;  ///< the bank's modelhash (repo_key)
  gdat::Cluster cluster;
  std::size_t max_segments = gdat::max_split_segments;
  std::size_t gradients = 0;
  std::int64_t gradient_bytes = 0;
  double forward_seconds = 0;
  double backward_seconds = 0;

  GdatSplit baseline;                    ///< AOE's default split (96.54% / 3.46%)
  GdatSplit optimum;                     ///< the dynamic programme's exact optimum
  std::optional<GdatSplit> result;       ///< the split in use after the job
  std::optional<GdatSplit> search_best;  ///< the search's best (absent on a bank hit)
  std::string search_policy;
  std::size_t evaluations = 0;
  /// Where the result came from: "search", "default", "exact" (the optimum, --gdat_exact) or
  /// "bank".
  std::string strategy_source;
  std::optional<GdatOutcome> outcome;
  gdat::IterationTimeline timeline;  ///< of the result
  /// Of AOE's default split, for reports (not in the result file).
  gdat::IterationTimeline baseline_timeline{};

  [[nodiscard]] std::string status_text() const {
    return finished && !interrupted ? "tuning successful" : "tune tuning incomplete";
  }
  [[nodiscard]] bool complete() const noexcept { return finished && !interrupted && result; }
  /// How far a time is above the optimum: t / T* − 1.
  [[nodiscard]] double gap(double seconds) const {
    return optimum.seconds > 0 ? seconds / optimum.seconds - 1.0 : 0.0;
  }
  [[nodiscard]] std::size_t count(GdatOutcome o) const { return outcome == o ? 1 : 0; }
};

namespace detail {

inline double gdat_ms(double seconds) { return round6(seconds * 1e3); }

inline boost::json::object gdat_split_json(const GdatSplit& s) {
  boost::json::object o = gdat::split_json(s.split, s.by_size);
  o["segments"] = static_cast<std::int64_t>(s.split.segments());
  o["iteration_time(ms)"] = gdat_ms(s.seconds);
  return o;
}

}  // namespace detail

/// The report as JSON.
[[nodiscard]] inline boost::json::object to_json(const GdatReport& r) {
  using boost::json::array;
  using boost::json::object;
  object g;
  g["model_baseline_performance(ms)"] = detail::gdat_ms(r.baseline.seconds);
  if (r.complete()) {
    g["model_result_performance(ms)"] = detail::gdat_ms(r.result->seconds);
    g["model_performance_improvement"] =
        detail::percent(GdatReport::improvement(r.baseline.seconds, r.result->seconds));
  }
  g["dp_optimum_performance(ms)"] = detail::gdat_ms(r.optimum.seconds);
  if (r.complete()) g["gap_to_optimum"] = detail::percent(r.gap(r.result->seconds));
  g["gdat_tuning_result"] = r.status_text();
  if (r.complete()) {
    object split = detail::gdat_split_json(*r.result);
    split["source"] = r.strategy_source;
    g["split_strategy"] = std::move(split);
  }
  g["default_split_strategy"] = detail::gdat_split_json(r.baseline);
  g["dp_split_strategy"] = detail::gdat_split_json(r.optimum);
  object search;
  search["policy"] = r.search_policy;
  search["evaluations"] = static_cast<std::int64_t>(r.evaluations);
  if (r.search_best) {
    search["best_performance(ms)"] = detail::gdat_ms(r.search_best->seconds);
    search["gap_to_optimum"] = detail::percent(r.gap(r.search_best->seconds));
  }
  g["search"] = std::move(search);
  if (r.complete()) {
    object it;
    it["forward(ms)"] = detail::gdat_ms(r.timeline.forward);
    it["backward(ms)"] = detail::gdat_ms(r.timeline.backward);
    it["exposed_communication(ms)"] = detail::gdat_ms(r.timeline.exposed_communication());
    array segs;
    for (const auto& s : r.timeline.segments) {
      object o;
      o["gradients"] = array{static_cast<std::int64_t>(s.first), static_cast<std::int64_t>(s.last)};
      o["size(bytes)"] = s.bytes;
      o["ready(ms)"] = detail::gdat_ms(s.ready);
      o["allreduce_start(ms)"] = detail::gdat_ms(s.start);
      o["allreduce_end(ms)"] = detail::gdat_ms(s.end);
      segs.push_back(std::move(o));
    }
    it["segments"] = std::move(segs);
    g["iteration"] = std::move(it);
  }
  object cluster;
  cluster["devices"] = r.cluster.devices;
  cluster["devices_per_server"] = r.cluster.server_size();
  cluster["topology"] = std::string(gdat::to_string(r.cluster.topology));
  cluster["intra_server"] = object{{"bandwidth(GB/s)", r.cluster.intra_server.bandwidth / 1e9},
                                   {"latency(us)", r.cluster.intra_server.latency * 1e6}};
  cluster["inter_server"] = object{{"bandwidth(GB/s)", r.cluster.inter_server.bandwidth / 1e9},
                                   {"latency(us)", r.cluster.inter_server.latency * 1e6}};
  cluster["allreduce_overhead(us)"] = r.cluster.allreduce_overhead * 1e6;
  cluster["max_segments"] = static_cast<std::int64_t>(r.max_segments);
  g["cluster"] = std::move(cluster);
  g["gradients"] =
      object{{"count", static_cast<std::int64_t>(r.gradients)}, {"size(bytes)", r.gradient_bytes}};
  g["repo_key"] = r.model_hash;
  if (r.outcome && (*r.outcome == GdatOutcome::add || *r.outcome == GdatOutcome::update)) {
    g["update_mode"] = std::string(to_string(*r.outcome));
  }
  g["repo_summary"] = detail::repo_summary<GdatOutcome>(r, r.outcome ? 1 : 0);
  g["timing"] = detail::timing_json(gdat_timing());

  return detail::job_result_json(r, r.complete(), "GDAT", std::move(g));
}

/// The result file's name: aoe_result_gdat_${timestamp}_${pid}.json.
[[nodiscard]] inline std::string gdat_result_file_name(const std::string& timestamp) {
  return detail::result_file_name("gdat", timestamp);
}

}  // namespace aoe

#endif  // AOE_JOBS_GDAT_REPORT_HPP
