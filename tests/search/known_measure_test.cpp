// KnownMeasure (jobs/detail/transfer.hpp): configurations measured before the search are handed
// back, the rest forwarded; an inner measure policy that answers short is an error.
#include <aoe/core/error.hpp>
#include <aoe/jobs/detail/transfer.hpp>
#include <aoe/space/space.hpp>
#include <aoe/vocab/measurement.hpp>

#include <doctest/doctest.h>

#include <span>
#include <utility>
#include <vector>

namespace {

// Measures each configuration as 1 + its first index; drops the last answer when `short_by`.
struct Inner {
  std::size_t short_by = 0;
  std::size_t calls = 0;
  std::vector<aoe::Measurement> measure(aoe::SpaceView, std::span<const aoe::Configuration> b) {
    ++calls;
    std::vector<aoe::Measurement> out;
    for (const auto& c : b) out.push_back(aoe::Measurement::success(1.0 + c[0]));
    out.resize(out.size() - std::min(short_by, out.size()));
    return out;
  }
};

}  // namespace

TEST_CASE("KnownMeasure hands back known measurements and forwards the rest in order") {
  const aoe::Space space({aoe::range("x", 0, 7)});
  std::vector<std::pair<aoe::Configuration, aoe::Measurement>> known{
      {aoe::Configuration{3}, aoe::Measurement::success(0.5)}};
  aoe::detail::KnownMeasure<Inner> m(Inner{}, std::move(known));
  const std::vector<aoe::Configuration> batch{{1}, {3}, {5}};
  const auto out = m.measure(space, batch);
  REQUIRE(out.size() == 3);
  CHECK(out[0].value == 2.0);
  CHECK(out[1].value == 0.5);
  CHECK(out[2].value == 6.0);
}

TEST_CASE("KnownMeasure: an inner measure that returns too few measurements is an error") {
  const aoe::Space space({aoe::range("x", 0, 7)});
  aoe::detail::KnownMeasure<Inner> m(Inner{.short_by = 1}, {});
  const std::vector<aoe::Configuration> batch{{1}, {2}};
  CHECK_THROWS_WITH_AS(m.measure(space, batch),
                       doctest::Contains("returned 1 measurements for a batch of 2"), aoe::Error);
}
