// SGAT's strategy space (constraints, uneven slices) and the subgraph scorer's properties: the
// untuned strategy reproduces OPAT's untuned time, L2-resident slices beat an HBM spill, fusion
// saves traffic, format changes cost TransData, failures are data.
#include <aoe/graph/fusion.hpp>
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/sgat/subgraph_scorer.hpp>
#include <aoe/jobs/sgat/subgraph_space.hpp>
#include <aoe/jobs/sgat/subgraph_split.hpp>
#include <aoe/measure/simulator/simulator_runner.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

namespace jobs_sgat_scorer_test {  // apart from this area's other files in a unity build

namespace {

aoe::sim::Soc soc(const char* name = "Ascend910A") { return aoe::sim::Soc::builtin(name).value(); }

aoe::Graph parse(const std::string& text) { return aoe::parse_graph(text, "test.json").value(); }

// The scorer of the whole of `g` as one subgraph.
aoe::SubgraphScorer scorer(const aoe::Graph& g, const aoe::sim::Soc& s,
                           aoe::SubgraphSpaceOptions o = {}) {
  const aoe::Subgraph whole{0, 0, g.nodes.size(), g.nodes.size(), "all"};
  return {std::make_shared<const aoe::SubgraphSpace>(
              aoe::SubgraphSpace::create(g, whole, s, o).value()),
          s};
}

// The default configuration with some parameters set by name.
aoe::Configuration with(const aoe::SubgraphScorer& sc,
                        std::initializer_list<std::pair<const char*, aoe::Value>> values) {
  const aoe::Space& sp = sc.space();
  aoe::Configuration c = sc.default_configuration();
  for (const auto& [name, v] : values) {
    const auto d = sp.index_of(name);
    REQUIRE_MESSAGE(d.has_value(), name);
    c[*d] = sp.parameter(*d).find(v).value();
  }
  return c;
}

double seconds(const aoe::SubgraphScorer& sc, const aoe::Configuration& c) {
  const auto m = sc.evaluate(c);
  REQUIRE_MESSAGE(m.ok(), m.message);
  return m.value;
}

// x (batch 7) -> Exp -> Relu -> LayerNorm: one subgraph, batch axis 7.
const char* const batch7 = R"({"format_version": 1, "name": "b7",
  "tensors": {"x": {"shape": [7, 128], "dtype": "float16"}, "a": {"shape": [7, 128], "dtype": "float16"}, "b": {"shape": [7, 128], "dtype": "float16"},
              "g": {"shape": [128], "dtype": "float16"}, "be": {"shape": [128], "dtype": "float16"}, "c": {"shape": [7, 128], "dtype": "float16"}},
  "nodes": [{"name": "exp", "type": "Exp", "inputs": ["x"], "outputs": ["a"]},
            {"name": "ln", "type": "LayerNorm", "inputs": ["a", "g", "be"], "outputs": ["b"]},
            {"name": "relu", "type": "Relu", "inputs": ["b"], "outputs": ["c"]}]})";

// Two 64 MB intermediates between MatMul, LayerNorm and MatMul (8192 rows).
const char* const big_chain = R"({"format_version": 1, "name": "big",
  "tensors": {"x": {"shape": [8192, 1024], "dtype": "float16"}, "w1": {"shape": [1024, 4096], "dtype": "float16"}, "y": {"shape": [8192, 4096], "dtype": "float16"},
              "g": {"shape": [4096], "dtype": "float16"}, "be": {"shape": [4096], "dtype": "float16"}, "z": {"shape": [8192, 4096], "dtype": "float16"},
              "w2": {"shape": [4096, 1024], "dtype": "float16"}, "o": {"shape": [8192, 1024], "dtype": "float16"}},
  "nodes": [{"name": "mm1", "type": "MatMul", "inputs": ["x", "w1"], "outputs": ["y"]},
            {"name": "ln", "type": "LayerNorm", "inputs": ["y", "g", "be"], "outputs": ["z"]},
            {"name": "mm2", "type": "MatMul", "inputs": ["z", "w2"], "outputs": ["o"]}]})";

// A residual block: Conv2D + BatchNorm, then Add of the block input, then Relu.
const char* const residual = R"({"format_version": 1, "name": "res",
  "tensors": {"x": {"shape": [8, 64, 28, 28], "dtype": "float16", "format": "NCHW"}, "w": {"shape": [64, 64, 3, 3], "dtype": "float16", "format": "NCHW"},
              "y": {"shape": [8, 64, 28, 28], "dtype": "float16", "format": "NCHW"}, "gm": {"shape": [64], "dtype": "float16"}, "bt": {"shape": [64], "dtype": "float16"},
              "z": {"shape": [8, 64, 28, 28], "dtype": "float16", "format": "NCHW"}, "s": {"shape": [8, 64, 28, 28], "dtype": "float16", "format": "NCHW"},
              "r": {"shape": [8, 64, 28, 28], "dtype": "float16", "format": "NCHW"}},
  "nodes": [{"name": "conv", "type": "Conv2D", "inputs": ["x", "w"], "outputs": ["y"],
             "attributes": {"pads": [1, 1, 1, 1]}},
            {"name": "bn", "type": "BatchNorm", "inputs": ["y", "gm", "bt"], "outputs": ["z"]},
            {"name": "add", "type": "Add", "inputs": ["z", "x"], "outputs": ["s"]},
            {"name": "relu", "type": "Relu", "inputs": ["s"], "outputs": ["r"]}]})";

