// aoe::Online: modes from the environment, serial determinism, confirmation and abandoning,
// regret, concurrent callers, a kill during tuning, a throwing kernel.
#include "support/temp_dir.hpp"
#include <aoe/online.hpp>
#include <aoe/repo/knowledge_bank.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/search/simulated_annealing.hpp>

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

// x, y in 0..15; the optimum is (11, 4). Costs in seconds, exact and deterministic.
aoe::Space grid_space() { return aoe::Space({aoe::range("x", 0, 15), aoe::range("y", 0, 15)}); }

double cost(const aoe::Space& space, const aoe::Configuration& c) {
  const double x = space.numeric(c, 0) - 11;
  const double y = space.numeric(c, 1) - 4;
  return 1e-3 * (1 + 0.1 * (x * x + y * y));
}

aoe::Environment environment(std::map<std::string, std::string> vars) {
  return aoe::read_environment([vars](const char* name) -> std::optional<std::string> {
           const auto it = vars.find(name);
           if (it == vars.end()) return std::nullopt;
           return it->second;
         })
      .value();
}

using RandomOnline = aoe::Online<aoe::RandomSearch>;

aoe::OnlineOptions tuning(std::uint64_t seed = 1) {
  aoe::OnlineOptions o;
  o.seed = seed;
  o.budget = 30;
  o.default_configuration = {{"x", 0}, {"y", 0}};
  o.mode = aoe::OnlineMode::tune;
  o.repeat_tune = false;
  o.summary_at_exit = false;
  return o;
}

// Calls `key` `n` times serially, each reporting the landscape's cost.
template <class O>
void drive(O& online, const aoe::TuningKey& key, int n) {
  for (int i = 0; i < n; ++i) {
    auto call = online.begin(key);
    call.end(cost(online.space(), call.configuration()));
  }
}

const aoe::TuningKey key_a{"landscape/a", "host"};
const aoe::TuningKey key_b{"landscape/b", "host"};

}  // namespace

TEST_CASE("online: the mode and REPEAT_TUNE come from AOE's environment") {
  aoe::test::TempDir dir("online_env");
  const auto make = [&](std::map<std::string, std::string> vars) {
    aoe::OnlineOptions o;
    o.environment = environment(std::move(vars));
    o.summary_at_exit = false;
    return std::make_unique<aoe::Online<aoe::RandomSearch, aoe::KnowledgeBank>>(grid_space(), o);
  };
  CHECK(make({})->mode() == aoe::OnlineMode::off);
  CHECK(make({{"AOE_MODE", "2"}})->mode() == aoe::OnlineMode::tune);
  CHECK(make({{"AOE_MODE", "1"}})->mode() == aoe::OnlineMode::off);  // another job's mode
  CHECK_FALSE(make({})->repeat_tune());
  CHECK(make({{"REPEAT_TUNE", "True"}})->repeat_tune());
  const auto banked = make({{"AOE_MODE", "2"}, {"TUNE_BANK_PATH", dir.path().string()}});
  CHECK(banked->repository().options().custom_root == dir.path());
  // An explicit option wins over the environment.
  aoe::OnlineOptions forced;
  forced.environment = environment({{"AOE_MODE", "2"}});
  forced.mode = aoe::OnlineMode::off;
  CHECK(RandomOnline(grid_space(), forced).mode() == aoe::OnlineMode::off);
  // An invalid variable is named.
  CHECK_THROWS_WITH_AS(environment({{"AOE_MODE", "3"}}), doctest::Contains("AOE_MODE='3'"),
                       aoe::Error);
  aoe::OnlineOptions bad_default = tuning();
  bad_default.default_configuration = {{"x", 99}};
  CHECK_THROWS_WITH_AS(RandomOnline(grid_space(), bad_default),
                       doctest::Contains("default_configuration {x=99}"), aoe::Error);
}

