// The exact expectation of random search without replacement, and the methodology score.
#include "replay_cache.hpp"
#include "support/temp_dir.hpp"
#include <aoe/core/random.hpp>
#include <aoe/measure/replay/load.hpp>
#include <aoe/measure/replay/methodology.hpp>
#include <aoe/measure/replay/random_baseline.hpp>
#include <aoe/measure/replay/replay_runner.hpp>
#include <aoe/search/random_search.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// Population of 9: 7 valid values and 2 failures (infinity).
std::vector<double> population() { return {5, 4, 3, inf, 2.5, 1, inf, 6, 2}; }

// Best-so-far curves of RandomSearch replaying the tiny cache, one per seed.
std::vector<std::vector<double>> random_runs(const aoe::replay::Recording& rec, std::size_t runs) {
  std::vector<std::vector<double>> out;
  const aoe::ReplayRunner runner(
      std::shared_ptr<const aoe::replay::Recording>(&rec, [](const auto*) {}));
  for (std::size_t s = 0; s < runs; ++s) {
    aoe::RandomSearch search;
    search.start(rec.space(), aoe::derive_seed(42, s));
    const auto configs = search.propose(rec.configurations());
    std::vector<double> best;
    double b = inf;
    for (const auto& c : configs) {
      const auto m = runner.measure_one(c);
      if (m.ok()) b = std::min(b, m.value);
      best.push_back(b);
    }
    out.push_back(best);
  }
  return out;
}

}  // namespace

TEST_CASE("the analytic expectation equals enumeration of every subset") {
  const auto pop = population();
  std::vector<double> valid;
  for (const double v : pop) {
    if (!std::isinf(v)) valid.push_back(v);
  }
  const aoe::replay::RandomBaseline baseline(valid, pop.size());
  CHECK(baseline.optimum() == 1);
  CHECK(baseline.worst() == 6);
  const std::size_t n = pop.size();
  for (std::size_t k = 1; k <= n; ++k) {
    // Every k-subset is equally likely under sampling without replacement.
    double sum_fraction = 0;
    double sum_best = 0;
    double subsets = 0;
    for (std::uint32_t mask = 0; mask < (1U << n); ++mask) {
      if (static_cast<std::size_t>(__builtin_popcount(mask)) != k) continue;
      double best = inf;
      for (std::size_t i = 0; i < n; ++i) {
        if ((mask >> i) & 1U) best = std::min(best, pop[i]);
      }
      sum_fraction += std::isinf(best) ? 0.0 : 1.0 / best;
      sum_best += std::isinf(best) ? baseline.worst() : best;
      subsets += 1;
    }
    CAPTURE(k);
    CHECK(baseline.expected_fraction(k) == doctest::Approx(sum_fraction / subsets).epsilon(1e-12));
    CHECK(baseline.expected_best(k) == doctest::Approx(sum_best / subsets).epsilon(1e-12));
  }
  CHECK(baseline.expected_fraction(n) == doctest::Approx(1.0));
  CHECK(baseline.expected_fraction(100) == doctest::Approx(1.0));  // clamped to the population
  CHECK(baseline.probability_optimum(1) == doctest::Approx(1.0 / 9));
}

TEST_CASE("the analytic expectation matches random search replayed many times") {
  aoe::test::TempDir dir("replay_baseline_mc");
  auto rec = aoe::replay::load(
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries())));
  REQUIRE(rec.has_value());
  const std::size_t runs = 20000;
  const auto curves = random_runs(*rec, runs);
  const double opt = rec->optimum();
  for (std::size_t k = 1; k <= rec->configurations(); ++k) {
    double fraction = 0;
    for (const auto& c : curves) fraction += std::isinf(c[k - 1]) ? 0.0 : opt / c[k - 1];
    fraction /= static_cast<double>(runs);
    CAPTURE(k);
    // Standard error <= 0.5 / sqrt(20000) = 0.0035: 0.02 is beyond 5 standard errors.
    CHECK(std::fabs(fraction - rec->expected_random_fraction(k)) < 0.02);
  }
}

TEST_CASE("the methodology cutoff follows the package's formula") {
  std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const aoe::replay::RandomBaseline b(v, v.size());
  // median 5.5; p = 0.5: target 3.25, 7 values above, ceil(7 / 4) = 2.
  CHECK(aoe::replay::cutoff_evaluations(b, 0.5) == 2);
  // p = 0.96: target 1.18, 9 values above, ceil(9 / 2) = 5.
  CHECK(aoe::replay::cutoff_evaluations(b, 0.96) == 5);
  const auto range = aoe::replay::score_range(b);
  CHECK(range.first == 2);
  CHECK(range.last == 5);
}

TEST_CASE("random search scores about 0, the optimum from the start 1") {
  aoe::test::TempDir dir("replay_score");
  auto rec = aoe::replay::load(
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries())));
  REQUIRE(rec.has_value());
  const auto& baseline = rec->baseline();
  const aoe::replay::ScoreRange range{1, 6};
  const std::size_t runs = 20000;
  const auto curves = random_runs(*rec, runs);
  std::vector<double> mean(rec->configurations(), 0.0);
  for (const auto& c : curves) {
    for (std::size_t k = 0; k < mean.size(); ++k) {
      mean[k] += (std::isinf(c[k]) ? baseline.worst() : c[k]) / static_cast<double>(runs);
    }
  }
  CHECK(std::fabs(aoe::replay::methodology_score(mean, baseline, range)) < 0.03);
  const std::vector<double> oracle(mean.size(), rec->optimum());
  CHECK(aoe::replay::methodology_score(oracle, baseline, range) == doctest::Approx(1.0));
  // Always the worst value: below random.
  const std::vector<double> worst(mean.size(), baseline.worst());
  CHECK(aoe::replay::methodology_score(worst, baseline, range) < 0);
}
