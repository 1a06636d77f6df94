// GDAT's inputs: gradient profile and cluster files (every bad input names the file, the JSON
// pointer and what was expected) and the gradient profile derived from a bundled model graph.
#include "support/temp_dir.hpp"
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/gdat/backward_derivation.hpp>
#include <aoe/jobs/gdat/cluster_loader.hpp>
#include <aoe/jobs/gdat/profile_loader.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <set>
#include <string>

namespace jobs_gdat_inputs_test {  // apart from this area's other files in a unity build

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string profile_error(const std::string& text) {
  auto p = aoe::gdat::parse_gradient_profile(text, "p.json");
  REQUIRE_FALSE(p.has_value());
  return p.error().message;
}

std::string cluster_error(const std::string& text) {
  auto c = aoe::gdat::parse_cluster(text, "c.json");
  REQUIRE_FALSE(c.has_value());
  return c.error().message;
}

std::string models_dir() { return std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/"; }

}  // namespace

TEST_CASE("gdat gradient profile: a valid file") {
  const auto p = aoe::gdat::parse_gradient_profile(
      R"J({"format_version": 1, "name": "m", "forward_time_us": 3000, "backward_tail_us": 500,
          "gradients": [{"name": "fc/w", "backward_time_us": 1000, "bytes": 4000000},
                        {"backward_time_us": 0, "bytes": 2}]})J",
      "p.json");
  REQUIRE(p.has_value());
  CHECK(p->name == "m");
  CHECK(p->forward_seconds == doctest::Approx(3e-3));
  CHECK(p->backward_tail_seconds == doctest::Approx(0.5e-3));
  REQUIRE(p->gradients.size() == 2);
  CHECK(p->gradients[0].name == "fc/w");
  CHECK(p->gradients[1].name == "gradient_1");
  CHECK(p->gradients[0].backward_seconds == doctest::Approx(1e-3));
  CHECK(p->gradients[1].bytes == 2);
  CHECK(p->total_bytes() == 4000002);
  CHECK(p->backward_seconds() == doctest::Approx(1.5e-3));
  CHECK(p->hash() == aoe::gdat::parse_gradient_profile(
                         R"J({"name": "m", "forward_time_us": 3000, "backward_tail_us": 500,
          "gradients": [{"name": "fc/w", "backward_time_us": 1000, "bytes": 4000000},
                        {"backward_time_us": 0, "bytes": 2}]})J",
                         "q.json")
                         ->hash());
}

TEST_CASE("gdat gradient profile: bad inputs name the file, the field and what was expected") {
  const std::string negative = profile_error(
      R"J({"name": "m", "gradients": [{"backward_time_us": 1, "bytes": 8},
                                     {"backward_time_us": -2, "bytes": 8}]})J");
  CHECK(has(negative, "p.json: /gradients/1/backward_time_us"));
  CHECK(has(negative, "non-negative number of microseconds, found -2"));
  const std::string missing =
      profile_error(R"J({"name": "m", "gradients": [{"name": "w", "bytes": 8}]})J");
  CHECK(has(missing, "p.json: /gradients/0/backward_time_us: missing"));
  CHECK(has(profile_error(R"J({"name": "m", "gradients": [{"backward_time_us": 1}]})J"),
            "/gradients/0/bytes: missing"));
  CHECK(has(profile_error(R"J({"name": "m", "gradients": [{"backward_time_us": 1, "bytes": 0}]})J"),
            "/gradients/0/bytes: expected an integer >= 1"));
  CHECK(
      has(profile_error(R"J({"name": "m", "gradients": [{"backward_time_us": 1, "bytes": 1.5}]})J"),
          "/gradients/0/bytes"));
  CHECK(
      has(profile_error(R"J({"name": "m", "gradients": [{"backward_time_us": "1", "bytes": 1}]})J"),
          "/gradients/0/backward_time_us: expected a non-negative number"));
  CHECK(has(profile_error(R"J({"name": "m", "gradients": []})J"), "p.json: /gradients:"));
  CHECK(has(profile_error(R"J({"gradients": [{"backward_time_us": 1, "bytes": 1}]})J"),
            "p.json: /name"));
  CHECK(has(profile_error(R"J({"name": "m", "forward_time_us": -1,
                              "gradients": [{"backward_time_us": 1, "bytes": 1}]})J"),
            "/forward_time_us"));
  CHECK(has(profile_error(R"J({"format_version": 2, "name": "m",
                              "gradients": [{"backward_time_us": 1, "bytes": 1}]})J"),
            "/format_version: expected 1, found 2"));
  const std::string malformed = profile_error("{\"name\": \"m\",\n \"gradients\": [");
  CHECK(has(malformed, "p.json:2:"));
  CHECK(has(malformed, "expected well-formed JSON"));
  CHECK(has(profile_error("[1, 2]"), "p.json: /: expected a gradient profile object"));
  const auto none = aoe::gdat::load_gradient_profile("/nonexistent/profile.json");
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().code == aoe::make_error_code(aoe::Errc::not_found));
}

