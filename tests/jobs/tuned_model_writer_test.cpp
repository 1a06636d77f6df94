// The tuned model is written directly as text (detail::tuned_model_text) rather than through a
// JSON tree of the whole graph; its bytes must be exactly those of
// boost::json::serialize(tuned_model_json(...)), the reference kept beside it: every odd name,
// attribute, number and overlap below is compared byte for byte, and so is the file
// write_tuned_model makes node by node. A non-finite number or a repeated knowledge name takes
// the tree's way, with its error, and the file begun is removed (docs/reliability.md#model-size).
#include "support/temp_dir.hpp"
#include <aoe/jobs/tuned_model_writer.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace jobs_tuned_model_writer_test {  // apart from this area's other files in a unity build

namespace {

aoe::TensorRef tensor(const std::string& name, std::vector<std::int64_t> shape = {8, 64},
                      aoe::DataType dt = aoe::DataType::float16, aoe::Format f = aoe::Format::ND) {
  return {name, aoe::TensorDesc{std::move(shape), dt, f}};
}

std::string reference(const aoe::Graph& g, const std::vector<aoe::TunedOperator>& ops) {
  return boost::json::serialize(aoe::tuned_model_json(g, ops));
}

void check_same(const aoe::Graph& g, const std::vector<aoe::TunedOperator>& ops) {
  const auto text = aoe::detail::tuned_model_text(g, ops);
  REQUIRE(text.has_value());
  CHECK(*text == reference(g, ops));
}

}  // namespace

TEST_CASE("tuned model text: every byte of names and strings as Boost writes it") {
  aoe::Graph g;
  std::string all;
  for (int c = 1; c < 256; ++c) all.push_back(static_cast<char>(c));
  g.name = all;
  g.nodes.push_back({all, "Relu\"\\/\n\t", {tensor("x\x01\x7f")}, {tensor("y\xc3\xa9")}, {}});
  g.nodes.push_back({"", "", {}, {}, {}});
  for (int c = 0; c < 256; ++c) {
    const std::string s = "n" + std::string(1, static_cast<char>(c));
    g.nodes.push_back({s, s, {tensor(s)}, {tensor(s + "o")}, {}});
  }
  check_same(g, {});
}

TEST_CASE("tuned model text: attributes of every type, doubles, tensors once") {
  aoe::Graph g;
  g.name = "attrs";
  const std::vector<double> doubles{
      0.0,           -0.0, 0.1, 1.5, -2.25e-7, 1e300, 5e-324, std::numeric_limits<double>::max(),
      123456789.125, 3.0};
  for (std::size_t i = 0; i < doubles.size(); ++i) {
    std::map<std::string, aoe::Attribute> a{
        {"alpha", doubles[i]},
        {"axes", std::vector<std::int64_t>{-1, 0, std::numeric_limits<std::int64_t>::max()}},
        {"empty", std::vector<std::int64_t>{}},
        {"flag", i % 2 == 0},
        {"min", std::numeric_limits<std::int64_t>::min()},
        {"mode", std::string("tanh\"approx\"")},
        {"k\xe4y/~", std::int64_t{7}}};
    // x read by every node, w_i once, the outputs described where first referenced
    g.nodes.push_back({"n" + std::to_string(i),
                       "LeakyRelu",
                       {tensor("x", {1}, aoe::DataType::float32, aoe::Format::NCHW),
                        tensor("w" + std::to_string(i % 3), {64, 64})},
                       {tensor("o" + std::to_string(i), {8, static_cast<std::int64_t>(i) + 1})},
                       a});
  }
  g.nodes.push_back({"last", "Add", {tensor("o1", {2}), tensor("o1")}, {tensor("x")}, {}});
  check_same(g, {});
}

TEST_CASE("tuned model text: tuned operators, overlapping and out of range nodes") {
  aoe::Graph g;
  g.name = "tuned";
  for (int i = 0; i < 12; ++i) {
    g.nodes.push_back({"r" + std::to_string(i),
                       "Relu",
                       {tensor(i == 0 ? "x" : "t" + std::to_string(i - 1))},
                       {tensor("t" + std::to_string(i))},
                       {}});
  }
  using aoe::NamedValue;
  using aoe::Value;
  std::vector<aoe::TunedOperator> ops;
  ops.push_back({{0, 1, 2},
                 "r0r1r2",
                 "Relu+Relu+Relu",
                 {{"Schedule",
                   {NamedValue{"tile_m", Value(std::int64_t{16})}, NamedValue{"ratio", Value(0.75)},
                    NamedValue{"order", Value(std::string("mn\"k"))}}},
                  {"Format", {NamedValue{"format", Value(std::string("NZ"))}}}},
                 12.5,
                 9.125});
  ops.push_back({{2, 3}, "r2r3", "Relu+Relu", {{"Schedule", {}}}, 0.1, 1e-3});  // 2 overwritten
  ops.push_back({{99, 5}, "far", "Relu", {}, 1, 2});  // 99 is outside the graph
  ops.push_back({{7}, "unused", "Relu", {{"Schedule", {}}}, 1, 1});
  ops.push_back({{7}, "second", "Relu", {}, 3, 4});  // the later operator wins node 7
  check_same(g, ops);
  check_same(g, {});
  check_same(aoe::Graph{}, {});
}