// MatMul -> MatMul with a 2 MB intermediate y between them.
const char* const two_matmuls = R"({"format_version": 1, "name": "mm",
  "tensors": {"x": {"shape": [1024, 1024], "dtype": "float16"}, "w1": {"shape": [1024, 1024], "dtype": "float16"}, "y": {"shape": [1024, 1024], "dtype": "float16"},
              "w2": {"shape": [1024, 1024], "dtype": "float16"}, "z": {"shape": [1024, 1024], "dtype": "float16"}},
  "nodes": [{"name": "mm1", "type": "MatMul", "inputs": ["x", "w1"], "outputs": ["y"]},
            {"name": "mm2", "type": "MatMul", "inputs": ["y", "w2"], "outputs": ["z"]}]})";

}  // namespace

static_assert(aoe::measure_policy<aoe::SubgraphScorer>);

TEST_CASE("sgat space: the slice count divides the batch unless --Fnonhomo_split") {
  const auto g = parse(batch7);
  const auto homo = scorer(g, soc());
  CHECK(homo.subgraph_space().batch() == 7);
  const aoe::Space& sp = homo.space();
  REQUIRE(sp.index_of("cut") == std::size_t{0});
  CHECK(sp.cardinality(0) == 7);
  std::vector<std::int64_t> valid;
  for (std::uint32_t i = 0; i < sp.cardinality(0); ++i) {
    auto c = homo.default_configuration();
    c[0] = i;
    if (sp.is_valid(c)) valid.push_back(sp.value(c, 0).as_integer());
  }
  CHECK(valid == std::vector<std::int64_t>{1, 7});
  const auto uneven = with(homo, {{"cut", 2}});
  const auto m = homo.evaluate(uneven);
  CHECK(m.status == aoe::Status::constraints);
  CHECK(m.message.find("cut") != std::string::npos);

  const auto non = scorer(g, soc(), {.nonhomo_split = true});
  const auto two = with(non, {{"cut", 2}, {"l2_optimize", 1}});
  CHECK(non.space().is_valid(two));
  const auto t = non.timing(two).value();
  CHECK(t.strategy.slices == std::vector<std::int64_t>{4, 3});  // batch 7 -> 4 + 3
  CHECK(aoe::SubgraphSpace::slice_sizes(16, 3) == std::vector<std::int64_t>{6, 5, 5});
  CHECK(aoe::SubgraphSpace::slice_sizes(7, 7) == std::vector<std::int64_t>(7, 1));
  // Two slices launch every kernel twice: with nothing to gain in L2 it is slower.
  CHECK(t.seconds > seconds(non, non.default_configuration()));
}

