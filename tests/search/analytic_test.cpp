// The analytic cost model (costmodel/analytic_model.hpp) and pre-screening (search/prescreen.hpp).
#include "aoe/costmodel/analytic_model.hpp"
#include "aoe/search/by_name.hpp"
#include "aoe/search/prescreen.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

namespace {

aoe::Parameter ints(const char* name, std::vector<std::int64_t> v) {
  std::vector<aoe::Value> levels(v.begin(), v.end());
  return {name, aoe::ParameterKind::integer, std::move(levels)};
}

// A cube operator's schedule space, with the parameter names of the simulator's spaces.
aoe::Space cube_space() {
  return aoe::Space({ints("block_m", {1, 2, 4, 8, 16, 32}), ints("m_l0", {16, 32, 64, 128, 256}),
                     ints("m_step", {1, 2, 4}), ints("block_n", {1, 2, 4, 8, 16, 32}),
                     ints("n_l0", {16, 32, 64, 128, 256}), ints("n_step", {1, 2, 4}),
                     ints("k_l0", {16, 32, 64, 128, 256}), ints("k_step", {1, 2, 4, 8}),
                     aoe::enumeration("order", {"m_outer", "n_outer"}), aoe::flag("db_l1"),
                     aoe::flag("db_l0"), aoe::flag("db_l0c")});
}

aoe::OperatorDesc matmul(std::int64_t m, std::int64_t k, std::int64_t n) {
  aoe::OperatorDesc op;
  op.type = "MatMul";
  op.name = "mm";
  op.inputs = {{{m, k}, aoe::DataType::float16, aoe::Format::ND},
               {{k, n}, aoe::DataType::float16, aoe::Format::ND}};
  op.outputs = {{{m, n}, aoe::DataType::float16, aoe::Format::ND}};
  return op;
}

aoe::Configuration config(const aoe::Space& space, std::vector<aoe::NamedValue> values) {
  auto c = space.find(values);
  REQUIRE(c.has_value());
  return *c;
}

// The level of each cube parameter by value, in cube_space()'s order.
aoe::Configuration tiling(const aoe::Space& space, int bm, int ml0, int ms, int bn, int nl0, int ns,
                          int kl0, int ks, bool db) {
  return config(space, {{"block_m", bm},
                        {"m_l0", ml0},
                        {"m_step", ms},
                        {"block_n", bn},
                        {"n_l0", nl0},
                        {"n_step", ns},
                        {"k_l0", kl0},
                        {"k_step", ks},
                        {"order", std::string("m_outer")},
                        {"db_l1", db ? 1 : 0},
                        {"db_l0", db ? 1 : 0},
                        {"db_l0c", 0}});
}

}  // namespace

static_assert(aoe::cost_model<aoe::AnalyticCostModel>);

TEST_CASE(
    "the analytic model ranks a clearly better MatMul tiling first and an infeasible one "
    "last") {
  const auto soc = aoe::sim::Soc::builtin("Ascend910A");
  REQUIRE(soc.has_value());
  const aoe::Space space = cube_space();
  auto model = aoe::AnalyticCostModel::create(*soc, matmul(4096, 4096, 4096), space);
  REQUIRE(model.has_value());
  // All 32 cores, 128x128 base blocks, ping-pong: against one core with 16x16 blocks.
  const auto good = tiling(space, 4, 128, 1, 8, 128, 1, 64, 4, true);
  const auto bad = tiling(space, 1, 16, 1, 1, 16, 1, 16, 1, false);
  // L0A: 256 x 256 fp16, double-buffered = 256 KiB > 64 KiB.
  const auto infeasible = tiling(space, 4, 256, 1, 8, 128, 1, 256, 1, true);
  const double g = model->predict_seconds(good);
  const double b = model->predict_seconds(bad);
  CHECK(std::isfinite(g));
  CHECK(std::isfinite(b));
  CHECK(g * 10 < b);
  CHECK(std::isinf(model->predict_seconds(infeasible)));
  // The roofline bounds it: no faster than the cube's peak on 2*M*N*K flops.
  CHECK(g >= 2.0 * 4096.0 * 4096.0 * 4096.0 / soc->peak_flops_fp16());
  const std::vector<aoe::Configuration> queries{infeasible, bad, good};
  const auto p = model->predict(queries);
  REQUIRE(p.size() == 3);
  CHECK(p[2].mean < p[1].mean);
  CHECK(p[1].mean < p[0].mean);
}