TEST_CASE("tuned model text: random graphs equal the tree's text") {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 40; ++round) {
    aoe::Graph g;
    g.name = "random" + std::to_string(round);
    const int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      std::vector<aoe::TensorRef> in;
      for (std::uint64_t k = rng() % 3; k > 0; --k) {
        in.push_back(tensor("t" + std::to_string(rng() % (i + 2)), {static_cast<int>(rng() % 9)}));
      }
      std::map<std::string, aoe::Attribute> a;
      if (rng() % 2 == 0) a["s"] = std::ldexp(static_cast<double>(rng() % 100000), -12);
      g.nodes.push_back({"n" + std::to_string(i),
                         "T" + std::to_string(rng() % 4),
                         in,
                         {tensor("t" + std::to_string(i + 1))},
                         a});
    }
    std::vector<aoe::TunedOperator> ops;
    for (int k = 0; k < n / 3; ++k) {
      ops.push_back({{rng() % (n + 1), rng() % (n + 1)},
                     "op" + std::to_string(k),
                     "T",
                     {{"Schedule", {aoe::NamedValue{"b", aoe::Value(std::int64_t(rng() % 64))}}}},
                     static_cast<double>(rng() % 1000) / 7,
                     static_cast<double>(rng() % 1000) / 9});
    }
    check_same(g, ops);
  }
}

TEST_CASE("tuned model text: non-finite numbers and repeated names take the tree's way") {
  aoe::Graph g;
  g.name = "odd";
  g.nodes.push_back({"a", "Relu", {tensor("x")}, {tensor("y")}, {}});
  g.nodes.push_back({"b",
                     "Muls",
                     {tensor("y")},
                     {tensor("z")},
                     {{"value", std::numeric_limits<double>::infinity()}}});
  CHECK_FALSE(aoe::detail::tuned_model_text(g, {}).has_value());
  const aoe::test::TempDir dir("tuned_model_text");
  const auto file = dir.path() / "m.json";
  const auto written = aoe::write_tuned_model(g, {}, file);
  REQUIRE_FALSE(written.has_value());
  CHECK(written.error().message == file.string() +
                                       ": /nodes/1/attributes/value: not written: the number "
                                       "is not finite (JSON has no infinity or NaN)");

  g.nodes.pop_back();
  std::vector<aoe::TunedOperator> ops{{{0}, "a", "Relu", {}, 1, std::nan("")}};
  CHECK_FALSE(aoe::detail::tuned_model_text(g, ops).has_value());
  CHECK_FALSE(aoe::write_tuned_model(g, ops, file).has_value());

  // A kind or a parameter named twice: the tree keeps the first position and the last value.
  using aoe::NamedValue;
  using aoe::Value;
  ops = {{{0},
          "a",
          "Relu",
          {{"Schedule", {NamedValue{"t", Value(std::int64_t{1})}, NamedValue{"t", Value(2.5)}}},
           {"Format", {}},
           {"Schedule", {NamedValue{"u", Value(std::int64_t{3})}}}},
          1,
          2}};
  CHECK_FALSE(aoe::detail::tuned_model_text(g, ops).has_value());
  REQUIRE(aoe::write_tuned_model(g, ops, file).has_value());
  std::ifstream in(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == reference(g, ops));
}

