#include <aoe/graph/loader.hpp>

#include <doctest/doctest.h>

#include <string>

namespace {

const char* const small_model = R"({
  "format_version": 1,
  "name": "tiny",
  "tensors": {
    "x": {"shape": [1, 16, 8, 8], "dtype": "float16", "format": "NCHW"},
    "w": {"shape": [16, 16, 3, 3], "dtype": "float16", "format": "NCHW"},
    "y": {"shape": [1, 16, 8, 8], "dtype": "float16", "format": "NCHW"},
    "z": {"shape": [1, 16, 8, 8], "dtype": "float16", "format": "NCHW"}
  },
  "nodes": [
    {"name": "conv", "type": "Conv2D", "inputs": ["x", "w"], "outputs": ["y"],
     "attributes": {"strides": [1, 1, 1, 1], "pads": [1, 1, 1, 1], "groups": 1}},
    {"name": "relu", "type": "Relu", "inputs": ["y"], "outputs": ["z"]}
  ]
})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("loader: reads a well-formed model") {
  const auto g = aoe::parse_graph(small_model, "tiny.json");
  REQUIRE(g.has_value());
  CHECK(g->name == "tiny");
  REQUIRE(g->nodes.size() == 2);
  CHECK(g->nodes[0].type == "Conv2D");
  CHECK(g->nodes[0].inputs[1].desc.shape == std::vector<std::int64_t>{16, 16, 3, 3});
  CHECK(g->nodes[0].inputs[0].desc.format == aoe::Format::NCHW);
  CHECK(std::get<std::vector<std::int64_t>>(g->nodes[0].attributes.at("strides")).size() == 4);
  CHECK(std::get<std::int64_t>(g->nodes[0].attributes.at("groups")) == 1);
  CHECK(g->producer("y") == 0);
  CHECK(g->consumers("y") == std::vector<std::size_t>{1});
}

TEST_CASE("loader: malformed and truncated JSON name the file and position") {
  const std::string text = small_model;
  const auto truncated = aoe::parse_graph(text.substr(0, text.size() / 2), "cut.json");
  REQUIRE_FALSE(truncated.has_value());
  CHECK(truncated.error().code == aoe::make_error_code(aoe::Errc::parse_error));
  CHECK(truncated.error().message.find("cut.json:") == 0);
  CHECK(truncated.error().message.find("truncated") != std::string::npos);

  const auto malformed = aoe::parse_graph(replaced(text, "\"tiny\",", "\"tiny\" ,,"), "bad.json");
  REQUIRE_FALSE(malformed.has_value());
  CHECK(malformed.error().code == aoe::make_error_code(aoe::Errc::parse_error));
  CHECK(malformed.error().message.find("bad.json:3:") == 0);
}

TEST_CASE("loader: schema errors carry the JSON pointer and what was expected") {
  struct Case {
    std::string from, to, pointer, expected;
  };
  const Case cases[] = {
      {"\"format_version\": 1", "\"format_version\": \"1\"", "/format_version", "expected"},
      {"\"dtype\": \"float16\", \"format\": \"NCHW\"},\n    \"w\"",
       "\"dtype\": \"float99\", \"format\": \"NCHW\"},\n    \"w\"", "/tensors/x/dtype", "float16"},
      {"\"inputs\": [\"y\"]", "\"inputs\": [\"q\"]", "/nodes/1/inputs/0", "'q'"},
      {"\"name\": \"relu\"", "\"name\": \"conv\"", "/nodes/1/name", "unique"},
      {"\"groups\": 1", "\"groups\": {}", "/nodes/0/attributes/groups", "expected"},
      {"\"type\": \"Relu\",", "", "/nodes/1/type", "non-empty string"},
  };
  for (const auto& c : cases) {
    const auto g = aoe::parse_graph(replaced(small_model, c.from, c.to), "m.json");
    REQUIRE_FALSE(g.has_value());
    INFO(g.error().message);
    CHECK(g.error().message.find("m.json: " + c.pointer + ":") == 0);
    CHECK(g.error().message.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("loader: an unknown format version is unsupported_version") {
  const auto g = aoe::parse_graph(
      replaced(small_model, "\"format_version\": 1", "\"format_version\": 7"), "m.json");
  REQUIRE_FALSE(g.has_value());
  CHECK(g.error().code == aoe::make_error_code(aoe::Errc::unsupported_version));
}

TEST_CASE("loader: dynamic shapes are rejected as AOE rejects them") {
  const auto g = aoe::parse_graph(
      replaced(small_model, "\"shape\": [1, 16, 8, 8]", "\"shape\": [-1, 16, 8, 8]"), "d.json");
  REQUIRE_FALSE(g.has_value());
  CHECK(g.error().code == aoe::make_error_code(aoe::Errc::unsupported));
  CHECK(g.error().message.find("d.json: /tensors/x/shape/0:") == 0);
  CHECK(g.error().message.find("dynamic shape") != std::string::npos);
}

TEST_CASE("loader: nodes out of topological order are rejected") {
  const std::string swapped = R"({"format_version": 1, "name": "t",
    "tensors": {"a": {"shape": [4], "dtype": "float16"}, "b": {"shape": [4], "dtype": "float16"},
                "c": {"shape": [4], "dtype": "float16"}},
    "nodes": [{"name": "n2", "type": "Relu", "inputs": ["b"], "outputs": ["c"]},
              {"name": "n1", "type": "Relu", "inputs": ["a"], "outputs": ["b"]}]})";
  const auto g = aoe::parse_graph(swapped, "s.json");
  REQUIRE_FALSE(g.has_value());
  CHECK(g.error().message.find("topological") != std::string::npos);
}

TEST_CASE("loader: a missing file is not_found naming it") {
  const auto g = aoe::load_graph("/nonexistent/model.json");
  REQUIRE_FALSE(g.has_value());
  CHECK(g.error().code == aoe::make_error_code(aoe::Errc::not_found));
  CHECK(g.error().message.find("/nonexistent/model.json") != std::string::npos);
}
