#include <aoe/tuner/memory_repository.hpp>

#include <doctest/doctest.h>

namespace repo_memory_repository_test {  // apart from this area's other files in a unity build

TEST_CASE("the memory repository adds, updates only with a better record, and keeps") {
  aoe::MemoryRepository repo;
  const aoe::TuningKey key{"gemm/1024", "host"};
  CHECK_FALSE(repo.lookup(key).value().has_value());

  aoe::Record r{key, {{"tile", 32}}, 2.0, {"random", 10, "2026-01-01T00:00:00Z"}};
  CHECK(repo.store(r).value() == aoe::StoreOutcome::added);
  r.value = 3.0;
  CHECK(repo.store(r).value() == aoe::StoreOutcome::kept);
  CHECK(repo.lookup(key).value()->value == 2.0);
  r.value = 1.0;
  r.configuration = {{"tile", 64}};
  CHECK(repo.store(r).value() == aoe::StoreOutcome::updated);
  const auto found = repo.lookup(key).value();
  REQUIRE(found.has_value());
  CHECK(found->configuration.front().value == aoe::Value(64));
  CHECK_FALSE(repo.lookup({"gemm/1024", "other device"}).value().has_value());
  CHECK(repo.size() == 1);
}

}  // namespace repo_memory_repository_test