TEST_CASE("online: off uses the repository's record or the default and never measures") {
  aoe::MemoryRepository repo;
  REQUIRE(repo.store(aoe::Record{key_a, {{"x", 7}, {"y", 3}}, 1e-3, {}}).has_value());
  aoe::OnlineOptions o = tuning();
  o.mode = aoe::OnlineMode::off;
  aoe::Online<aoe::RandomSearch> online(grid_space(), o, aoe::RandomSearch(), repo);
  for (int i = 0; i < 3; ++i) {
    auto a = online.begin(key_a);
    CHECK_FALSE(a.measuring());
    CHECK(a.configuration() == aoe::Configuration{7, 3});
    a.end();
    auto b = online.begin(key_b);
    CHECK(b.configuration() == aoe::Configuration{0, 0});
    b.end(1.0);
  }
  const auto s = online.summary();
  REQUIRE(s.keys.size() == 2);
  CHECK(s.keys[0].source == aoe::OnlineSource::repository);
  CHECK(s.keys[1].source == aoe::OnlineSource::default_configuration);
  CHECK(s.keys[0].calls == 3);
  CHECK(s.keys[1].evaluations == 0);
  CHECK(online.history(key_b).empty());
}

TEST_CASE("online: tuning finds a better configuration, stores it, then uses it") {
  RandomOnline online(grid_space(), tuning());
  drive(online, key_a, 400);
  const auto s = online.summary().keys.at(0);
  CHECK_FALSE(s.tuning);
  CHECK(s.evaluations == 30);
  CHECK(s.source == aoe::OnlineSource::tuned);
  CHECK(s.best_seconds < s.default_seconds);
  const auto stored = online.repository().lookup(key_a);
  REQUIRE(stored->has_value());
  CHECK((*stored)->value == doctest::Approx(s.best_seconds));
  // Done: every call is the best, unmeasured.
  auto call = online.begin(key_a);
  CHECK_FALSE(call.measuring());
  CHECK(cost(online.space(), call.configuration()) == doctest::Approx(s.best_seconds));
  // Regret: what exploring cost beyond the best.
  CHECK(s.regret_seconds ==
        doctest::Approx(s.exploration_seconds -
                        static_cast<double>(s.exploration_calls) * s.best_seconds));
  CHECK(s.regret_seconds > 0);
}

TEST_CASE("online transfer: another device's winner is measured right after the default") {
  const aoe::Space space = grid_space();
  aoe::MemoryRepository repo;
  REQUIRE(repo.store({{key_a.problem, "other gpu"}, {{"x", 11}, {"y", 4}}, 2e-3, {}}).has_value());
  REQUIRE(repo.store({{key_b.problem, "other gpu"}, {{"x", 1}, {"y", 1}}, 2e-3, {}}).has_value());
  // Random search takes no warm start: the tuner measures the seed after the default. Simulated
  // annealing takes it as its first point. Either way the optimum is the second candidate.
  const auto second_is_optimum = [&](auto& online, const char* policy) {
    CAPTURE(policy);
    drive(online, key_a, 400);
    const auto h = online.history(key_a);
    REQUIRE(h.size() >= 2);
    CHECK(h[0].configuration == aoe::Configuration{0, 0});
    CHECK(h[1].configuration == aoe::Configuration{11, 4});
    const auto summary = online.summary();
    CHECK(summary.keys.at(0).transfer_seeds == 1);
    CHECK(summary.to_string().find(", 1 from other devices") != std::string::npos);
  };
  aoe::Online<aoe::RandomSearch, aoe::MemoryRepository> random(space, tuning(), aoe::RandomSearch(),
                                                               repo);
  second_is_optimum(random, "random");
  aoe::Online<aoe::SimulatedAnnealing<>, aoe::MemoryRepository> annealing(
      space, tuning(), aoe::SimulatedAnnealing<>(), repo);
  second_is_optimum(annealing, "annealing");
  // Off: nothing from other devices.
  auto off = tuning();
  off.transfer.enabled = false;
  aoe::Online<aoe::RandomSearch, aoe::MemoryRepository> plain(space, off, aoe::RandomSearch(),
                                                              repo);
  drive(plain, key_a, 50);
  CHECK(plain.summary().keys.at(0).transfer_seeds == 0);
  CHECK(plain.history(key_a).at(1).configuration != aoe::Configuration{11, 4});
  // Seeds planned elsewhere (OnlineOptions::transfer.seeds) go first, without a repository.
  auto given = tuning();
  given.transfer.seeds = {{11, 4}};
  aoe::Online<aoe::RandomSearch> seeded(space, given, aoe::RandomSearch());
  drive(seeded, key_b, 50);
  CHECK(seeded.history(key_b).at(1).configuration == aoe::Configuration{11, 4});
  CHECK(seeded.summary().keys.at(0).transfer_seeds == 1);
}

