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
    double sum_rank = 0;
    double subsets = 0;
    for (std::uint32_t mask = 0; mask < (1U << n); ++mask) {
      if (static_cast<std::size_t>(__builtin_popcount(mask)) != k) continue;
      double best = inf;
      for (std::size_t i = 0; i < n; ++i) {
        if ((mask >> i) & 1U) best = std::min(best, pop[i]);
      }
      sum_fraction += std::isinf(best) ? 0.0 : 1.0 / best;
      sum_best += std::isinf(best) ? baseline.worst() : best;
      // valid values sorted: 1 2 2.5 3 4 5 6; nothing found takes the worst's position, 6
      sum_rank += static_cast<double>(std::count_if(valid.begin(), valid.end(), [&](double v) {
        return v < (std::isinf(best) ? baseline.worst() : best);
      }));
      subsets += 1;
    }
    CAPTURE(k);
    CHECK(baseline.expected_fraction(k) == doctest::Approx(sum_fraction / subsets).epsilon(1e-12));
    CHECK(baseline.expected_best(k) == doctest::Approx(sum_best / subsets).epsilon(1e-12));
    CHECK(baseline.expected_rank(k) == doctest::Approx(sum_rank / subsets).epsilon(1e-12));
  }
  CHECK(baseline.expected_fraction(n) == doctest::Approx(1.0));
  CHECK(baseline.expected_fraction(100) == doctest::Approx(1.0));  // clamped to the population
  CHECK(baseline.probability_optimum(1) == doctest::Approx(1.0 / 9));
}

TEST_CASE("ranks are positions among the valid values, ties sharing the first") {
  const aoe::replay::RandomBaseline b({3, 1, 2, 2, 5}, 7);  // sorted: 1 2 2 3 5
  CHECK(b.rank(1) == 0);
  CHECK(b.rank(2) == 1);
  CHECK(b.rank(3) == 3);
  CHECK(b.rank(5) == 4);
  CHECK(b.rank(inf) == 4);  // nothing found: the worst valid value
  CHECK(b.value_at_rank(0) == 1);
  CHECK(b.value_at_rank(3.5) == doctest::Approx(4));
  CHECK(b.value_at_rank(-1) == 1);
  CHECK(b.value_at_rank(9) == 5);
  // Ties: every draw of a 2 has rank 1, so the expectation after all 7 draws is the optimum's.
  CHECK(b.expected_rank(7) == doctest::Approx(0));
  const aoe::replay::RandomBaseline ties({2, 2, 2}, 3);
  CHECK(ties.expected_rank(1) == doctest::Approx(0));
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
  // Failed configurations are draws that find nothing: 10 of 20 configurations failed, so
  // p = 0.96 has 19 configurations above the target, ceil(19 / 2) = 10 evaluations; the
  // package's valid-only count keeps 5.
  const aoe::replay::RandomBaseline half(v, 20);
  CHECK(aoe::replay::cutoff_evaluations(half, 0.96) == 10);
  CHECK(aoe::replay::cutoff_evaluations(half, 0.96, false) == 5);
  CHECK(aoe::replay::score_range(half, {.count_failures = false}).last == 5);
}

TEST_CASE("random search scores about 0, the optimum from the start 1") {
  aoe::test::TempDir dir("replay_score");
  auto rec = aoe::replay::load(
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries())));
  REQUIRE(rec.has_value());
  const auto& baseline = rec->baseline();
  const aoe::replay::ScoreRange range{1, 6};
  const auto curves = random_runs(*rec, 20000);
  CHECK(std::fabs(aoe::replay::methodology_score(curves, baseline, range)) < 0.03);
  const std::vector<std::vector<double>> oracle(3, std::vector<double>(6, rec->optimum()));
  CHECK(aoe::replay::methodology_score(oracle, baseline, range) == doctest::Approx(1.0));
  // Always the worst value: below random.
  const std::vector<std::vector<double>> worst(3, std::vector<double>(6, baseline.worst()));
  CHECK(aoe::replay::methodology_score(worst, baseline, range) < 0);
  // Nothing found counts as the worst value; a short curve is extended with its last value.
  const std::vector<std::vector<double>> nothing(3, std::vector<double>(2, inf));
  CHECK(aoe::replay::methodology_score(nothing, baseline, range) ==
        doctest::Approx(aoe::replay::methodology_score(worst, baseline, range)));
}

TEST_CASE("one repetition stuck far in a heavy tail does not swamp the score") {
  // 1000 values: 1..999 and one configuration 10^6 times slower than the rest.
  std::vector<double> values;
  for (int i = 1; i < 1000; ++i) values.push_back(i);
  values.push_back(1e9);
  const aoe::replay::RandomBaseline b(values, values.size());
  const aoe::replay::ScoreRange range{1, 20};
  // 19 repetitions at the optimum from the start, one stuck on the slowest configuration.
  std::vector<std::vector<double>> runs(19, std::vector<double>(20, 1.0));
  runs.emplace_back(20, 1e9);
  // Mean rank 49.95: the curve is the value 50.95 throughout, better than random search's
  // expected value at rank 1001 / (k + 1) - 1 until k = 19 (0.42 by hand). The mean of the
  // values, 5 * 10^7, would have scored about -10^5.
  CHECK(aoe::replay::methodology_score(runs, b, range) == doctest::Approx(0.418).epsilon(0.01));
}