TEST_CASE("sgat scorer: the untuned strategy is the untuned graph's time, to the last bit") {
  for (const char* name : {"resnet50", "bert_base"}) {
    const auto g =
        aoe::load_graph(std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/" + name + ".json")
            .value();
    for (const char* soc_name : {"Ascend910A", "Ascend910B1"}) {
      CAPTURE(name);
      CAPTURE(soc_name);
      const auto s = soc(soc_name);
      double opat = 0;  // OPAT's baseline: every fused operator at the heuristic's policy
      for (const auto& f : aoe::fuse(g)) {
        const auto r = aoe::Runner<aoe::device::Simulator>::create(s, f.op).value();
        opat += r.evaluate(r.default_configuration()).value;
      }
      double sgat = 0;
      for (const auto& sub : aoe::split_subgraphs(g)) {
        const aoe::SubgraphScorer sc(std::make_shared<const aoe::SubgraphSpace>(
                                         aoe::SubgraphSpace::create(g, sub, s).value()),
                                     s);
        sgat += seconds(sc, sc.default_configuration());
      }
      CHECK(std::abs(sgat - opat) <= 1e-12 * opat);
    }
  }
}

TEST_CASE("sgat scorer: slices whose intermediates stay in L2 beat one slice that spills") {
  const auto g = parse(big_chain);
  const auto sc = scorer(g, soc());
  CHECK(sc.subgraph_space().batch() == 8192);
  const auto spill = with(sc, {{"cut", 1}, {"l2_optimize", 1}});
  const auto sliced = with(sc, {{"cut", 8}, {"l2_optimize", 1}});
  const auto sliced_hbm = with(sc, {{"cut", 8}, {"l2_optimize", 0}});
  const auto t_spill = sc.timing(spill).value();
  const auto t_sliced = sc.timing(sliced).value();
  CHECK(t_spill.resident.empty());  // 2 x 64 MB live at the LayerNorm: more than L2
  CHECK(t_sliced.resident == std::vector<std::string>{"y", "z"});  // 2 x 8 MB per slice
  // 16 MB of weights and 16 MB of live slices do not fit 24 MB: each slice reads them from HBM.
  CHECK_FALSE(t_sliced.weights_resident);
  CHECK(sc.timing(with(sc, {{"cut", 32}, {"l2_optimize", 1}})).value().weights_resident);
  CHECK(t_sliced.seconds < t_spill.seconds);
  CHECK(t_sliced.seconds < seconds(sc, sliced_hbm));
  // Without L2 planning one slice is exactly the untuned graph.
  CHECK(seconds(sc, with(sc, {{"cut", 1}})) == seconds(sc, sc.default_configuration()));
}

TEST_CASE("sgat scorer: fusing the residual Add into the convolution saves its traffic") {
  const auto g = parse(residual);
  const auto sc = scorer(g, soc());
  const auto& merges = sc.subgraph_space().merges();
  REQUIRE(merges.size() == 1);
  CHECK(merges[0].parameter == "scope.1");  // the Conv2D+BatchNorm scope ending at node 1
  const auto fused = with(sc, {{"scope.1", 1}});
  const auto t = sc.timing(fused).value();
  REQUIRE(t.scopes.size() == 1);
  CHECK(t.scopes[0].type == "Conv2D+BatchNorm+Add+Relu");
  CHECK(t.seconds < seconds(sc, sc.default_configuration()));
  // Switching OPAT's Conv+BN+activation pass off costs a kernel and a round trip.
  const auto unfused = with(sc, {{"ub.conv_bn_act", 0}});
  CHECK(sc.timing(unfused).value().scopes.size() == 3);
  CHECK(seconds(sc, unfused) > seconds(sc, sc.default_configuration()));
  // The extra scope needs the pass that forms the Conv+BN scope.
  CHECK(sc.evaluate(with(sc, {{"ub.conv_bn_act", 0}, {"scope.1", 1}})).status ==
        aoe::Status::constraints);
}

TEST_CASE("sgat scorer: every change of format costs a TransData") {
  const auto g = parse(two_matmuls);
  const auto sc = scorer(g, soc("Ascend910A"));  // no ND->NZ in MTE2: MatMul reads FRACTAL_NZ
  REQUIRE(sc.subgraph_space().formats().size() == 1);
  CHECK(sc.subgraph_space().formats()[0].parameter == "fmt.0.0");
  const auto nd = sc.timing(sc.default_configuration()).value();
  CHECK(nd.transdata_ops == 6);  // x, w1, y out / y in, w2, z out
  const auto nz = sc.timing(with(sc, {{"fmt.0.0", "FRACTAL_NZ"}})).value();
  CHECK(nz.transdata_ops == 4);  // y stays FRACTAL_NZ between the two
  CHECK(nz.fractal.at("y"));
  CHECK(nz.seconds < nd.seconds);
  CHECK(nd.seconds - nz.seconds == doctest::Approx(nd.transdata_seconds - nz.transdata_seconds));

  // A2 converts in MTE2 and FixPipe: no TransData untuned, and FRACTAL_NZ is a choice.
  const auto a2 = scorer(g, soc("Ascend910B1"));
  CHECK(a2.timing(a2.default_configuration()).value().transdata_ops == 0);
}

TEST_CASE("sgat scorer: an operator the simulator cannot time is a failing strategy") {
  const auto g = parse(R"({"format_version": 1, "name": "odd",
    "tensors": {"x": {"shape": [4, 64], "dtype": "float16"}, "y": {"shape": [4, 64], "dtype": "float16"}, "z": {"shape": [4, 64], "dtype": "float16"}},
    "nodes": [{"name": "f", "type": "Frobnicate", "inputs": ["x"], "outputs": ["y"]},
              {"name": "e", "type": "Exp", "inputs": ["y"], "outputs": ["z"]}]})");
  const auto sc = scorer(g, soc());
  const auto m = sc.evaluate(sc.default_configuration());
  CHECK(m.status == aoe::Status::compile);
  CHECK(m.message.find("Frobnicate") != std::string::npos);
  aoe::Configuration out_of_bounds = sc.default_configuration();
  out_of_bounds[0] = 99;
  CHECK(sc.evaluate(out_of_bounds).status == aoe::Status::constraints);
}

}  // namespace jobs_sgat_scorer_test