TEST_CASE(
    "online: a promising candidate is repeated before it wins; a far-slower one is "
    "abandoned after one call") {
  aoe::OnlineOptions o = tuning();
  o.default_configuration = {{"x", 11}, {"y", 5}};  // near the optimum: most are far slower
  o.confirmations = 4;
  o.abandon_factor = 1.5;
  RandomOnline online(grid_space(), o);
  drive(online, key_a, 300);
  const auto h = online.history(key_a);
  REQUIRE(h.size() == 30);
  CHECK(h[0].measurement.samples.size() == 4);  // the default: the first, promising
  const auto s = online.summary().keys.at(0);
  CHECK(s.abandoned > 0);
  std::size_t singles = 0;
  for (const auto& t : h) {
    const bool far = t.measurement.value > 1.5 * h[0].measurement.value;
    if (far) CHECK(t.measurement.samples.size() == 1);
    singles += t.measurement.samples.size() == 1 ? 1 : 0;
  }
  CHECK(singles >= s.abandoned);
  CHECK(s.exploration_calls > 30);  // repeats happened
}

TEST_CASE("online: serial calls give identical results for a seed") {
  const auto run = [](std::uint64_t seed) {
    aoe::Online<aoe::SimulatedAnnealing<>> online(grid_space(), tuning(seed));
    for (int i = 0; i < 200; ++i) {
      drive(online, key_a, 1);
      drive(online, key_b, 1);
    }
    std::vector<aoe::Configuration> out;
    for (const auto& k : {key_a, key_b}) {
      for (const auto& t : online.history(k)) out.push_back(t.configuration);
    }
    return out;
  };
  const auto first = run(5);
  CHECK(first.size() == 60);
  CHECK(run(5) == first);
  CHECK(run(6) != first);
}

TEST_CASE(
    "online: a kernel that throws is recorded as failed, never proposed again, and the "
    "exception reaches the caller") {
  aoe::OnlineOptions o = tuning();
  o.budget = 256;  // the whole space
  RandomOnline online(grid_space(), o);
  const auto kernel = [&](const aoe::Configuration& c) {
    if (c[0] == 3) throw std::runtime_error("x = 3 is not supported");
  };
  std::size_t thrown = 0;
  for (int i = 0; i < 2000; ++i) {
    try {
      online.run(key_a, kernel);
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "x = 3 is not supported");
      ++thrown;
    }
  }
  const auto h = online.history(key_a);
  REQUIRE(h.size() == 256);
  std::size_t failed = 0;
  for (const auto& t : h) {
    if (t.configuration[0] == 3) {
      CHECK(t.measurement.status == aoe::Status::runtime);
      CHECK(t.measurement.message == "x = 3 is not supported");
      ++failed;
    } else {
      CHECK(t.measurement.ok());
    }
  }
  CHECK(failed == 16);
  CHECK(thrown == 16);  // each failing configuration ran once
  CHECK(online.summary().keys.at(0).failed == 16);

  // Without run(): an exception leaving the call's scope marks the candidate failed too.
  RandomOnline manual(grid_space(), tuning());
  try {
    auto call = manual.begin(key_b);
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  const auto mh = manual.history(key_b);
  REQUIRE(mh.size() == 1);
  CHECK(mh[0].measurement.status == aoe::Status::runtime);
}