TEST_CASE(
    "the analytic model prefers more cores and double buffering for an elementwise Add, "
    "and a UB tile that does not fit is infeasible") {
  const auto soc = aoe::sim::Soc::builtin("Ascend910A");
  REQUIRE(soc.has_value());
  const aoe::Space space({ints("block_dim", {1, 2, 4, 8, 16, 32}),
                          ints("ub_tile", {256, 1024, 4096, 16384, 65536}),
                          aoe::flag("double_buffer")});
  aoe::OperatorDesc add;
  add.type = "Add";
  add.name = "add";
  const aoe::TensorDesc t{{32, 256, 56, 56}, aoe::DataType::float16, aoe::Format::ND};
  add.inputs = {t, t};
  add.outputs = {t};
  auto model = aoe::AnalyticCostModel::create(*soc, add, space);
  REQUIRE(model.has_value());
  const auto at = [&](int cores, int tile, int db) {
    return model->predict_seconds(
        config(space, {{"block_dim", cores}, {"ub_tile", tile}, {"double_buffer", db}}));
  };
  CHECK(at(32, 16384, 1) < at(1, 16384, 1));
  CHECK(at(32, 16384, 1) < at(32, 16384, 0));
  // Two fp16 inputs and an output: 6 bytes of UB per element; 65536 of them do not fit 256 KiB.
  CHECK(std::isinf(at(32, 65536, 0)));
}

TEST_CASE("the analytic model names the operator it cannot read") {
  const auto soc = aoe::sim::Soc::builtin("Ascend910A");
  REQUIRE(soc.has_value());
  auto op = matmul(64, 64, 64);
  op.inputs.pop_back();
  auto model = aoe::AnalyticCostModel::create(*soc, op, cube_space());
  REQUIRE(model.has_error());
  CHECK(model.error().message.find("'mm'") != std::string::npos);
  CHECK(model.error().message.find("MatMul") != std::string::npos);
}

namespace {
// A cost model whose optimum is known: |x - 3| + |y - 5|.
struct Bowl {
  void fit(aoe::SpaceView, std::span<const aoe::Trial>) {}
  [[nodiscard]] std::vector<aoe::Prediction> predict(std::span<const aoe::Configuration> q) const {
    std::vector<aoe::Prediction> out;
    for (const auto& c : q) out.push_back({value(c), 0});
    return out;
  }
  [[nodiscard]] static double value(const aoe::Configuration& c) {
    return std::abs(static_cast<double>(c[0]) - 3) + std::abs(static_cast<double>(c[1]) - 5);
  }
};
}  // namespace

TEST_CASE("pre-screening measures the given points first, then only the best predicted") {
  const aoe::Space space({aoe::range("x", 0, 15), aoe::range("y", 0, 15)});
  aoe::PreScreenOptions o;
  o.initial = {aoe::Configuration{15, 15}};
  o.global = 5;
  aoe::PreScreen<Bowl> search(o, Bowl{});
  search.start(space, 11);
  const auto batch = search.propose(6);
  REQUIRE(batch.size() == 6);
  CHECK(batch[0] == aoe::Configuration{15, 15});
  // The next five are the model's five best of the space (values 0, 1, 1, 1, 1).
  CHECK(batch[1] == aoe::Configuration{3, 5});
  for (std::size_t i = 2; i < batch.size(); ++i) CHECK(Bowl::value(batch[i]) == 1);
}

TEST_CASE("\"analytic\" starts from the given points, then measures the model's best") {
  const auto soc = aoe::sim::Soc::builtin("Ascend910A");
  REQUIRE(soc.has_value());
  const aoe::Space space = cube_space();
  auto model = aoe::AnalyticCostModel::create(*soc, matmul(2048, 2048, 2048), space);
  REQUIRE(model.has_value());
  const auto def = tiling(space, 4, 128, 1, 8, 128, 1, 64, 4, true);
  aoe::SearchStart start;
  start.initial = {def};
  start.analytic = *model;
  auto search = aoe::make_search("analytic", start);
  REQUIRE(search.has_value());
  CHECK(search->name() == "analytic");
  search->start(space, 3);
  const auto batch = search->propose(8);
  REQUIRE(batch.size() == 8);
  CHECK(batch[0] == def);
  for (std::size_t i = 1; i < batch.size(); ++i) {
    CAPTURE(i);
    CHECK(space.is_valid(batch[i]));
    CHECK(model->predict_seconds(batch[i]) <= model->predict_seconds(def));
  }
}
