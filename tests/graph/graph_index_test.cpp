// GraphIndex answers as Graph::producer/consumers do, and fusion stays linear in the graph's
// size: it makes one pass over the graph (the index) whatever the size, where looking tensors up
// with Graph::consumers made one pass per node (docs/reliability.md#model-size). Counted, not
// timed: aoe::detail::graph_scans counts the passes.
#include <aoe/graph/fusion.hpp>
#include <aoe/graph/graph_index.hpp>
#include <aoe/graph/loader.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace {

aoe::TensorRef tensor(const std::string& name) {
  return {name, aoe::TensorDesc{{8, 64}, aoe::DataType::float16, aoe::Format::ND}};
}

/// `n` nodes: a chain of Relus, one input read by n Relus, or residual Relu+Add blocks.
aoe::Graph make(const std::string& shape, std::size_t n) {
  aoe::Graph g;
  g.name = shape;
  std::string prev = "x";
  for (std::size_t i = 0; i < n; ++i) {
    const std::string out = "t" + std::to_string(i);
    if (shape == "chain") {
      g.nodes.push_back({"r" + std::to_string(i), "Relu", {tensor(prev)}, {tensor(out)}, {}});
      prev = out;
    } else if (shape == "wide") {
      g.nodes.push_back({"r" + std::to_string(i), "Relu", {tensor("x")}, {tensor(out)}, {}});
    } else if (i % 2 == 0) {
      g.nodes.push_back({"r" + std::to_string(i), "Relu", {tensor(prev)}, {tensor(out)}, {}});
    } else {
      g.nodes.push_back({"a" + std::to_string(i),
                         "Add",
                         {tensor("t" + std::to_string(i - 1)), tensor(prev)},
                         {tensor(out)},
                         {}});
      prev = out;
    }
  }
  return g;
}

std::uint64_t scans() { return aoe::detail::graph_scans.load(); }

}  // namespace

TEST_CASE("graph index: the same producers and consumers as the graph's scans") {
  const char* const text = R"({"format_version": 1, "name": "i",
    "tensors": {"x": {"shape": [4], "dtype": "float16"}, "w": {"shape": [4], "dtype": "float16"},
                "y": {"shape": [4], "dtype": "float16"}, "z": {"shape": [4], "dtype": "float16"},
                "u": {"shape": [4], "dtype": "float16"}},
    "nodes": [{"name": "a", "type": "Add", "inputs": ["x", "x"], "outputs": ["y"]},
              {"name": "m", "type": "Mul", "inputs": ["y", "w"], "outputs": ["z"]},
              {"name": "s", "type": "Sub", "inputs": ["z", "y"], "outputs": ["u"]}]})";
  const auto g = aoe::parse_graph(text, "i.json");
  REQUIRE(g.has_value());
  const aoe::GraphIndex index(*g);
  for (const std::string t : {"x", "w", "y", "z", "u", "nowhere"}) {
    CAPTURE(t);
    CHECK(index.producer(t) == g->producer(t));
    const auto c = index.consumers(t);
    CHECK(std::vector<std::size_t>(c.begin(), c.end()) == g->consumers(t));
  }
  CHECK(index.consumers("x").size() == 1);  // read twice by one node: one consumer
  CHECK(index.sole_consumer(1) == std::optional<std::size_t>(2));
  CHECK_FALSE(index.sole_consumer(0).has_value());  // y: read by m and s
}

namespace {

/// Every answer of `a` equals `b`'s, for every tensor name of `g` and a name it does not use.
void check_same_index(const aoe::Graph& g, const aoe::GraphIndex& a, const aoe::GraphIndex& b) {
  std::vector<std::string> names{"nowhere"};
  for (const auto& n : g.nodes) {
    for (const auto& t : n.inputs) names.push_back(t.name);
    for (const auto& t : n.outputs) names.push_back(t.name);
  }
  for (const auto& t : names) {
    CAPTURE(t);
    CHECK(a.producer(t) == g.producer(t));
    CHECK(b.producer(t) == g.producer(t));
    const auto ca = a.consumers(t);
    const auto cb = b.consumers(t);
    CHECK(std::vector<std::size_t>(ca.begin(), ca.end()) == g.consumers(t));
    CHECK(std::vector<std::size_t>(cb.begin(), cb.end()) == g.consumers(t));
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    CAPTURE(i);
    CHECK(a.sole_consumer(i) == b.sole_consumer(i));
    for (std::size_t k = 0; k < g.nodes[i].inputs.size(); ++k) {
      CHECK(a.input_producer(i, k) == g.producer(g.nodes[i].inputs[k].name));
      CHECK(b.input_producer(i, k) == g.producer(g.nodes[i].inputs[k].name));
    }
  }
}

}  // namespace