TEST_CASE("online: concurrent callers on many keys; others use the best so far") {
  aoe::OnlineOptions o = tuning();
  o.budget = 20;
  aoe::Online<aoe::SimulatedAnnealing<>> online(grid_space(), o);
  constexpr int threads = 4;
  constexpr int keys = 40;  // more than the first key table holds: it grows under the callers
  constexpr int calls = 1000;
  std::atomic<int> unmeasured{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = 0; i < calls; ++i) {
        const aoe::TuningKey key{"k" + std::to_string((i + t) % keys), "host"};
        auto call = online.begin(key);
        if (!call.measuring()) unmeasured.fetch_add(1);
        call.end(cost(online.space(), call.configuration()));
      }
    });
  }
  for (auto& th : pool) th.join();
  const auto s = online.summary();
  REQUIRE(s.keys.size() == keys);
  CHECK(s.calls() == threads * calls);
  for (const auto& k : s.keys) {
    CHECK(k.evaluations <= 20);
    CHECK(k.best_seconds <= k.default_seconds);
    CHECK(online.history(k.key).size() == k.evaluations);
  }
  CHECK(unmeasured.load() > 0);
}

TEST_CASE("online: a kill -9 during tuning loses nothing but the current candidate") {
  aoe::test::TempDir dir("online_kill");
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(fds[0]);
    // Reports each new best after the repository has it.
    struct Reporter {
      int fd;
      void on_measurement(const aoe::Trial& t, const aoe::TuningState& s) {
        if (s.best_index + 1 != t.evaluation) return;
        const double v = t.measurement.value;
        if (::write(fd, &v, sizeof v) != sizeof v) ::_exit(3);
      }
    } reporter{fds[1]};
    aoe::OnlineOptions o = tuning();
    o.budget = 256;
    o.confirmations = 1;
    aoe::Online<aoe::RandomSearch, aoe::KnowledgeBank> online(
        grid_space(), o, aoe::RandomSearch(),
        aoe::KnowledgeBank({.custom_root = dir.path(), .durable = false}));
    online.add_observer(reporter);
    while (true) {
      auto call = online.begin(key_a);
      ::usleep(2000);
      call.end(cost(online.space(), call.configuration()));
    }
  }
  ::close(fds[1]);
  std::vector<double> reported;
  double v = 0;
  while (reported.size() < 3 && ::read(fds[0], &v, sizeof v) == sizeof v) reported.push_back(v);
  REQUIRE(reported.size() == 3);
  ::usleep(7000);  // somewhere in a later candidate
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  while (::read(fds[0], &v, sizeof v) == sizeof v) reported.push_back(v);
  ::close(fds[0]);

  aoe::KnowledgeBank bank({.custom_root = dir.path()});
  const auto stored = bank.lookup(key_a);
  REQUIRE(stored.has_value());  // the file reads back
  REQUIRE(stored->has_value());
  // Every winner reported before the kill is in the bank (one stored but not yet reported may
  // be better still).
  CHECK((*stored)->value <= reported.back());
  CHECK((*stored)->value ==
        doctest::Approx(cost(grid_space(), *grid_space().find((*stored)->configuration))));
  // (A temporary file of a write the kill interrupted may remain beside it; the bank file itself
  // is always whole: it is replaced by rename.)
}