TEST_CASE("gdat gradient profile: told apart from a model graph") {
  CHECK(aoe::gdat::looks_like_gradient_profile(boost::json::parse(R"J({"gradients": []})J")));
  CHECK_FALSE(aoe::gdat::looks_like_gradient_profile(
      boost::json::parse(R"J({"nodes": [], "tensors": {}})J")));
  CHECK_FALSE(aoe::gdat::looks_like_gradient_profile(boost::json::parse("[]")));
}

TEST_CASE("gdat cluster file: values, defaults and bad inputs") {
  const auto c = aoe::gdat::parse_cluster(
      R"J({"devices": 64, "devices_per_server": 8, "topology": "ring",
          "inter_server": {"bandwidth(GB/s)": 25, "latency(us)": 5},
          "allreduce_overhead(us)": 0})J",
      "c.json");
  REQUIRE(c.has_value());
  CHECK(c->devices == 64);
  CHECK(c->servers() == 8);
  CHECK(c->topology == aoe::gdat::Topology::ring);
  CHECK(c->inter_server.bandwidth == doctest::Approx(25e9));
  CHECK(c->inter_server.latency == doctest::Approx(5e-6));
  CHECK(c->intra_server.bandwidth == doctest::Approx(aoe::gdat::Cluster{}.intra_server.bandwidth));
  CHECK(c->allreduce_overhead == 0.0);
  CHECK(c->validate().has_value());

  CHECK(has(cluster_error(R"J({"devices": 0})J"), "c.json: /devices: expected an integer >= 1"));
  CHECK(has(cluster_error(R"J({"devices_per_server": 8})J"), "c.json: /devices: missing"));
  CHECK(has(cluster_error(R"J({"devices": 12, "devices_per_server": 8})J"),
            "not a multiple of devices_per_server 8"));
  CHECK(has(cluster_error(R"J({"devices": 8, "topology": "mesh"})J"),
            "c.json: /topology: expected \"ring\" or \"two_level\""));
  CHECK(has(cluster_error(R"J({"devices": 8, "intra_server": {"bandwidth(GB/s)": 0}})J"),
            "c.json: /intra_server/bandwidth(GB/s): expected a positive number"));
  CHECK(has(cluster_error(R"J({"devices": 8, "inter_server": {"latency(us)": -1}})J"),
            "/inter_server/latency(us): expected a non-negative number"));
  CHECK(has(cluster_error(R"J({"devices": 8, "inter_server": 3})J"), "/inter_server: expected"));
  CHECK(has(cluster_error("{\"devices\": "), "c.json:1:"));
}

TEST_CASE("gdat backward derivation: ResNet-50's gradients in backward order") {
  const auto g = aoe::load_graph(models_dir() + "resnet50.json");
  REQUIRE(g.has_value());
  const auto soc = aoe::sim::Soc::builtin("Ascend910A");
  REQUIRE(soc.has_value());
  const auto p = aoe::gdat::derive_gradient_profile(*g, *soc);
  REQUIRE(p.has_value());
  // 53 convolutions, 53 batch norms (scale and offset), the classifier's weights and bias.
  CHECK(p->gradients.size() == 53 + 2 * 53 + 2);
  CHECK(p->gradients.front().name == "fc/bias");
  CHECK(p->gradients[1].name == "fc/weights");
  CHECK(p->gradients.back().name == "conv1/conv/weights");
  std::set<std::string> names;
  for (const auto& gr : p->gradients) {
    CHECK(gr.backward_seconds >= 0);
    CHECK(gr.bytes > 0);
    names.insert(gr.name);
  }
  CHECK(names.size() == p->gradients.size());
  // Every graph input but the 32x3x224x224 float16 image is a parameter (25.5 million, most of
  // them float16).
  std::int64_t inputs = 0;
  std::set<std::string> produced;
  for (const auto& n : g->nodes) {
    for (const auto& o : n.outputs) produced.insert(o.name);
  }
  std::set<std::string> counted;
  for (const auto& n : g->nodes) {
    for (const auto& in : n.inputs) {
      if (!produced.contains(in.name) && counted.insert(in.name).second) {
        inputs += in.desc.bytes();
      }
    }
  }
  CHECK(p->total_bytes() == inputs - 32 * 3 * 224 * 224 * 2);
  CHECK(p->total_bytes() == 51'220'304);
  CHECK(p->forward_seconds > 0);
  // Backward: about twice the forward (cube layers 2x, the first convolution 1x).
  CHECK(p->backward_seconds() > 1.5 * p->forward_seconds);
  CHECK(p->backward_seconds() < 6.0 * p->forward_seconds);
  CHECK(p->backward_tail_seconds == doctest::Approx(0.0));
}

