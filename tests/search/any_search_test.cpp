#include "aoe/search/any_search.hpp"

#include "aoe/search/grid_search.hpp"
#include "aoe/search/random_search.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <vector>

namespace {

// A move-only policy without name(): AnySearch must still hold it.
struct MoveOnlyPolicy {
  std::unique_ptr<int> calls = std::make_unique<int>(0);
  void start(aoe::SpaceView, std::uint64_t) { *calls = 0; }
  std::vector<aoe::Configuration> propose(std::size_t n) {
    ++*calls;
    return std::vector<aoe::Configuration>(n, aoe::Configuration{0});
  }
  void observe(std::span<const aoe::Trial>) { ++*calls; }
};

}  // namespace

TEST_CASE("AnySearch forwards to the policy it holds") {
  const aoe::Space space({aoe::range("x", 0, 9), aoe::range("y", 0, 4)});
  aoe::AnySearch any = aoe::GridSearch{};
  CHECK(any.name() == "grid");
  any.start(space, 1);
  aoe::GridSearch direct;
  direct.start(space, 1);
  CHECK(any.propose(7) == direct.propose(7));
  CHECK(any.target<aoe::GridSearch>() != nullptr);
  CHECK(any.target<aoe::RandomSearch>() == nullptr);
}

TEST_CASE("AnySearch holds move-only policies without a name") {
  const aoe::Space space({aoe::range("x", 0, 3)});
  aoe::AnySearch any = MoveOnlyPolicy{};
  CHECK(any.name() == "custom");
  any.start(space, 0);
  CHECK(any.propose(2).size() == 2);
  any.observe({});
  CHECK(*any.target<MoveOnlyPolicy>()->calls == 2);
  aoe::AnySearch moved = std::move(any);
  CHECK(moved);
  CHECK_FALSE(any);  // NOLINT(bugprone-use-after-move): moved-from is documented as empty
}

TEST_CASE("AnySearch is deterministic for a seed, like the policy it holds") {
  const aoe::Space space({aoe::range("x", 0, 99), aoe::range("y", 0, 99)});
  aoe::AnySearch a = aoe::RandomSearch{};
  aoe::AnySearch b = aoe::RandomSearch{};
  a.start(space, 42);
  b.start(space, 42);
  CHECK(a.propose(20) == b.propose(20));
}
