// Hostile input files (issue #12): the strict JSON parser every reader uses, the regular-file
// and size checks, and the model loader's DAG and size checks. Each input is small and
// written here.
#include "support/temp_dir.hpp"
#include <aoe/graph/loader.hpp>
#include <aoe/io/parse_json.hpp>
#include <aoe/io/read_input.hpp>

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <string>

namespace {

bool mentions(const aoe::ErrorInfo& e, const std::string& what) {
  return e.message.find(what) != std::string::npos;
}

/// A model with one Relu whose input/output tensors and attribute can be replaced.
std::string relu_model(const std::string& x_shape = "[1, 16]",
                       const std::string& inputs = R"(["x"])",
                       const std::string& attributes = "{}") {
  return R"({"format_version": 1, "name": "m", "tensors": {
    "x": {"shape": )" +
         x_shape + R"(, "dtype": "float16"},
    "y": {"shape": [1, 16], "dtype": "float16"}},
  "nodes": [{"name": "relu", "type": "Relu", "inputs": )" +
         inputs + R"(, "outputs": ["y"], "attributes": )" + attributes + "}]}";
}

std::string replaced_first(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

/// Restores the input size limit when a test ends.
struct LimitGuard {
  ~LimitGuard() { aoe::set_max_input_bytes(0); }
};

}  // namespace

TEST_CASE("parse_json: a key given twice in one object is an error naming the key and place") {
  const auto simple = aoe::detail::parse_json(R"({"a": 1, "a": 2})", "f.json");
  REQUIRE_FALSE(simple.has_value());
  CHECK(simple.error().code == aoe::make_error_code(aoe::Errc::parse_error));
  CHECK(simple.error().message ==
        R"(f.json:1:10: duplicate key "a" (each key may appear once in an object))");
  // Escapes are decoded before keys are compared: "\u0061" is "a".
  const auto escaped = aoe::detail::parse_json(R"({"\u0061": 1, "a": 2})", "f.json");
  REQUIRE_FALSE(escaped.has_value());
  CHECK(mentions(escaped.error(), R"(duplicate key "a")"));
  // Nested, and in an object of more than 16 keys (the sorted path).
  std::string wide = R"({"x": {"k": [1, {"q": 1, "q": 3}]}})";
  CHECK(mentions(aoe::detail::parse_json(wide, "w.json").error(), R"(duplicate key "q")"));
  std::string many = "{";
  for (int i = 0; i < 40; ++i) many += "\"k" + std::to_string(i) + "\": 1, ";
  many += R"("k7": 2})";
  CHECK(mentions(aoe::detail::parse_json(many, "m.json").error(), R"(duplicate key "k7")"));
  // The same key in different objects, and keys that only look alike, are fine.
  CHECK(aoe::detail::parse_json(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}], "A": 0})", "ok")
            .has_value());
  CHECK(aoe::detail::parse_json(R"({"a\"": 1, "a": 2, "a\\": 3})", "ok").has_value());
}

TEST_CASE("parse_json: a number that is not finite as a double is an input error") {
  const auto r = aoe::detail::parse_json(R"({"nodes": [{"attributes": {"alpha": 1e999}}]})", "m");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::parse_error));
  CHECK(mentions(r.error(), "m: /nodes/0/attributes/alpha: a number out of range"));
  CHECK_FALSE(aoe::detail::parse_json("[-1e400]", "m").has_value());
  CHECK(aoe::detail::parse_json("[1.7e308, -1e-400, 123456789012345678901234567890]", "m")
            .has_value());
}

TEST_CASE("parse_json: empty, truncated and trailing text") {
  CHECK(mentions(aoe::detail::parse_json("", "e.json").error(), "the file is empty"));
  CHECK(mentions(aoe::detail::parse_json(R"({"a": )", "t.json").error(), "looks truncated"));
  CHECK(mentions(aoe::detail::parse_json(R"({"a": 1} x)", "x.json").error(),
                 "x.json:1:10: unexpected data after the JSON document"));
}

