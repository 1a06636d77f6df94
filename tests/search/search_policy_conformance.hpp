// The conformance suite every search policy runs. In a policy's test file:
//   #include "search/search_policy_conformance.hpp"
//   TYPE_TO_STRING(aoe::MyPolicy);
//   TEST_CASE_TEMPLATE_INVOKE(search_policy_conformance, aoe::MyPolicy);
// The policy must be default-constructible. TYPE_TO_STRING is required: without it every
// invocation is named "search policy conformance<>" and doctest keeps only one of them.
#ifndef AOE_TESTS_SEARCH_SEARCH_POLICY_CONFORMANCE_HPP
#define AOE_TESTS_SEARCH_SEARCH_POLICY_CONFORMANCE_HPP

#include "support/landscapes.hpp"
#include <aoe/tuner/concepts.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_set>
#include <utility>
#include <vector>

namespace aoe::test {

/// Wraps a policy and records everything it proposes.
template <class P>
class Recorded {
 public:
  void start(SpaceView view, std::uint64_t seed) {
    view_ = view;
    inner_.start(view, seed);
  }
  std::vector<Configuration> propose(std::size_t n) {
    auto batch = inner_.propose(n);
    asked_.push_back(n);
    for (const auto& c : batch) proposals_.push_back(c);
    over_asked_ = over_asked_ || batch.size() > n;
    return batch;
  }
  void observe(std::span<const Trial> trials) { inner_.observe(trials); }

  [[nodiscard]] const std::vector<Configuration>& proposals() const { return proposals_; }
  [[nodiscard]] bool over_asked() const { return over_asked_; }

 private:
  P inner_{};
  SpaceView view_;
  std::vector<Configuration> proposals_;
  std::vector<std::size_t> asked_;
  bool over_asked_ = false;
};

template <class P>
struct ConformanceRun {
  TuningResult result;
  std::vector<Configuration> proposals;
  bool over_asked = false;
};

template <class P, class Stop>
ConformanceRun<P> run_on(const Landscape& l, std::uint64_t seed, std::size_t batch, Stop stop) {
  Tuner tuner(Recorded<P>{}, LandscapeRunner(l.evaluate), MemoryRepository{},
              TunerOptions{.seed = seed, .batch_size = batch});
  ConformanceRun<P> run;
  run.result = tuner.tune(l.space, stop);
  run.proposals = tuner.search().proposals();
  run.over_asked = tuner.search().over_asked();
  return run;
}

}  // namespace aoe::test

TEST_CASE_TEMPLATE_DEFINE("search policy conformance", P, search_policy_conformance) {
  using namespace aoe;
  using namespace aoe::test;
  static_assert(search_policy<P>, "the policy must model aoe::search_policy");

  SUBCASE("proposes only valid configurations, each once, never more than asked") {
    for (const auto& landscape : {bowl(), rugged()}) {
      for (const std::size_t batch : {std::size_t{1}, std::size_t{7}}) {
        const auto run = run_on<P>(landscape, 11, batch, MaxEvaluations{150});
        CHECK_FALSE(run.over_asked);
        std::unordered_set<Configuration, ConfigurationHash> seen;
        for (const auto& c : run.proposals) {
          CHECK(landscape.space.is_valid(c));
          CHECK(seen.insert(c).second);
        }
        CHECK(run.result.count(Status::constraints) == 0);
      }
    }
  }

  SUBCASE("honours the evaluation budget, in batches too") {
    const auto l = bowl();
    for (const std::size_t batch : {std::size_t{1}, std::size_t{4}, std::size_t{16}}) {
      const auto run = run_on<P>(l, 5, batch, MaxEvaluations{37});
      CHECK(run.result.history.size() <= 37);
      CHECK(run.result.history.size() > 0);
    }
  }

  SUBCASE("is deterministic for a fixed seed") {
    const auto l = rugged();
    for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{42}}) {
      const auto a = run_on<P>(l, seed, 3, MaxEvaluations{60});
      const auto b = run_on<P>(l, seed, 3, MaxEvaluations{60});
      REQUIRE(a.result.history.size() == b.result.history.size());
      for (std::size_t i = 0; i < a.result.history.size(); ++i) {
        CHECK(a.result.history[i].configuration == b.result.history[i].configuration);
      }
    }
  }

  SUBCASE("on a space smaller than its initial sample: each point once, then the optimum") {
    const auto l = tiny();
    for (const std::size_t batch : {std::size_t{1}, std::size_t{4}}) {
      const auto run = run_on<P>(l, 7, batch, MaxEvaluations{50});
      CHECK(run.result.history.size() == l.valid);  // all of it, then exhausted
      CHECK(run.result.reason == StopReason::exhausted);
      REQUIRE(run.result.found());
      CHECK(run.result.best_value == doctest::Approx(l.optimum));
    }
  }

  SUBCASE("on a space 80 % invalid, half the rest failing: valid proposals, then the optimum") {
    const auto l = mostly_invalid();
    REQUIRE(l.valid == 80);
    for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{2}}) {
      const auto run = run_on<P>(l, seed, 3, MaxEvaluations{l.valid});
      CHECK(run.result.count(Status::constraints) == 0);
      for (const auto& c : run.proposals) CHECK(l.space.is_valid(c));
      CHECK(run.result.history.size() == l.valid);
      REQUIRE(run.result.found());
      CHECK(run.result.best_value == doctest::Approx(l.optimum));
    }
  }

  SUBCASE("finds the optimum of small landscapes when the budget allows the whole space") {
    for (const auto& landscape : {bowl(), rugged()}) {
      for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}}) {
        const auto run = run_on<P>(landscape, seed, 4, MaxEvaluations{landscape.valid});
        REQUIRE(run.result.found());
        CHECK(run.result.best_value == doctest::Approx(landscape.optimum));
      }
    }
  }
}

#endif  // AOE_TESTS_SEARCH_SEARCH_POLICY_CONFORMANCE_HPP
