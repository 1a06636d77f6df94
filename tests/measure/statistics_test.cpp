#include <aoe/measure/statistics.hpp>
#include <aoe/vocab/status.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

TEST_CASE("median, mean, min and stddev") {
  const std::vector<double> odd{5, 1, 3};
  const std::vector<double> even{4, 1, 3, 2};
  CHECK(aoe::median(odd) == 3);
  CHECK(aoe::median(even) == 2.5);
  CHECK(aoe::mean(even) == 2.5);
  CHECK(aoe::reduce(aoe::Statistic::min, odd) == 1);
  CHECK(aoe::stddev(std::vector<double>{2, 4, 4, 4, 5, 5, 7, 9}) ==
        doctest::Approx(2.138).epsilon(0.001));
  CHECK(std::isnan(aoe::median(std::vector<double>{})));
}

TEST_CASE("status names are the T4 invalidity names and read back") {
  CHECK(aoe::to_string(aoe::Status::correctness) == "correctness");
  for (std::size_t i = 0; i < aoe::status_count; ++i) {
    const auto s = static_cast<aoe::Status>(i);
    CHECK(aoe::status_from_string(aoe::to_string(s)) == s);
  }
  CHECK_FALSE(aoe::status_from_string("crashed").has_value());
}
