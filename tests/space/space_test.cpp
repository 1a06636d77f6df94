#include <aoe/core/random.hpp>
#include <aoe/space/space.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace space_space_test {  // apart from this area's other files in a unity build

using namespace aoe;

namespace {
/// Valid points by brute force over every raw point.
std::vector<Configuration> brute_force(const Space& s) {
  std::vector<Configuration> out;
  const auto raw = static_cast<std::uint64_t>(s.raw_size());
  for (std::uint64_t r = 0; r < raw; ++r) {
    const auto c = s.unrank(r);
    if (s.is_valid(c)) out.push_back(c);
  }
  return out;
}

Space constrained() {
  return Space({pow2("m", 1, 64), pow2("n", 1, 64), range("k", 1, 12), flag("db")},
               {product_at_most({"m", "n"}, 512), divides("k", 24), multiple_of("m", "n"),
                predicate(
                    {"db", "m"}, [](std::span<const double> v) { return v[0] == 0 || v[1] >= 4; },
                    "db implies m >= 4")});
}
}  // namespace

TEST_CASE("the pruned enumeration yields exactly the valid points, in order") {
  const auto s = constrained();
  std::vector<Configuration> enumerated;
  s.for_each_valid([&](const Configuration& c) { enumerated.push_back(c); });
  CHECK(enumerated == brute_force(s));
  const auto size = s.size();
  CHECK(size.exact);
  CHECK(size.raw == 7 * 7 * 12 * 2);
  CHECK(size.valid == enumerated.size());
  CHECK_FALSE(enumerated.empty());

  // Stopping early.
  std::size_t seen = 0;
  CHECK_FALSE(s.for_each_valid([&](const Configuration&) { return ++seen < 5; }));
  CHECK(seen == 5);
}

TEST_CASE("a huge space reports an estimated valid size") {
  const Space s({range("a", 0, 999), range("b", 0, 999), range("c", 0, 999)},
                {multiple_of("a", 4)});
  const auto size = s.size(1'000'000, 100'000, 1);
  CHECK_FALSE(size.exact);
  CHECK(size.raw == 1e9);
  CHECK(size.valid == doctest::Approx(2.5e8).epsilon(0.02));
}

TEST_CASE("validity, values and named values round-trip") {
  const auto s = constrained();
  const Configuration c{3, 2, 5, 1};  // m=8, n=4, k=6, db
  CHECK(s.is_valid(c));
  CHECK(s.to_string(c) == "m=8, n=4, k=6, db=1");
  const auto named = s.named_values(c);
  CHECK(s.find(named) == c);
  CHECK_FALSE(s.find(std::vector<NamedValue>{{"m", 8}}).has_value());
  CHECK_FALSE(s.find(std::vector<NamedValue>{{"m", 9}, {"n", 4}, {"k", 6}, {"db", 1}}));
  CHECK_FALSE(s.is_valid(Configuration{3, 2, 4, 1}));  // k = 5 does not divide 24
  REQUIRE(s.violated(Configuration{3, 2, 4, 1}) != nullptr);
  CHECK(s.violated(Configuration{3, 2, 4, 1})->description() == "k divides 24");
  CHECK_FALSE(s.is_valid(Configuration{3, 2, 5}));      // wrong length
  CHECK_FALSE(s.is_valid(Configuration{3, 2, 50, 1}));  // out of range
  CHECK(s.unrank(s.rank(c)) == c);
}

TEST_CASE("a space rejects duplicate names and constraints on unknown parameters") {
  CHECK_THROWS_WITH_AS(Space({range("a", 0, 1), flag("a")}),
                       doctest::Contains("two parameters named 'a'"), aoe::Error);
  CHECK_THROWS_WITH_AS(Space({range("a", 0, 1)}, {divides("b", 4)}),
                       doctest::Contains("names 'b', which is not a parameter"), aoe::Error);
}

TEST_CASE("random valid sampling is seeded and finds valid points in sparse spaces") {
  const auto s = constrained();
  Rng a(5);
  Rng b(5);
  for (int i = 0; i < 50; ++i) {
    const auto x = s.sample(a);
    const auto y = s.sample(b);
    REQUIRE(x.has_value());
    CHECK(s.is_valid(*x));
    CHECK(x == y);
  }
  // One valid point among 10^9: rejection sampling fails, the randomised descent finds it.
  const Space sparse(
      {range("a", 0, 999), range("b", 0, 999), range("c", 0, 999)},
      {predicate(
           {"a", "b"}, [](std::span<const double> v) { return v[0] == 17 && v[1] == 400; },
           "a=17, b=400"),
       divides("c", 997)});
  Rng rng(1);
  const auto found = sparse.sample(rng);
  REQUIRE(found.has_value());
  CHECK(sparse.to_string(*found) == "a=17, b=400, c=997");
  const Space empty({range("a", 0, 9)}, {divides("a", 0.5)});
  CHECK_FALSE(empty.sample(rng).has_value());
}

TEST_CASE("sampling draws what the first valid of its raw draws is, and leaves the rng there") {
  // sample() draws its raw points into one vector: the same points, in the same order, as
  // sample_raw() one after the other, and the generator left in the same state.
  const auto s = constrained();
  const Space sparse(
      {range("a", 0, 99), range("b", 0, 99)},
      {predicate(
          {"a", "b"}, [](std::span<const double> v) { return v[0] + v[1] == 7; }, "a + b = 7")});
  for (const Space* space : {&s, &sparse}) {
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      Rng fast(seed);
      Rng reference(seed);
      for (int i = 0; i < 20; ++i) {
        const auto got = space->sample(fast, 64);
        std::optional<Configuration> want;
        for (int t = 0; t < 64 && !want; ++t) {
          auto c = space->sample_raw(reference);
          if (space->is_valid(c)) want = std::move(c);
        }
        if (!want) break;  // the descent after 64 rejections: another code path
        CHECK(got == want);
        CHECK(fast() == reference());
      }
    }
  }
}

