#include "search/search_policy_conformance.hpp"
#include "search/search_quality.hpp"
#include <aoe/search/bayesian/bayesian.hpp>
#include <aoe/search/ensemble.hpp>
#include <aoe/search/evolutionary.hpp>
#include <aoe/search/grid_search.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/search/simulated_annealing.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <vector>

namespace {

// The default members, with a Bayesian member sized for the conformance suite's runs to the
// end of 1000-point spaces in unoptimised (Debug) builds; the quality test below runs the
// default ensemble.
struct LightEnsemble : aoe::Ensemble {
  LightEnsemble() : aoe::Ensemble(members()) {}
  static std::vector<aoe::AnySearch> members() {
    std::vector<aoe::AnySearch> m;
    m.emplace_back(aoe::SimulatedAnnealing<>{});
    m.emplace_back(aoe::Evolutionary<>{});
    m.emplace_back(aoe::Bayesian<>(
        aoe::BayesianOptions{.candidates = 128, .local_candidates = 32, .max_observations = 48},
        aoe::GaussianProcess<>(aoe::GaussianProcessOptions{
            .length_grid = {0.1, 0.3, 1.0}, .noise_grid = {1e-4, 1e-2}, .hyper_max_points = 32})));
    return m;
  }
};

}  // namespace

TYPE_TO_STRING(LightEnsemble);
TEST_CASE_TEMPLATE_INVOKE(search_policy_conformance, LightEnsemble);

TEST_CASE("the bandit credits the member that finds improvements") {
  using namespace aoe;
  const auto l = test::tiled_kernel();
  // Grid search walks the space in order from a corner; annealing climbs: annealing should
  // find far more new bests and so be used more.
  std::vector<AnySearch> members;
  members.emplace_back(GridSearch{});
  members.emplace_back(SimulatedAnnealing<>{});
  Tuner tuner(Ensemble(std::move(members)), test::LandscapeRunner(l.evaluate), MemoryRepository{},
              TunerOptions{.seed = 3});
  const auto result = tuner.tune(l.space, MaxEvaluations{150});
  const auto& e = tuner.search();
  REQUIRE(e.size() == 2);
  CHECK(e.member_name(0) == "grid");
  CHECK(e.member_name(1) == "annealing");
  CHECK(e.uses(0) + e.uses(1) == result.history.size());
  CHECK(e.uses(1) > e.uses(0));
}

namespace {
// Records what it observes; proposes the points of a line in order.
struct Listener {
  std::vector<aoe::Configuration> seen;
  std::uint32_t next = 0;
  std::uint32_t size = 0;
  void start(aoe::SpaceView view, std::uint64_t /*seed*/) {
    seen.clear();
    next = 0;
    size = view->cardinality(0);
  }
  std::vector<aoe::Configuration> propose(std::size_t n) {
    std::vector<aoe::Configuration> out;
    while (out.size() < n && next < size) out.push_back({next++});
    return out;
  }
  void observe(std::span<const aoe::Trial> trials) {
    for (const auto& t : trials) seen.push_back(t.configuration);
  }
};
}  // namespace

TEST_CASE("the initial configurations come first and every member observes every trial") {
  using namespace aoe;
  const Space space({range("x", 0, 9)});
  std::vector<AnySearch> members;
  members.emplace_back(Listener{});
  members.emplace_back(Listener{});
  Ensemble e(std::move(members), EnsembleOptions{.initial = {{7}, {42}, {7}}});
  e.start(space, 1);
  const auto first = e.propose(1);
  REQUIRE(first.size() == 1);
  CHECK(first[0] == Configuration{7});  // {42} is out of bounds, the second {7} a repeat
  std::vector<Trial> trials{{first[0], Measurement::success(1.0)}};
  e.observe(trials);
  for (int i = 0; i < 4; ++i) {
    const auto batch = e.propose(1);
    REQUIRE(batch.size() == 1);
    std::vector<Trial> t{{batch[0], Measurement::success(2.0)}};
    e.observe(t);
  }
  // Both members saw the initial point and the four proposals, whoever made them.
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    const auto* m = e.member(i).target<Listener>();
    REQUIRE(m != nullptr);
    REQUIRE(m->seen.size() == 5);
    CHECK(m->seen[0] == Configuration{7});
  }
  // Without sharing, each member observes its own proposals only.
  std::vector<AnySearch> own;
  own.emplace_back(Listener{});
  own.emplace_back(Listener{});
  Ensemble apart(std::move(own), EnsembleOptions{.share_trials = false});
  apart.start(space, 1);
  for (int i = 0; i < 4; ++i) {
    const auto batch = apart.propose(1);
    REQUIRE(batch.size() == 1);
    std::vector<Trial> t{{batch[0], Measurement::success(2.0)}};
    apart.observe(t);
  }
  // (shared, they would have seen 2 x 4; a member also observes the known result of a point it
  // proposed again)
  CHECK(apart.member(0).target<Listener>()->seen.size() +
            apart.member(1).target<Listener>()->seen.size() <
        8);
}

TEST_CASE("members that propose known points are told the known result, not re-measured") {
  using namespace aoe;
  const Space space({range("x", 0, 5)});
  // Two grid searches propose the same sequence: the second must not cause re-measurements.
  std::vector<AnySearch> members;
  members.emplace_back(GridSearch{});
  members.emplace_back(GridSearch{});
  Ensemble e(std::move(members));
  e.start(space, 1);
  std::unordered_set<Configuration, ConfigurationHash> seen;
  while (true) {
    const auto batch = e.propose(1);
    if (batch.empty()) break;
    for (const auto& c : batch) CHECK(seen.insert(c).second);
    std::vector<Trial> trials{{batch[0], Measurement::success(1.0 + space.numeric(batch[0], 0))}};
    e.observe(trials);
  }
  CHECK(seen.size() == 6);
}

TEST_CASE("the ensemble beats random search on a kernel-like landscape" *
          doctest::test_suite("slow")) {
  using namespace aoe;
  const auto l = test::tiled_kernel();
  const auto en = test::fractions_of_optimum(
      l, [] { return Ensemble{}; }, 100, 6);
  const auto rs = test::fractions_of_optimum(
      l, [] { return RandomSearch{}; }, 100, 6);
  MESSAGE("ensemble mean ", test::mean(en), " random mean ", test::mean(rs));
  CHECK(test::mean(en) > test::mean(rs));
}
