// A user's program tuning online into the knowledge bank, with deterministic values, for the
// fault loop (scripts/fault_injection_online.py, docs/online.md "When the disk fails"): two keys
// on the grid landscape of online_test.cpp, each called CALLS times serially, every call
// reporting the landscape's exact cost (no clock), random search with seed 1.
//
//   aoe_test_online_fault_child <bank root> [calls]
//
// Prints "loop done <calls>" when its loop has run to the end and exits 0: a store that fails
// does not stop the user's program; at exit (the destructor stores what is not stored yet) the
// summary on stderr names the last repository error of each key ("; repository: ...").
#include <aoe/online.hpp>
#include <aoe/repo/knowledge_bank.hpp>
#include <aoe/search/random_search.hpp>

#include <cstdio>
#include <string>

namespace {

double cost(const aoe::Space& space, const aoe::Configuration& c) {
  const double x = space.numeric(c, 0) - 11;
  const double y = space.numeric(c, 1) - 4;
  return 1e-3 * (1 + 0.1 * (x * x + y * y));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <bank root> [calls]\n", argv[0]);
    return 1;
  }
  const int calls = argc > 2 ? std::stoi(argv[2]) : 40;
  aoe::OnlineOptions o;
  o.seed = 1;
  o.budget = 12;
  o.default_configuration = {{"x", 0}, {"y", 0}};
  o.mode = aoe::OnlineMode::tune;
  o.repeat_tune = false;
  o.summary_at_exit = true;
  aoe::Online<aoe::RandomSearch, aoe::KnowledgeBank> online(
      aoe::Space({aoe::range("x", 0, 15), aoe::range("y", 0, 15)}), o, aoe::RandomSearch(),
      aoe::KnowledgeBank({.custom_root = argv[1]}));
  const aoe::TuningKey keys[] = {{"landscape/a", "host"}, {"landscape/b", "host"}};
  for (int i = 0; i < calls; ++i) {
    for (const auto& key : keys) {
      auto call = online.begin(key);
      call.end(cost(online.space(), call.configuration()));
    }
  }
  std::printf("loop done %d\n", calls);
  return 0;
}