TEST_CASE("neighbourhoods list valid neighbours only") {
  const Space s({range("a", 0, 4), range("b", 0, 4)}, {sum_at_most({"a", "b"}, 5)});
  const Configuration c{2, 2};
  const auto hamming = s.neighbours(c, Neighbourhood::hamming);
  CHECK(hamming.size() == 6);  // a in {0, 1, 3} and b in {0, 1, 3}: a + b <= 5
  const auto adjacent = s.neighbours(c, Neighbourhood::adjacent);
  CHECK(std::set<Configuration>(adjacent.begin(), adjacent.end()) ==
        std::set<Configuration>{{1, 2}, {3, 2}, {2, 1}, {2, 3}});
  const auto box = s.neighbours(c, Neighbourhood::box);
  CHECK(box.size() == 8 - 1);  // (3,3) violates the constraint
  Rng rng(3);
  for (const auto kind : {Neighbourhood::hamming, Neighbourhood::adjacent, Neighbourhood::box}) {
    for (int i = 0; i < 20; ++i) {
      const auto n = s.random_neighbour(c, kind, rng);
      REQUIRE(n.has_value());
      CHECK(s.is_valid(*n));
      CHECK(*n != c);
    }
  }
  const Space single({range("a", 0, 0)});
  CHECK_FALSE(single.random_neighbour({0}, Neighbourhood::hamming, rng).has_value());
}

TEST_CASE("unit-cube encoding and decoding are inverse on grid points") {
  const auto s = constrained();
  s.for_each_valid([&](const Configuration& c) {
    const auto x = s.encode(c);
    for (const double xi : x) {
      CHECK(xi > 0);
      CHECK(xi < 1);
    }
    CHECK(s.decode(x) == c);
  });
  CHECK(s.decode(std::vector<double>{-1, 2, 0.5, 1}) == Configuration{0, 6, 6, 1});
}

}  // namespace space_space_test
