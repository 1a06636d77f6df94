// The reports of a model of many operators stay a size a browser and a trace viewer open:
// the timeline is drawn in pixel columns, the trace draws the pipes of the longest operators only,
// the ranked table shows the operators that saved most (docs/reports.md, "Large models").
#include <aoe/report/job_reports.hpp>

#include <boost/json/array.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace tools_report_size_test {  // apart from this area's other files in a unity build

namespace {

namespace sim = aoe::sim::detail;

/// `n` operators on one stream; operator i takes 1 + (i % 7) us, its pipes MTE2 and Cube busy.
aoe::report::Phase phase(std::string name, std::size_t n) {
  aoe::report::Phase ph{std::move(name), {}};
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sim::Profile p;
    p.blocks = p.cores = p.waves = 1;
    p.seconds = 1e-6 * static_cast<double>(1 + i % 7);
    p.block = p.wave = p.seconds;
    p.pipes[sim::mte2] = {0, p.seconds / 2, p.seconds / 2};
    p.pipes[sim::cube] = {p.seconds / 4, p.seconds, p.seconds / 2};
    ph.ops.push_back({"op" + std::to_string(i), "MatMul", t, p.seconds * 1e6, p, "", nullptr});
    t += p.seconds * 1e6;
  }
  return ph;
}

std::size_t count(std::string_view text, std::string_view what) {
  std::size_t k = 0;
  for (auto at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) ++k;
  return k;
}

}  // namespace

TEST_CASE("reports of 20,000 operators: timeline in pixel columns, pipes of the longest only") {
  aoe::report::ModelProfile m{"big", "Ascend910B", {phase("before", 20000), phase("after", 20000)}};

  const std::string svg = aoe::report::timeline_svg(m);
  // Per phase at most one rectangle per pixel column in each of the 1 + 5 lanes.
  CHECK(count(svg, "<rect") <= 2 * 6 * 1000);
  CHECK(count(svg, "<rect") > 2 * 900);  // the stream lane is filled, column by column
  CHECK(svg.find("operators from op0:") != std::string::npos);
  CHECK(svg.find("op19999 (MatMul)") == std::string::npos);  // no operator drawn on its own

  const auto trace = aoe::report::trace_json(m, "opat");
  std::size_t stream = 0, pipe = 0;
  for (const auto& e : trace.at("traceEvents").as_array()) {
    const auto& o = e.as_object();
    if (o.at("ph").as_string() != "X") continue;
    if (o.at("cat").as_string() == "operator") ++stream;
    if (o.at("cat").as_string() == "pipe") ++pipe;
  }
  CHECK(stream == 2 * 20000);                                // every operator on the stream
  CHECK(pipe == 2 * 2 * aoe::report::trace_pipe_operators);  // two busy pipes each
  const auto longest = aoe::report::detail::detailed_operators(m.phases[0].ops, 2000);
  CHECK(longest[6]);   // 7 us, among the longest
  CHECK(!longest[0]);  // 1 us
}

TEST_CASE("reports of few operators: each operator drawn and traced, as before") {
  aoe::report::ModelProfile m{"small", "Ascend910B", {phase("before", 50), phase("after", 50)}};
  const std::string svg = aoe::report::timeline_svg(m);
  CHECK(count(svg, "<rect") == 2 * 50 * 3);  // the operator and its two pipes
  CHECK(svg.find("op49 (MatMul): 1.000 us") != std::string::npos);
  const auto trace = aoe::report::trace_json(m, "opat");
  std::size_t pipe = 0;
  for (const auto& e : trace.at("traceEvents").as_array()) {
    if (e.as_object().at("ph").as_string() == "X" &&
        e.as_object().at("cat").as_string() == "pipe") {
      ++pipe;
    }
  }
  CHECK(pipe == 2 * 50 * 2);
}

}  // namespace tools_report_size_test
