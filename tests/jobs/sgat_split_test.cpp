// SGAT's split rule (residual-block / transformer-sub-layer boundaries, bounded size) and the
// subgraph bank key (structure text, stable 64-bit hash written in decimal).
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/sgat/subgraph_key.hpp>
#include <aoe/jobs/sgat/subgraph_split.hpp>

#include <doctest/doctest.h>

#include <set>
#include <string>

namespace jobs_sgat_split_test {  // apart from this area's other files in a unity build

namespace {

aoe::Graph model(const std::string& name) {
  return aoe::load_graph(std::string(AOE_TESTS_SOURCE_DIR) + "/../examples/models/" + name +
                         ".json")
      .value();
}

aoe::Graph parse(const std::string& text) { return aoe::parse_graph(text, "test.json").value(); }

// x -> a(Relu) -> b(Relu) forks into c(Relu) and the residual d = Add(c, b) -> e(Relu) -> f(Relu)
// and then g = Add(f, e): two forks, at b and at e.
const char* const forked = R"({"format_version": 1, "name": "forked",
  "tensors": {"x": {"shape": [4, 64], "dtype": "float16"}, "a": {"shape": [4, 64], "dtype": "float16"}, "b": {"shape": [4, 64], "dtype": "float16"},
              "c": {"shape": [4, 64], "dtype": "float16"}, "d": {"shape": [4, 64], "dtype": "float16"}, "e": {"shape": [4, 64], "dtype": "float16"},
              "f": {"shape": [4, 64], "dtype": "float16"}, "g": {"shape": [4, 64], "dtype": "float16"}},
  "nodes": [{"name": "n_a", "type": "Exp", "inputs": ["x"], "outputs": ["a"]},
            {"name": "n_b", "type": "Exp", "inputs": ["a"], "outputs": ["b"]},
            {"name": "n_c", "type": "Exp", "inputs": ["b"], "outputs": ["c"]},
            {"name": "n_d", "type": "Add", "inputs": ["c", "b"], "outputs": ["d"]},
            {"name": "n_e", "type": "Exp", "inputs": ["d"], "outputs": ["e"]},
            {"name": "n_f", "type": "Exp", "inputs": ["e"], "outputs": ["f"]},
            {"name": "n_g", "type": "Add", "inputs": ["f", "e"], "outputs": ["g"]}]})";

void check_partition(const aoe::Graph& g, const std::vector<aoe::Subgraph>& subs) {
  REQUIRE_FALSE(subs.empty());
  CHECK(subs.front().begin == 0);
  CHECK(subs.back().end == g.nodes.size());
  for (std::size_t i = 0; i < subs.size(); ++i) {
    CHECK(subs[i].index == i);
    CHECK(subs[i].begin < subs[i].end);
    CHECK(subs[i].kernels >= 1);
    if (i > 0) CHECK(subs[i].begin == subs[i - 1].end);
  }
}

}  // namespace

TEST_CASE("sgat split: cuts where one tensor with several readers is all that is live") {
  const auto g = parse(forked);
  const auto subs = aoe::split_subgraphs(g);
  check_partition(g, subs);
  REQUIRE(subs.size() == 3);
  CHECK(subs[0].end == 2);  // after n_b: only b is live, and two nodes read it
  CHECK(subs[1].end == 5);  // after n_e: only e is live, and two nodes read it
  CHECK(subs[0].name == "n_a..n_b");
  CHECK(subs[1].name == "n_c..n_e");
  CHECK(subs[2].kernels == 2);

  // A larger minimum skips the first fork.
  auto fewer = aoe::split_subgraphs(g, aoe::SplitOptions{.min_kernels = 3});
  check_partition(g, fewer);
  REQUIRE(fewer.size() == 2);
  CHECK(fewer[0].end == 5);
}

TEST_CASE("sgat split: a cut never splits a fused operator") {
  // Conv2D + BatchNorm + Relu fuse into one operator (OPAT's rule): with at most one kernel per
  // subgraph the cut still falls after the Relu.
  const auto g = parse(R"({"format_version": 1, "name": "cbr",
    "tensors": {"x": {"shape": [2, 16, 8, 8], "dtype": "float16", "format": "NCHW"}, "w": {"shape": [16, 16, 3, 3], "dtype": "float16", "format": "NCHW"},
                "y": {"shape": [2, 16, 8, 8], "dtype": "float16", "format": "NCHW"}, "gm": {"shape": [16], "dtype": "float16"}, "bt": {"shape": [16], "dtype": "float16"},
                "z": {"shape": [2, 16, 8, 8], "dtype": "float16", "format": "NCHW"}, "r": {"shape": [2, 16, 8, 8], "dtype": "float16", "format": "NCHW"},
                "s": {"shape": [2, 16, 8, 8], "dtype": "float16", "format": "NCHW"}},
    "nodes": [{"name": "conv", "type": "Conv2D", "inputs": ["x", "w"], "outputs": ["y"],
               "attributes": {"pads": [1, 1, 1, 1]}},
              {"name": "bn", "type": "BatchNorm", "inputs": ["y", "gm", "bt"], "outputs": ["z"]},
              {"name": "relu", "type": "Relu", "inputs": ["z"], "outputs": ["r"]},
              {"name": "exp", "type": "Exp", "inputs": ["r"], "outputs": ["s"]}]})");
  const auto subs = aoe::split_subgraphs(g, aoe::SplitOptions{.max_kernels = 1});
  check_partition(g, subs);
  REQUIRE(subs.size() == 2);
  CHECK(subs[0].end == 3);
  CHECK(subs[0].kernels == 3);
}