TEST_CASE("online: the next run uses what the tuning run stored in the bank") {
  aoe::test::TempDir dir("online_next");
  double best = 0;
  {
    aoe::Online<aoe::RandomSearch, aoe::KnowledgeBank> online(
        grid_space(), tuning(), aoe::RandomSearch(),
        aoe::KnowledgeBank({.custom_root = dir.path()}));
    drive(online, key_a, 300);
    best = online.summary().keys.at(0).best_seconds;
  }
  aoe::OnlineOptions o = tuning();
  o.environment = environment({{"TUNE_BANK_PATH", dir.path().string()}});
  o.mode.reset();
  aoe::Online<aoe::RandomSearch, aoe::KnowledgeBank> next(grid_space(), o);
  CHECK(next.mode() == aoe::OnlineMode::off);
  auto call = next.begin(key_a);
  CHECK_FALSE(call.measuring());
  CHECK(cost(next.space(), call.configuration()) == doctest::Approx(best));
  CHECK(next.summary().keys.at(0).source == aoe::OnlineSource::repository);
}

TEST_CASE("online: a key the repository holds is tuned again only with REPEAT_TUNE") {
  aoe::MemoryRepository repo;
  REQUIRE(repo.store(aoe::Record{key_a, {{"x", 7}, {"y", 3}}, 1.0, {}}).has_value());
  for (const bool repeat : {false, true}) {
    CAPTURE(repeat);
    aoe::OnlineOptions o = tuning();
    o.repeat_tune = repeat;
    aoe::Online<aoe::RandomSearch> online(grid_space(), o, aoe::RandomSearch(), repo);
    drive(online, key_a, 200);
    const auto s = online.summary().keys.at(0);
    if (repeat) {
      CHECK(s.evaluations == 30);
      CHECK(s.source == aoe::OnlineSource::tuned);
      // The stored configuration was measured again among the first candidates.
      const auto h = online.history(key_a);
      CHECK(h.at(1).configuration == aoe::Configuration{7, 3});
      CHECK(online.repository().lookup(key_a).value()->value < 1.0);
    } else {
      CHECK(s.evaluations == 0);
      CHECK(s.source == aoe::OnlineSource::repository);
      CHECK(online.begin(key_a).configuration() == aoe::Configuration{7, 3});
    }
  }
}

TEST_CASE("online: while a key's candidate runs, other calls of the key get the best so far") {
  RandomOnline online(grid_space(), tuning());
  drive(online, key_a, 5);  // the default, confirmed: the best so far
  auto running = online.begin(key_a);
  REQUIRE(running.measuring());
  std::optional<aoe::Configuration> other;
  std::thread([&] {
    auto call = online.begin(key_a);
    CHECK_FALSE(call.measuring());
    other = call.configuration();
  }).join();
  CHECK(other == aoe::Configuration{0, 0});
  running.end(cost(online.space(), running.configuration()));
}

TEST_CASE("online: observers see each key's start, candidates and result; true stops the key") {
  struct Watch {
    int starts = 0;
    int measured = 0;
    std::vector<aoe::TuningResult> results;
    std::size_t stop_after = 0;  // 0: never
    void on_start(aoe::SpaceView, const aoe::TuningState&) { ++starts; }
    bool on_measurement(const aoe::Trial&, const aoe::TuningState& s) {
      ++measured;
      return stop_after != 0 && s.evaluations >= stop_after;
    }
    void on_finish(const aoe::TuningResult& r) { results.push_back(r); }
  };
  Watch all;
  Watch stopper;
  stopper.stop_after = 7;
  RandomOnline online(grid_space(), tuning());
  online.add_observer(all);
  drive(online, key_a, 300);
  online.add_observer(stopper);
  drive(online, key_b, 300);
  CHECK(all.starts == 2);
  CHECK(all.measured == 37);
  REQUIRE(all.results.size() == 2);
  CHECK(all.results[0].history.size() == 30);
  CHECK(all.results[0].reason == aoe::StopReason::condition);
  CHECK(all.results[0].best_value == doctest::Approx(online.summary().keys[0].best_seconds));
  CHECK(all.results[1].reason == aoe::StopReason::observer);
  CHECK(all.results[1].history.size() == 7);
  CHECK(stopper.results.size() == 1);
}
