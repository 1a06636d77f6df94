// Percentile bootstrap intervals: cases whose answer is known.
#include <aoe/core/random.hpp>
#include <aoe/measure/replay/bootstrap.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

using aoe::replay::bootstrap_mean;
using aoe::replay::bootstrap_mean_of_means;
using aoe::replay::BootstrapOptions;

TEST_CASE("bootstrap: a constant sample has a zero-width interval at its value") {
  const std::vector<double> sample(30, 0.97);
  const auto ci = bootstrap_mean(sample);
  CHECK(ci.low == doctest::Approx(0.97).epsilon(1e-12));
  CHECK(ci.high == doctest::Approx(0.97).epsilon(1e-12));
}

TEST_CASE("bootstrap: uniform(0, 1) draws give an interval around 1/2 of the normal width") {
  aoe::Rng rng(7);
  std::vector<double> sample(400);
  for (double& v : sample) v = rng.uniform();
  double mean = 0;
  for (const double v : sample) mean += v;
  mean /= static_cast<double>(sample.size());
  const auto ci = bootstrap_mean(sample);
  CHECK(ci.low < mean);
  CHECK(ci.high > mean);
  CHECK(ci.low < 0.5);
  CHECK(ci.high > 0.5);
  // Normal approximation: 2 * 1.96 * sqrt(1/12 / 400) = 0.0566.
  CHECK(ci.high - ci.low == doctest::Approx(0.0566).epsilon(0.15));
}

TEST_CASE("bootstrap: about 95% of the intervals cover the true mean") {
  // 300 samples of 40 exponential(1) draws (skewed): a percentile interval at 95% covers the
  // true mean 1 in about 93-95% of them; a wrong quantile or resampling would not.
  aoe::Rng rng(11);
  int covered = 0;
  const int samples = 300;
  for (int s = 0; s < samples; ++s) {
    std::vector<double> sample(40);
    for (double& v : sample) v = -std::log(1 - rng.uniform());
    const auto ci =
        bootstrap_mean(sample, {.resamples = 1000, .seed = static_cast<std::uint64_t>(s)});
    if (ci.low <= 1 && 1 <= ci.high) ++covered;
  }
  CHECK(covered >= static_cast<int>(0.89 * samples));
  CHECK(covered <= static_cast<int>(0.98 * samples));
}

TEST_CASE("bootstrap: the mean of group means, each group resampled on its own") {
  // Two constant groups of different sizes: every resample's statistic is (1 + 3) / 2 = 2,
  // whatever the sizes (a pooled mean would be (1 * 10 + 3 * 2) / 12 = 1.33).
  const std::vector<std::vector<double>> groups{std::vector<double>(10, 1.0), {3.0, 3.0}};
  const auto ci = bootstrap_mean_of_means(groups);
  CHECK(ci.low == doctest::Approx(2.0));
  CHECK(ci.high == doctest::Approx(2.0));
  // A varying group: the interval widens around the mean of means and stays inside the range
  // the statistic can take.
  const std::vector<std::vector<double>> mixed{{0.0, 1.0, 0.0, 1.0}, {2.0, 2.0}};
  const auto wide = bootstrap_mean_of_means(mixed);
  CHECK(wide.low < 1.25);
  CHECK(wide.high > 1.25);
  CHECK(wide.low >= 1.0);
  CHECK(wide.high <= 1.5);
}

TEST_CASE("bootstrap: the same data and seed give the same interval; another seed may not") {
  aoe::Rng rng(3);
  std::vector<double> sample(25);
  for (double& v : sample) v = rng.uniform();
  const auto a = bootstrap_mean(sample, {.seed = 5});
  const auto b = bootstrap_mean(sample, {.seed = 5});
  const auto c = bootstrap_mean(sample, {.seed = 6});
  CHECK(a.low == b.low);
  CHECK(a.high == b.high);
  CHECK((a.low != c.low || a.high != c.high));
}

TEST_CASE("bootstrap: nothing to resample gives NaN ends") {
  CHECK(std::isnan(bootstrap_mean(std::vector<double>{}).low));
  const std::vector<std::vector<double>> with_empty{{1.0}, {}};
  CHECK(std::isnan(bootstrap_mean_of_means(with_empty).high));
  CHECK(std::isnan(
      bootstrap_mean(std::vector<double>{1.0, std::numeric_limits<double>::infinity()}).low));
  CHECK(std::isnan(bootstrap_mean(std::vector<double>{1.0, 2.0}, {.resamples = 0}).low));
}

TEST_CASE("bootstrap: percentile interval of given replicates, and replicates of a statistic") {
  std::vector<double> replicates;
  for (int i = 100; i >= 0; --i) replicates.push_back(i);  // any order
  const auto ci = aoe::replay::percentile_interval(replicates, 0.90);
  CHECK(ci.low == doctest::Approx(5.0));
  CHECK(ci.high == doctest::Approx(95.0));
  // Replicates of the mean of a sample, through the generic call, match bootstrap_mean
  // with the same seed (the same index draws).
  aoe::Rng rng(9);
  std::vector<double> sample(20);
  for (double& v : sample) v = rng.uniform();
  const auto means = aoe::replay::bootstrap_replicates(sample.size(), BootstrapOptions{.seed = 4},
                                                       [&](std::span<const std::size_t> idx) {
                                                         double s = 0;
                                                         for (const std::size_t i : idx)
                                                           s += sample[i];
                                                         return s / static_cast<double>(idx.size());
                                                       });
  CHECK(means.size() == 2000);
  const auto a = aoe::replay::percentile_interval(means);
  const auto b = bootstrap_mean(sample, {.seed = 4});
  CHECK(a.low == doctest::Approx(b.low).epsilon(1e-12));
  CHECK(a.high == doctest::Approx(b.high).epsilon(1e-12));
}
