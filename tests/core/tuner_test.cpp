#include "support/landscapes.hpp"
#include <aoe/search/grid_search.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/tuner/memory_repository.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

using namespace aoe;
using aoe::test::bowl;
using aoe::test::LandscapeRunner;

namespace {

/// Proposes the same configuration forever.
struct Stubborn {
  void start(SpaceView, std::uint64_t) {}
  std::vector<Configuration> propose(std::size_t) { return {Configuration{0, 0, 0}}; }
  void observe(std::span<const Trial> t) { observed += t.size(); }
  std::size_t observed = 0;
};

/// Proposes one configuration out of bounds, then a valid one, then stops.
struct Careless {
  void start(SpaceView, std::uint64_t) { step = 0; }
  std::vector<Configuration> propose(std::size_t) {
    ++step;
    if (step == 1) return {Configuration{99, 0, 0}, Configuration{15, 15, 0}};
    if (step == 2) return {Configuration{1, 1, 0}};
    return {};
  }
  void observe(std::span<const Trial>) {}
  int step = 0;
};

struct CountingObserver {
  int starts = 0;
  int measurements = 0;
  int batches = 0;
  int finishes = 0;
  std::size_t stop_after = 0;
  void on_start(SpaceView, const TuningState&) { ++starts; }
  bool on_measurement(const Trial&, const TuningState& s) {
    ++measurements;
    return stop_after != 0 && s.evaluations >= stop_after;
  }
  void on_batch(std::span<const Trial>, const TuningState&) { ++batches; }
  void on_finish(const TuningResult&) { ++finishes; }
};

/// A runner on a device clock: each evaluation costs 0.25 s of device time.
struct DeviceClockRunner {
  static constexpr bool reports_device_time = true;
  std::vector<Measurement> measure(SpaceView, std::span<const Configuration> batch) {
    std::vector<Measurement> out;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      out.push_back(Measurement::success(1.0 + static_cast<double>(i), {}, 0.25));
    }
    return out;
  }
};

/// A measure policy that drops the last measurement of every batch: a user's bug.
struct ShortMeasure {
  std::vector<Measurement> measure(SpaceView, std::span<const Configuration> batch) {
    std::vector<Measurement> out;
    for (std::size_t i = 0; i + 1 < batch.size(); ++i) out.push_back(Measurement::success(1.0));
    return out;
  }
};

/// A repository whose every call fails, as an unwritable bank would.
struct BrokenRepository {
  [[nodiscard]] Result<std::optional<Record>> lookup(const TuningKey&) const {
    return make_error(Errc::io_error, "bank.json: permission denied");
  }
  Result<StoreOutcome> store(const Record&) {
    return make_error(Errc::io_error, "bank.json: permission denied");
  }
};

}  // namespace

TEST_CASE("the tuner finds the optimum and reports history, counts and time split") {
  const auto l = bowl();
  Tuner tuner(GridSearch{}, LandscapeRunner(l.evaluate));
  const auto result = tuner.tune(l.space, MaxEvaluations{100000});
  CHECK(result.reason == StopReason::exhausted);
  REQUIRE(result.found());
  CHECK(result.best_value == 1);
  CHECK(l.space.to_string(*result.best_configuration) == "x=11, y=4, z=4");
  CHECK(result.history.size() == l.valid);
  CHECK(result.count(Status::correct) + result.count(Status::compile) == l.valid);
  CHECK(result.count(Status::compile) > 0);
  CHECK(result.best_trial() != nullptr);
  CHECK(result.best_trial()->measurement.value == 1);
  CHECK(result.policy == "grid");
  for (std::size_t i = 0; i < result.history.size(); ++i) {
    CHECK(result.history[i].evaluation == i + 1);
    CHECK(result.history[i].finished >= result.history[i].started);
    if (i > 0) CHECK(result.history[i].started >= result.history[i - 1].finished);
  }
  CHECK(result.search_seconds >= 0);
  CHECK(result.measure_seconds >= 0);
  CHECK(result.total_seconds >= result.search_seconds);
}

TEST_CASE("a configuration proposed again is never measured again") {
  const auto l = bowl();
  Tuner tuner(Stubborn{}, LandscapeRunner(l.evaluate), MemoryRepository{},
              TunerOptions{.max_stalled = 10});
  const auto result = tuner.tune(l.space, MaxEvaluations{50});
  CHECK(tuner.measure().measured() == 1);
  CHECK(result.history.size() == 1);
  CHECK(result.reason == StopReason::stalled);
  CHECK(tuner.search().observed == 10);  // the measured one, then its recorded trial 9 times
}

TEST_CASE("an invalid proposal is recorded with status constraints and not measured") {
  const auto l = bowl();
  Tuner tuner(Careless{}, LandscapeRunner(l.evaluate), MemoryRepository{},
              TunerOptions{.batch_size = 2});
  const auto result = tuner.tune(l.space, MaxEvaluations{50});
  CHECK(tuner.measure().measured() == 1);
  REQUIRE(result.history.size() == 3);
  CHECK(result.count(Status::constraints) == 2);
  CHECK(result.history[0].measurement.message == "index out of range");
  CHECK(result.history[1].measurement.message == "violates constraint 'x + y <= 24'");
  CHECK(result.reason == StopReason::exhausted);
}