TEST_CASE("graph index: the loader's tensor numbers give the same index as the names") {
  // "v" is described and never used; "y" is read twice by one node and by two nodes.
  const char* const text = R"({"format_version": 1, "name": "i",
    "tensors": {"v": {"shape": [4], "dtype": "float16"}, "u": {"shape": [4], "dtype": "float16"},
                "x": {"shape": [4], "dtype": "float16"}, "w": {"shape": [4], "dtype": "float16"},
                "y": {"shape": [4], "dtype": "float16"}, "z": {"shape": [4], "dtype": "float16"}, "o": {"shape": [4], "dtype": "float16"}},
    "nodes": [{"name": "a", "type": "Add", "inputs": ["x", "x"], "outputs": ["y"]},
              {"name": "m", "type": "Mul", "inputs": ["y", "w"], "outputs": ["z"]},
              {"name": "s", "type": "Sub", "inputs": ["z", "y"], "outputs": ["u"]},
              {"name": "r", "type": "Relu", "inputs": ["u"], "outputs": ["o"]}]})";
  auto g = aoe::parse_graph(text, "i.json");
  REQUIRE(g.has_value());
  CHECK(g->tensor_ids.size() == 11);  // one number per reference
  CHECK(g->tensor_count == 7);
  aoe::Graph by_name = *g;
  by_name.tensor_ids.clear();
  {
    const aoe::GraphIndex numbered(*g);
    const aoe::GraphIndex hashed(by_name);
    check_same_index(*g, numbered, hashed);
  }
  // Edited after loading: a reference renamed (its number no longer fits), a number out of
  // range: the index falls back to the names and answers for the edited graph.
  g->nodes[2].inputs[1].name = "x";
  by_name.nodes[2].inputs[1].name = "x";
  {
    const aoe::GraphIndex numbered(*g);
    const aoe::GraphIndex hashed(by_name);
    check_same_index(*g, numbered, hashed);
    CHECK(numbered.consumers("x").size() == 2);
  }
  g->tensor_ids[0] = 99;
  const aoe::GraphIndex out_of_range(*g);
  check_same_index(*g, out_of_range, aoe::GraphIndex(by_name));
  // Fusion answers the same either way.
  const auto f1 = aoe::fuse(*g);
  const auto f2 = aoe::fuse(by_name);
  REQUIRE(f1.size() == f2.size());
  for (std::size_t i = 0; i < f1.size(); ++i) CHECK(f1[i].nodes == f2[i].nodes);
}

TEST_CASE("fusion: one pass over the graph whatever its size (no lookup per node)") {
  for (const std::string shape : {"chain", "wide", "ladder"}) {
    for (const std::size_t n : {1000U, 8000U}) {
      CAPTURE(shape);
      CAPTURE(n);
      const auto g = make(shape, n);
      const auto before = scans();
      const auto ops = aoe::fuse(g);
      CHECK(scans() - before == 1);  // the index; a scan per node would be n more
      std::size_t covered = 0;
      for (const auto& f : ops) covered += f.nodes.size();
      CHECK(covered == n);
    }
  }
}

TEST_CASE("fusion: elementwise chains are cut at max_elementwise_chain operators") {
  const auto g = make("chain", 40);
  const auto ops = aoe::fuse(g);
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].nodes.size() == 16);
  CHECK(ops[1].nodes.size() == 16);
  CHECK(ops[2].nodes.size() == 8);
  CHECK(ops[1].nodes.front() == 16);
  CHECK(ops[1].op.inputs.size() == 1);  // t15, produced by the first group
  const auto fours = aoe::fuse(g, {.max_elementwise_chain = 4});
  CHECK(fours.size() == 10);
  // A tensor read twice ends a chain before the bound.
  const auto ladder = aoe::fuse(make("ladder", 10));
  CHECK(ladder.size() == 5);
  CHECK(ladder[0].op.type == "Relu+Add");
}