TEST_CASE("gdat backward derivation: one pass over the graph's tensors whatever its size") {
  // Counted, not timed (docs/reliability.md#model-size): fusion's index is the only pass of
  // aoe::detail::graph_scans; a producer or consumer lookup per node would add one per node.
  const auto soc = aoe::sim::Soc::builtin("Ascend910A");
  REQUIRE(soc.has_value());
  for (const char* name : {"resnet50.json", "bert_base.json"}) {
    CAPTURE(name);
    const auto g = aoe::load_graph(models_dir() + name);
    REQUIRE(g.has_value());
    const auto before = aoe::detail::graph_scans.load();
    CHECK(aoe::gdat::derive_gradient_profile(*g, *soc).has_value());
    CHECK(aoe::detail::graph_scans.load() - before == 1);
  }
}

TEST_CASE("gdat backward derivation: BERT-base and bad graphs") {
  const auto soc = aoe::sim::Soc::builtin("Ascend910A");
  REQUIRE(soc.has_value());
  const auto g = aoe::load_graph(models_dir() + "bert_base.json");
  REQUIRE(g.has_value());
  const auto p = aoe::gdat::derive_gradient_profile(*g, *soc);
  REQUIRE(p.has_value());
  // 12 layers of 6 dense layers (kernel, bias) and 2 layer norms (gamma, beta).
  CHECK(p->gradients.size() == 12 * (6 * 2 + 2 * 2));
  CHECK(p->gradients.back().name.find("layer_0/") != std::string::npos);

  const auto unknown = aoe::parse_graph(
      R"J({"format_version": 1, "name": "odd",
          "tensors": {"x": {"shape": [64, 64], "dtype": "float16"},
                      "w": {"shape": [64, 64], "dtype": "float16"},
                      "y": {"shape": [64, 64], "dtype": "float16"},
                      "z": {"shape": [64, 64], "dtype": "float16"}},
          "nodes": [{"name": "mm", "type": "MatMul", "inputs": ["x", "w"], "outputs": ["y"]},
                    {"name": "f", "type": "FooOp", "inputs": ["y"], "outputs": ["z"]}]})J",
      "odd.json");
  REQUIRE(unknown.has_value());
  const auto e = aoe::gdat::derive_gradient_profile(*unknown, *soc);
  REQUIRE_FALSE(e.has_value());
  CHECK(has(e.error().message, "FooOp"));
  CHECK(has(e.error().message, "gradient profile"));

  const auto plain = aoe::parse_graph(
      R"J({"format_version": 1, "name": "plain",
          "tensors": {"x": {"shape": [64, 64], "dtype": "float16"},
                      "y": {"shape": [64, 64], "dtype": "float16"}},
          "nodes": [{"name": "r", "type": "Relu", "inputs": ["x"], "outputs": ["y"]}]})J",
      "plain.json");
  REQUIRE(plain.has_value());
  const auto none = aoe::gdat::derive_gradient_profile(*plain, *soc);
  REQUIRE_FALSE(none.has_value());
  CHECK(has(none.error().message, "no trainable parameters"));
}

TEST_CASE("gdat inputs: numbers are bounded so that no time or size overflows") {
  CHECK(has(
      profile_error(R"J({"name": "m", "gradients": [{"backward_time_us": 1e300, "bytes": 8}]})J"),
      "p.json: /gradients/0/backward_time_us: expected a non-negative number of "
      "microseconds up to 1e15"));
  CHECK(has(
      profile_error(R"J({"name": "m", "gradients": [{"backward_time_us": 1e999, "bytes": 8}]})J"),
      "p.json: /gradients/0/backward_time_us: a number out of range"));
  CHECK(has(profile_error(R"J({"name": "m", "gradients": [{"backward_time_us": 1,
                                "bytes": 4611686018427387904}]})J"),
            "expected at most 2^40 bytes (1 TiB) per gradient"));
  CHECK(has(profile_error(R"J({"name": "m", "name": "n", "gradients": []})J"),
            R"(duplicate key "name")"));
  CHECK(has(cluster_error(R"J({"devices": 8, "intra_server": {"latency(us)": 1e300}})J"),
            "up to 1e15"));
  CHECK(has(cluster_error(R"J({"devices": 8, "intra_server": {"bandwidth(GB/s)": 1e-300}})J"),
            "expected a positive bandwidth from 1e-9 to 1e9 GB/s"));
}

}  // namespace jobs_gdat_inputs_test
