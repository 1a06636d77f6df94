#include "search/search_policy_conformance.hpp"
#include "search/search_quality.hpp"
#include "support/landscapes.hpp"
#include <aoe/search/by_name.hpp>
#include <aoe/search/evolutionary.hpp>
#include <aoe/search/phases.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/search/simulated_annealing.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <span>
#include <unordered_set>
#include <vector>

namespace {

// Annealing for 20 evaluations, then evolutionary: both phases run in the suite's spaces.
struct LightPhases : aoe::Phases {
  LightPhases() : aoe::Phases(phases()) {}
  static std::vector<aoe::Phase> phases() {
    std::vector<aoe::Phase> p;
    p.push_back({aoe::AnySearch(aoe::SimulatedAnnealing<>{}), 20});
    p.push_back({aoe::AnySearch(aoe::Evolutionary<>{})});
    return p;
  }
};

// A policy that records what it is told and proposes random new points.
struct Recorder {
  std::vector<aoe::Configuration>* observed;
  std::size_t* proposed;
  aoe::RandomSearch inner{};
  [[nodiscard]] std::string_view name() const { return "recorder"; }
  void start(aoe::SpaceView view, std::uint64_t seed) { inner.start(view, seed); }
  std::vector<aoe::Configuration> propose(std::size_t n) {
    auto out = inner.propose(n);
    *proposed += out.size();
    return out;
  }
  void observe(std::span<const aoe::Trial> trials) {
    inner.observe(trials);
    for (const auto& t : trials) observed->push_back(t.configuration);
  }
};

std::vector<aoe::Trial> measure(const aoe::test::Landscape& l,
                                std::span<const aoe::Configuration> batch) {
  std::vector<aoe::Trial> out;
  for (const auto& c : batch) {
    aoe::Trial t;
    t.configuration = c;
    t.measurement = l.evaluate(l.space, c);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

TYPE_TO_STRING(LightPhases);
TEST_CASE_TEMPLATE_INVOKE(search_policy_conformance, LightPhases);

TEST_CASE("phases: the next phase starts after the quota and is told every trial so far") {
  const auto l = aoe::test::bowl();
  std::vector<aoe::Configuration> first_seen;
  std::vector<aoe::Configuration> second_seen;
  std::size_t first_proposed = 0;
  std::size_t second_proposed = 0;
  std::vector<aoe::Phase> p;
  p.push_back({aoe::AnySearch(Recorder{&first_seen, &first_proposed}), 7});
  p.push_back({aoe::AnySearch(Recorder{&second_seen, &second_proposed})});
  aoe::Phases phases(std::move(p), "two");
  CHECK(phases.name() == "two");
  phases.start(l.space, 3);
  std::vector<aoe::Configuration> all;
  // 3 + 3 + 1 from the first (a batch never mixes phases), then 3 + 2 from the second.
  for (const std::size_t size : {3, 3, 1, 3, 2}) {
    const auto batch = phases.propose(size == 2 ? 2 : 3);
    REQUIRE(batch.size() == size);
    const auto trials = measure(l, batch);
    phases.observe(trials);
    for (const auto& c : batch) all.push_back(c);
  }
  CHECK(first_proposed == 7);
  CHECK(second_proposed == 5);
  CHECK(phases.phase() == 1);
  // The second phase was told the first seven before it proposed, then its own five.
  REQUIRE(second_seen.size() == 12);
  CHECK(std::vector<aoe::Configuration>(second_seen.begin(), second_seen.begin() + 7) ==
        std::vector<aoe::Configuration>(all.begin(), all.begin() + 7));
  const std::unordered_set<aoe::Configuration, aoe::ConfigurationHash> unique(all.begin(),
                                                                              all.end());
  CHECK(unique.size() == all.size());
}

TEST_CASE("phases: a phase that proposes nothing hands over before its quota") {
  const auto l = aoe::test::bowl();
  std::vector<aoe::Configuration> seen;
  std::size_t proposed = 0;
  std::vector<aoe::Phase> p;
  p.push_back({aoe::AnySearch(
                   aoe::Evolutionary<>(aoe::EvolutionaryOptions{.population = 4, .max_trials = 5})),
               100});
  p.push_back({aoe::AnySearch(Recorder{&seen, &proposed})});
  aoe::Phases phases(std::move(p));
  phases.start(l.space, 1);
  // The genetic search stops after 5 (2 + 2 + 1); the next call goes to the second phase.
  for (const std::size_t size : {2, 2, 1, 2, 2}) {
    const auto batch = phases.propose(2);
    REQUIRE(batch.size() == size);
    phases.observe(measure(l, batch));
  }
  CHECK(phases.phase() == 1);
  CHECK(proposed == 4);
  CHECK(seen.size() == 9);
}

TEST_CASE("phases: annealing-evolutionary by name starts from the initial configurations") {
  const auto l = aoe::test::bowl();
  const auto good = *l.space.find(std::vector<aoe::NamedValue>{{"x", 10}, {"y", 4}, {"z", 4}});
  auto s = aoe::make_search("annealing-evolutionary", {.initial = {good}});
  REQUIRE(s.has_value());
  CHECK(s->name() == "annealing-evolutionary");
  s->start(l.space, 9);
  const auto first = s->propose(1);
  REQUIRE(first.size() == 1);
  CHECK(first[0] == good);
  const auto* phases = s->target<aoe::Phases>();
  REQUIRE(phases != nullptr);
  CHECK(phases->phase() == 0);
}

TEST_CASE("phases: annealing-evolutionary beats random search on a kernel-like landscape") {
  using namespace aoe;
  const auto l = test::tiled_kernel();
  const auto ae = test::fractions_of_optimum(
      l, [] { return annealing_evolutionary({}); }, 100, 20);
  const auto rs = test::fractions_of_optimum(
      l, [] { return RandomSearch{}; }, 100, 20);
  MESSAGE("annealing-evolutionary mean ", test::mean(ae), " random mean ", test::mean(rs));
  CHECK(test::mean(ae) > test::mean(rs));
}