TEST_CASE("sgat split: ResNet-50 by residual blocks, BERT-base by transformer sub-layers") {
  const auto resnet = model("resnet50");
  const auto r = aoe::split_subgraphs(resnet);
  check_partition(resnet, r);
  REQUIRE(r.size() == 17);  // the stem, 16 bottleneck blocks (the last with the classifier)
  CHECK(r[0].name == "conv1/conv..pool1");
  CHECK(r[1].name == "res2a_branch2a..res2a/relu");
  CHECK(r[16].name == "res5c_branch2a..fc/BiasAdd");
  CHECK(aoe::split_subgraphs(resnet).back().end == r.back().end);  // deterministic

  const auto bert = model("bert_base");
  const auto b = aoe::split_subgraphs(bert);
  check_partition(bert, b);
  REQUIRE(b.size() == 24);  // 12 layers x (attention, feed-forward)
  CHECK(b[0].name ==
        "bert/encoder/layer_0/attention/self/query/MatMul.."
        "bert/encoder/layer_0/attention/output/LayerNorm");
  CHECK(b[1].name ==
        "bert/encoder/layer_0/intermediate/dense/MatMul..bert/encoder/layer_0/output/LayerNorm");
  // Same structure, same key: two strategies to tune for the whole model.
  std::set<std::string> keys;
  for (const auto& s : b) keys.insert(aoe::make_subgraph_key(bert, s).repo_key());
  CHECK(keys.size() == 2);
  CHECK(aoe::make_subgraph_key(bert, b[2]).repo_key() ==
        aoe::make_subgraph_key(bert, b[22]).repo_key());
}

TEST_CASE("sgat split: one pass over the graph's tensors whatever its size") {
  // Counted, not timed (docs/reliability.md#model-size): fusion's index is the only pass of
  // aoe::detail::graph_scans; a producer or consumer lookup per node would add one per node.
  for (const char* name : {"resnet50", "bert_base"}) {
    CAPTURE(name);
    const auto g = model(name);
    const auto before = aoe::detail::graph_scans.load();
    const auto s = aoe::split_subgraphs(g);
    CHECK(aoe::detail::graph_scans.load() - before == 1);
    check_partition(g, s);
    // The keys of every subgraph from one index: no pass per subgraph (the job's set-up).
    const aoe::GraphIndex index(g);
    const auto indexed = aoe::detail::graph_scans.load();
    for (const auto& sub : s) {
      CHECK(aoe::make_subgraph_key(index, sub).signature == aoe::subgraph_signature(g, sub));
    }
    CHECK(aoe::detail::graph_scans.load() - indexed == s.size());  // only the checks' own
  }
}

TEST_CASE("sgat key: FNV-1a 64 written in decimal, stable, names left out, structure in") {
  // The published FNV-1a 64 test vectors.
  CHECK(aoe::subgraph_key_hash("") == 0xcbf29ce484222325ULL);
  CHECK(aoe::subgraph_key_hash("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(aoe::subgraph_key_hash("foobar") == 0x85944171f73967e8ULL);

  const auto g = parse(forked);
  const auto subs = aoe::split_subgraphs(g);
  const auto key = aoe::make_subgraph_key(g, subs[0]);
  CHECK(key.signature ==
        "sgat1;0:Exp(ext:[4,64]:float16:ND)->[4,64]:float16:ND{};"
        "1:Exp(@0.0:[4,64]:float16:ND)->[4,64]:float16:ND!{};");
  CHECK(key.hash == aoe::subgraph_key_hash(key.signature));
  CHECK(key.repo_key() == std::to_string(key.hash));
  CHECK(key.repo_key().find_first_not_of("0123456789") == std::string::npos);
  CHECK(key.repo_key() == "4477530806006895781");  // the same on every platform and run

  // Other node and tensor names: same key. Another shape or wiring: another key.
  std::string renamed = forked;
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"n_a", "first"}, {"\"a\"", "\"alpha\""}}) {
    for (auto p = renamed.find(from); p != std::string::npos; p = renamed.find(from, p + 1)) {
      renamed.replace(p, from.size(), to);
    }
  }
  const auto g2 = parse(renamed);
  CHECK(aoe::make_subgraph_key(g2, aoe::split_subgraphs(g2)[0]).hash == key.hash);
  std::string reshaped = forked;
  reshaped.replace(reshaped.find("[4, 64]"), 7, "[8, 32]");
  const auto g3 = parse(reshaped);
  CHECK(aoe::make_subgraph_key(g3, aoe::split_subgraphs(g3)[0]).hash != key.hash);
  const auto k1 = aoe::make_subgraph_key(g, subs[1]);
  CHECK(k1.signature.find("1:Add(@0.0:[4,64]:float16:ND,ext:[4,64]:float16:ND)") !=
        std::string::npos);
  CHECK(k1.hash != key.hash);
}

}  // namespace jobs_sgat_split_test