TEST_CASE("the repository is consulted first and the winner is stored") {
  const auto l = bowl();
  const TuningKey key{"bowl", "test"};
  Tuner tuner(RandomSearch{}, LandscapeRunner(l.evaluate), MemoryRepository{},
              TunerOptions{.seed = 4});

  const auto first = tuner.tune(l.space, key, MaxEvaluations{40});
  REQUIRE(first.found());
  CHECK(first.stored == StoreOutcome::added);
  const auto record = tuner.repository().lookup(key).value();
  REQUIRE(record.has_value());
  CHECK(record->value == first.best_value);
  CHECK(record->provenance.policy == "random");
  CHECK(record->provenance.evaluations == 40);
  CHECK(record->provenance.timestamp.size() == 20);

  const std::size_t measured = tuner.measure().measured();
  const auto second = tuner.tune(l.space, key, MaxEvaluations{40});
  CHECK(second.reason == StopReason::repository_hit);
  CHECK(second.history.empty());
  CHECK(tuner.measure().measured() == measured);
  CHECK(second.best_configuration == first.best_configuration);
  CHECK(second.best_value == first.best_value);

  // REPEAT_TUNE: tune again; the stored record is replaced only by a better one.
  tuner.options().reuse = false;
  tuner.options().seed = 5;
  const auto third = tuner.tune(l.space, key, MaxEvaluations{400});
  CHECK(third.reason != StopReason::repository_hit);
  CHECK(third.best_value <= first.best_value);
  CHECK(third.stored ==
        (third.best_value < first.best_value ? StoreOutcome::updated : StoreOutcome::kept));
}

TEST_CASE("a stored configuration that is not in the space is tuned again") {
  const auto l = bowl();
  MemoryRepository repo;
  (void)repo.store(Record{{"bowl", "test"}, {{"x", 99}, {"y", 1}, {"z", 1}}, 0.5, {}});
  Tuner tuner(GridSearch{}, LandscapeRunner(l.evaluate), std::move(repo));
  const auto result = tuner.tune(l.space, TuningKey{"bowl", "test"}, MaxEvaluations{5});
  CHECK(result.reason == StopReason::condition);
  CHECK(result.history.size() == 5);
  CHECK(result.stored == StoreOutcome::kept);  // 0.5 is better than anything measured
}

TEST_CASE("a failing repository is reported and does not lose the run") {
  const auto l = bowl();
  Tuner tuner(GridSearch{}, LandscapeRunner(l.evaluate), BrokenRepository{});
  const auto result = tuner.tune(l.space, TuningKey{"bowl", "test"}, MaxEvaluations{5});
  CHECK(result.found());
  CHECK(result.history.size() == 5);
  REQUIRE(result.repository_error.has_value());
  CHECK(result.repository_error->message == "bank.json: permission denied");
  CHECK_FALSE(result.stored.has_value());
}

TEST_CASE("observer hooks are called, and an observer can stop the run") {
  const auto l = bowl();
  Tuner tuner(GridSearch{}, LandscapeRunner(l.evaluate), MemoryRepository{},
              TunerOptions{.batch_size = 4});
  CountingObserver o;
  auto result = tuner.tune(l.space, MaxEvaluations{10}, o);
  CHECK(o.starts == 1);
  CHECK(o.measurements == 10);
  CHECK(o.batches == 3);  // 4 + 4 + 2: the last batch is cut to the budget
  CHECK(o.finishes == 1);
  CHECK(result.history.size() == 10);

  CountingObserver stopper;
  stopper.stop_after = 6;
  result = tuner.tune(l.space, MaxEvaluations{100}, stopper);
  CHECK(result.reason == StopReason::observer);
  CHECK(result.history.size() == 8);  // the batch in flight is completed
}

TEST_CASE("a runner's device clock drives the time budget") {
  using namespace std::chrono_literals;
  const auto l = bowl();
  Tuner tuner(GridSearch{}, DeviceClockRunner{}, MemoryRepository{}, TunerOptions{.batch_size = 2});
  const auto result = tuner.tune(l.space, MaxDuration{2s});
  // 8 evaluations cost 2 s of device time, plus a little search time.
  CHECK(result.history.size() >= 8);
  CHECK(result.history.size() <= 10);
  CHECK(result.measure_seconds == doctest::Approx(0.25 * result.history.size()));
  CHECK(result.history[1].started == doctest::Approx(result.history[0].finished));
}