TEST_CASE("read_input_file: only regular files, and at most the size limit") {
  const aoe::test::TempDir dir("input_files");
  SUBCASE("a directory says so") {
    const auto r = aoe::detail::read_input_file(dir.path(), "a JSON model");
    REQUIRE_FALSE(r.has_value());
    CHECK(mentions(r.error(), "is a directory, not a regular file (expected a JSON model)"));
    const auto g = aoe::load_graph(dir.path());
    REQUIRE_FALSE(g.has_value());
    CHECK(mentions(g.error(), "is a directory"));
  }
  SUBCASE("a FIFO is refused at once (it would block a reader forever)") {
    const std::string fifo = dir.file("pipe");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto r = aoe::detail::read_input_file(fifo, "a JSON model");
    REQUIRE_FALSE(r.has_value());
    CHECK(mentions(r.error(), "is a FIFO (named pipe), not a regular file"));
  }
  SUBCASE("a device never ends: refused") {
    const auto r = aoe::detail::read_input_file("/dev/zero", "a JSON model");
    REQUIRE_FALSE(r.has_value());
    CHECK(mentions(r.error(), "/dev/zero: is a character device"));
  }
  SUBCASE("over the limit: the size and the limit, and how to raise it") {
    const LimitGuard guard;
    const std::string file = dir.write("big.json", std::string(100, ' ') + "{}");
    aoe::set_max_input_bytes(64);
    const auto r = aoe::detail::read_input_file(file, "a JSON model");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::unsupported));
    CHECK(mentions(r.error(), "102 bytes is over the input size limit of 64 bytes"));
    CHECK(mentions(r.error(), "AOE_MAX_INPUT_BYTES"));
    aoe::set_max_input_bytes(0);
    CHECK(aoe::max_input_bytes() == aoe::default_max_input_bytes);
    CHECK(aoe::detail::read_input_file(file, "a JSON model").has_value());
  }
  SUBCASE("a missing file is not_found") {
    const auto r = aoe::detail::read_input_file(dir.file("none.json"), "a JSON model");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::not_found));
  }
}

TEST_CASE("loader: a node reading its own output is a cycle, not a crash") {
  const auto r = aoe::parse_graph(relu_model("[1, 16]", R"(["y"])"), "loop.json");
  REQUIRE_FALSE(r.has_value());
  CHECK(mentions(r.error(), "loop.json: /nodes/0/outputs/0: node 'relu' reads its own output 'y'"));
  // A cycle of two nodes: one of them reads a tensor before it is produced.
  const auto two = aoe::parse_graph(R"({"format_version": 1, "name": "c", "tensors": {
      "a": {"shape": [4], "dtype": "float16"}, "b": {"shape": [4], "dtype": "float16"}},
    "nodes": [{"name": "n1", "type": "Relu", "inputs": ["b"], "outputs": ["a"]},
              {"name": "n2", "type": "Relu", "inputs": ["a"], "outputs": ["b"]}]})",
                                    "cycle.json");
  REQUIRE_FALSE(two.has_value());
  CHECK(mentions(two.error(), "read by node 'n1' before it is produced"));
}

TEST_CASE("loader: element and byte counts are checked, not overflowed") {
  const auto overflow = aoe::parse_graph(relu_model("[4294967296, 4294967296]"), "big.json");
  REQUIRE_FALSE(overflow.has_value());
  CHECK(mentions(overflow.error(),
                 "big.json: /tensors/x/shape: the element count overflows a 64-bit integer"));
  const auto huge = aoe::parse_graph(relu_model("[9223372036854775807]"), "max.json");
  REQUIRE_FALSE(huge.has_value());
  CHECK(mentions(huge.error(), "over the size limit of 2^40 bytes"));
  // 2^39 float16 elements are exactly 2^40 bytes: the largest tensor accepted.
  CHECK(aoe::parse_graph(relu_model("[549755813888]"), "edge.json").has_value());
  CHECK_FALSE(aoe::parse_graph(relu_model("[549755813889]"), "edge.json").has_value());
}

TEST_CASE("loader: an attribute 1e999 and a duplicate key are input errors") {
  const auto inf =
      aoe::parse_graph(relu_model("[1, 16]", R"(["x"])", R"({"alpha": 1e999})"), "inf.json");
  REQUIRE_FALSE(inf.has_value());
  CHECK(mentions(inf.error(), "/nodes/0/attributes/alpha: a number out of range"));
  const auto dup = aoe::parse_graph(
      replaced_first(relu_model(), R"("name": "m")", R"("name": "m", "name": "n")"), "dup.json");
  REQUIRE_FALSE(dup.has_value());
  CHECK(mentions(dup.error(), R"(dup.json:1:36: duplicate key "name")"));
}