namespace {

// A chain of `n` Relus (attributes on every fifth), tuned in operators of three nodes, one
// operator also covering the last node, far from its others (its text made again there), three
// nodes with no operator.
std::pair<aoe::Graph, std::vector<aoe::TunedOperator>> large_tuned_model(int n) {
  aoe::Graph g;
  g.name = "large";
  for (int i = 0; i < n; ++i) {
    std::map<std::string, aoe::Attribute> a;
    if (i % 5 == 0) a["alpha"] = 0.25 * i;
    g.nodes.push_back({"relu_" + std::to_string(i),
                       "Relu",
                       {tensor(i == 0 ? "x" : "t" + std::to_string(i - 1))},
                       {tensor("t" + std::to_string(i))},
                       a});
  }
  std::vector<aoe::TunedOperator> ops;
  for (int i = 0; i + 3 <= n; i += 3) {
    std::vector<std::size_t> nodes{static_cast<std::size_t>(i), static_cast<std::size_t>(i) + 1,
                                   static_cast<std::size_t>(i) + 2};
    if (i == 300) nodes.push_back(static_cast<std::size_t>(n) - 1);
    ops.push_back({nodes,
                   "fused_" + std::to_string(i),
                   "Relu+Relu+Relu",
                   {{"Schedule",
                     {aoe::NamedValue{"block_dim", aoe::Value(std::int64_t{32})},
                      aoe::NamedValue{"ratio", aoe::Value(0.5 + i)}}}},
                   1.5 * i,
                   1.25 * i});
  }
  ops.erase(ops.begin() + 10);  // nodes 30, 31 and 32 untuned
  return {std::move(g), std::move(ops)};
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {(std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()};
}

std::size_t temporaries(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().find(".aoe-tmp.") != std::string::npos) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("tuned model: written node by node, the bytes of the text and of the tree") {
  const auto [g, ops] = large_tuned_model(12001);  // several megabytes: several writes
  const auto text = aoe::detail::tuned_model_text(g, ops);
  REQUIRE(text.has_value());
  REQUIRE(text->size() > 3 * aoe::AtomicFileSink::chunk_bytes);
  CHECK(*text == reference(g, ops));
  const aoe::test::TempDir dir("tuned_model_stream");
  const auto file = dir.path() / "result" / "m_tune.json";
  REQUIRE(aoe::write_tuned_model(g, ops, file).has_value());
  CHECK(read_file(file) == *text);
  CHECK(temporaries(file.parent_path()) == 0);
}

TEST_CASE("tuned model: the tree's way after megabytes written, no temporary file left") {
  auto [g, ops] = large_tuned_model(12001);
  const aoe::test::TempDir dir("tuned_model_abort");
  const auto file = aoe::test::write_text(dir.path() / "m_tune.json", "old");

  // A number that is not finite on the last node: the stream gives up after megabytes, the
  // tree's error names it, the old file stays.
  g.nodes.back().attributes["alpha"] = std::numeric_limits<double>::quiet_NaN();
  const auto written = aoe::write_tuned_model(g, ops, file);
  REQUIRE_FALSE(written.has_value());
  CHECK(written.error().message == file.string() +
                                       ": /nodes/12000/attributes/alpha: not written: the number "
                                       "is not finite (JSON has no infinity or NaN)");
  CHECK(read_file(file) == "old");
  CHECK(temporaries(dir.path()) == 0);

  // A parameter named twice in the last operator: the stream gives up, the tree's text is
  // written.
  g.nodes.back().attributes.clear();
  auto kinds = ops.back().knowledge.kinds();
  kinds.front().second.push_back(aoe::NamedValue{"block_dim", aoe::Value(std::int64_t{8})});
  ops.back().knowledge = std::move(kinds);
  REQUIRE(aoe::write_tuned_model(g, ops, file).has_value());
  CHECK_FALSE(aoe::detail::tuned_model_text(g, ops).has_value());
  CHECK(read_file(file) == reference(g, ops));
  CHECK(temporaries(dir.path()) == 0);
}

TEST_CASE("tuned model text: a loaded graph's tensor numbers tell its tensors apart, or names do") {
  const auto [built, ops] = large_tuned_model(3001);
  const auto text = aoe::detail::tuned_model_text(built, {});
  REQUIRE(text.has_value());
  auto loaded = aoe::parse_graph(*text, "large.json");
  REQUIRE(loaded.has_value());
  REQUIRE(loaded->tensor_ids.size() == aoe::detail::tensor_references(*loaded));
  CHECK_FALSE(aoe::detail::names_by_loader_number(*loaded, loaded->tensor_ids.size()).empty());
  CHECK(aoe::detail::tuned_model_text(*loaded, {}) == text);
  check_same(*loaded, ops);

  // A tensor renamed everywhere: the numbers still hold. One reference renamed: they do not,
  // and the names are hashed. Numbers of another graph: not used.
  auto renamed = *loaded;
  renamed.nodes[7].outputs[0].name = "renamed";
  renamed.nodes[8].inputs[0].name = "renamed";
  CHECK_FALSE(aoe::detail::names_by_loader_number(renamed, renamed.tensor_ids.size()).empty());
  check_same(renamed, ops);
  renamed.nodes[9].inputs[0].name = "t7";  // reads t7, not t8, under t8's number
  CHECK(aoe::detail::names_by_loader_number(renamed, renamed.tensor_ids.size()).empty());
  check_same(renamed, ops);
  auto other = *loaded;
  other.tensor_ids.pop_back();
  CHECK(aoe::detail::names_by_loader_number(other, aoe::detail::tensor_references(other)).empty());
  check_same(other, ops);
  other.tensor_ids = loaded->tensor_ids;
  other.tensor_ids.back() = static_cast<std::uint32_t>(other.tensor_count);  // out of range
  check_same(other, ops);
}

}  // namespace jobs_tuned_model_writer_test