TEST_CASE("NoImprovement ends a run that stopped improving") {
  const auto l = bowl();
  Tuner tuner(GridSearch{}, LandscapeRunner([](const Space&, const Configuration& c) {
                return Measurement::success(c[0] == 0 && c[1] == 0 && c[2] == 0 ? 1.0 : 2.0);
              }));
  const auto result = tuner.tune(l.space, MaxEvaluations{1000} || NoImprovement{20});
  CHECK(result.history.size() == 21);
  CHECK(result.reason == StopReason::condition);
}

TEST_CASE("a measure policy that returns too few measurements is an error in every build") {
  const auto l = bowl();
  Tuner tuner(GridSearch{}, ShortMeasure{}, MemoryRepository{}, TunerOptions{.batch_size = 4});
  try {
    (void)tuner.tune(l.space, MaxEvaluations{100});
    FAIL("expected aoe::Error");
  } catch (const Error& e) {
    CHECK(e.code() == make_error_code(Errc::invalid_argument));
    CHECK(std::string(e.what()).find("the measure policy returned 3 measurements for a batch of "
                                     "4 configurations") != std::string::npos);
  }
}

namespace {

/// x = 0..9 takes 1 + x / 10 seconds, except that x = 3's first measurement is a fluke of
/// 0.5 s (a quiet moment of a noisy machine); every later one gives its true 1.3 s.
struct FlukeRunner {
  std::map<std::uint32_t, int> measured;
  std::vector<std::vector<std::uint32_t>> batches;
  std::vector<Measurement> measure(SpaceView, std::span<const Configuration> batch) {
    std::vector<Measurement> out;
    batches.emplace_back();
    for (const auto& c : batch) {
      batches.back().push_back(c[0]);
      const bool fluke = c[0] == 3 && measured[c[0]]++ == 0;
      out.push_back(Measurement::success(fluke ? 0.5 : 1.0 + 0.1 * c[0]));
    }
    return out;
  }
};

Space ten() { return Space({values("x", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}); }

}  // namespace

TEST_CASE("without confirmation a fluke measurement decides the winner") {
  Tuner tuner(GridSearch{}, FlukeRunner{});
  const auto result = tuner.tune(ten(), MaxEvaluations{10});
  REQUIRE(result.found());
  CHECK((*result.best_configuration)[0] == 3);
  CHECK(result.best_value == 0.5);
  CHECK(result.confirmation.empty());
}

TEST_CASE("confirmation re-measures the best candidates and declares the lowest median best") {
  MemoryRepository repo;
  Tuner tuner(GridSearch{}, FlukeRunner{}, std::move(repo),
              TunerOptions{.confirm = {.candidates = 3, .rounds = 3}});
  const TuningKey key{"fluke-ten", "cpu"};
  const auto result = tuner.tune(ten(), key, MaxEvaluations{10});
  REQUIRE(result.found());
  CHECK((*result.best_configuration)[0] == 0);  // x = 3 measured 1.3 s three times more
  CHECK(result.best_value == doctest::Approx(1.0));
  CHECK(result.best_index == 0);
  CHECK(result.history.size() == 10);  // the re-measurements are not evaluations
  REQUIRE(result.confirmation.size() == 3);
  CHECK(result.history[result.confirmation[0].index].configuration[0] == 3);  // the fluke first
  CHECK(result.confirmation[0].values == std::vector<double>{0.5, 1.3, 1.3, 1.3});
  CHECK(result.confirmation[0].median == doctest::Approx(1.3));
  CHECK(result.history[result.confirmation[1].index].configuration[0] == 0);
  CHECK(result.history[result.confirmation[2].index].configuration[0] == 1);
  // Three rounds, each one batch of the three candidates, rotated.
  const auto& batches = tuner.measure().batches;
  REQUIRE(batches.size() == 13);  // 10 of the search, 3 of the confirmation
  CHECK(batches[10] == std::vector<std::uint32_t>{3, 0, 1});
  CHECK(batches[11] == std::vector<std::uint32_t>{0, 1, 3});
  CHECK(batches[12] == std::vector<std::uint32_t>{1, 3, 0});
  // What is stored is the confirmed winner with its median.
  const auto stored = tuner.repository().lookup(key);
  REQUIRE(stored.has_value());
  REQUIRE(stored->has_value());
  CHECK((*stored)->value == doctest::Approx(1.0));
}

TEST_CASE("confirmation of measurements that do not change keeps the search's best") {
  const auto l = bowl();
  Tuner plain(GridSearch{}, LandscapeRunner(l.evaluate));
  Tuner confirmed(GridSearch{}, LandscapeRunner(l.evaluate), MemoryRepository{},
                  TunerOptions{.confirm = {.candidates = 4, .rounds = 2}});
  const auto a = plain.tune(l.space, MaxEvaluations{200});
  const auto b = confirmed.tune(l.space, MaxEvaluations{200});
  REQUIRE(b.found());
  CHECK(*b.best_configuration == *a.best_configuration);
  CHECK(b.best_value == a.best_value);
  CHECK(b.confirmation.size() == 4);
  CHECK(b.history.size() == a.history.size());
}
