#include "support/landscapes.hpp"
#include "support/temp_dir.hpp"
#include <aoe/export/history.hpp>
#include <aoe/repo/sqlite/export.hpp>
#include <aoe/repo/sqlite/tuning_database.hpp>
#include <aoe/search/evolutionary.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/space/fingerprint.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace aoe;
using aoe::test::TempDir;

static_assert(repository_policy<TuningDatabase>);
static_assert(fingerprinted_repository<TuningDatabase>);
static_assert(trial_log<TuningDatabase>);
static_assert(!trial_log<MemoryRepository>);

namespace {

Record make_record(double value) {
  return Record{TuningKey{"transpose/n=2048/f32", "host"},
                {{"tile", 32}, {"unroll", 0.5}, {"order", "ij"}, {"text_number", "16"}},
                value,
                Provenance{"random", 40, "2026-11-24T13:00:00Z"}};
}

/// Measures the bowl landscape; throws at one evaluation to interrupt a run (as a crash would).
struct InterruptingRunner {
  test::Landscape landscape = test::bowl();
  std::size_t throw_at = 0;  ///< 0: never
  std::size_t measured = 0;
  std::vector<Measurement> measure(SpaceView view, std::span<const Configuration> batch) {
    std::vector<Measurement> out;
    for (const auto& c : batch) {
      if (++measured == throw_at) throw std::runtime_error("interrupted");
      out.push_back(landscape.evaluate(view.space(), c));
    }
    return out;
  }
};

void check_same_history(const TuningResult& a, const TuningResult& b) {
  REQUIRE(a.history.size() == b.history.size());
  for (std::size_t i = 0; i < a.history.size(); ++i) {
    CAPTURE(i);
    CHECK(a.history[i].configuration == b.history[i].configuration);
    CHECK(a.history[i].measurement.status == b.history[i].measurement.status);
    CHECK(a.history[i].measurement.value == b.history[i].measurement.value);
    CHECK(a.history[i].evaluation == b.history[i].evaluation);
  }
  CHECK(a.best_value == b.best_value);
  CHECK(a.best_configuration == b.best_configuration);
}

template <class Search>
void resume_equals_uninterrupted(std::size_t batch, std::size_t throw_at) {
  TempDir dir("sqlite_resume");
  const auto l = test::bowl();
  const TuningKey key{"bowl", "test"};
  const TunerOptions options{.seed = 11, .batch_size = batch};
  const MaxEvaluations budget{60};

  Tuner straight(Search{}, InterruptingRunner{}, TuningDatabase(dir.file("a.db")), options);
  const TuningResult expected = straight.tune(l.space, key, budget);
  REQUIRE(expected.history.size() == 60);

  {
    Tuner first(Search{}, InterruptingRunner{.throw_at = throw_at},
                TuningDatabase(dir.file("b.db")), options);
    CHECK_THROWS_AS(first.tune(l.space, key, budget), std::runtime_error);
  }
  Tuner second(Search{}, InterruptingRunner{}, TuningDatabase(dir.file("b.db")), options);
  const TuningResult resumed = second.tune(l.space, key, budget);
  CHECK_FALSE(resumed.repository_error);
  // Whole batches before the failing one were logged; the failing batch is measured again.
  const std::size_t logged = (throw_at - 1) / batch * batch;
  CHECK(resumed.replayed == logged);
  CHECK(second.measure().measured == 60 - logged);
  check_same_history(expected, resumed);

  // One run, finished, with all its trials.
  auto runs = second.repository().runs();
  REQUIRE(runs.has_value());
  REQUIRE(runs->size() == 1);
  CHECK((*runs)[0].trials == 60);
  CHECK((*runs)[0].reason == "condition");
  CHECK_FALSE((*runs)[0].finished_at.empty());
}

/// The landscape's runner with a `timing()`: the tuner writes it into the runs and records it
/// stores (timed_measure).
struct TimedRunner {
  test::LandscapeRunner runner;
  Timing provenance;
  std::vector<Measurement> measure(SpaceView view, std::span<const Configuration> batch) {
    return runner.measure(view, batch);
  }
  [[nodiscard]] Timing timing() const { return provenance; }
};
static_assert(timed_measure<TimedRunner>);
static_assert(!timed_measure<test::LandscapeRunner>);

const Timing model_time{TimingKind::simulated, "test model 1.0"};
const Timing device_time{TimingKind::measured, "test device 0"};

TimedRunner timed_runner(const test::Landscape& l, const Timing& t) {
  return TimedRunner{test::LandscapeRunner(l.evaluate), t};
}

/// The version-1 schema as the first release wrote it, with one finished run, its trial and
/// its best record.
void write_version_1_database(const std::string& path) {
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &raw) == SQLITE_OK);
  const char* sql = R"sql(
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (name, value) VALUES ('schema_version', '1');
CREATE TABLE runs (
  id INTEGER PRIMARY KEY, problem TEXT NOT NULL, device TEXT NOT NULL,
  space_fingerprint TEXT NOT NULL, seed INTEGER NOT NULL, policy TEXT NOT NULL,
  batch_size INTEGER NOT NULL, parameters TEXT NOT NULL, started_at TEXT NOT NULL,
  finished_at TEXT, reason TEXT, evaluations INTEGER, best_value REAL, total_seconds REAL,
  host TEXT NOT NULL, pid INTEGER NOT NULL, resumed INTEGER NOT NULL DEFAULT 0);
CREATE INDEX runs_by_key ON runs (problem, device, space_fingerprint, seed, policy);
CREATE TABLE trials (
  run_id INTEGER NOT NULL REFERENCES runs (id), evaluation INTEGER NOT NULL,
  configuration TEXT NOT NULL, status TEXT NOT NULL, value REAL, samples TEXT NOT NULL,
  message TEXT NOT NULL, cost REAL NOT NULL, started REAL NOT NULL, finished REAL NOT NULL,
  recorded_at TEXT NOT NULL, PRIMARY KEY (run_id, evaluation));
CREATE TABLE best (
  problem TEXT NOT NULL, device TEXT NOT NULL, space_fingerprint TEXT NOT NULL,
  configuration TEXT NOT NULL, value REAL NOT NULL, policy TEXT NOT NULL,
  evaluations INTEGER NOT NULL, timestamp TEXT NOT NULL, run_id INTEGER,
  PRIMARY KEY (problem, device, space_fingerprint));
INSERT INTO runs VALUES (1, 'old', 'host', 'f00d', 3, 'random', 1, 'tile',
  '2026-11-01T10:00:00Z', '2026-11-01T10:00:01Z', 'condition', 1, 0.25, 1.0, 'h', 1, 0);
INSERT INTO trials VALUES (1, 1, '{"tile": 8}', 'correct', 0.25, '[0.25]', '', 0.25, 0, 1,
  '2026-11-01T10:00:01Z');
INSERT INTO best VALUES ('old', 'host', 'f00d', '{"tile": 8}', 0.25, 'random', 1,
  '2026-11-01T10:00:01Z', 1);
)sql";
  REQUIRE(sqlite3_exec(raw, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(raw);
}

/// The schema_version a file says, read with SQLite itself.
std::string file_schema_version(const std::string& path) {
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &raw) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(raw, "SELECT value FROM meta WHERE name = 'schema_version'", -1, &s,
                             nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  std::string v(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
  sqlite3_finalize(s);
  sqlite3_close(raw);
  return v;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("tuning database: store and lookup any key, values keep their type") {
  TempDir dir("sqlite_store");
  TuningDatabase db(dir.file("t.db"));
  CHECK(db.lookup(make_record(1).key).value() == std::nullopt);
  CHECK(db.store(make_record(2.0)).value() == StoreOutcome::added);
  CHECK(db.store(make_record(3.0)).value() == StoreOutcome::kept);
  CHECK(db.store(make_record(1.5)).value() == StoreOutcome::updated);

  TuningDatabase again(dir.file("t.db"));  // a second connection reads what the first wrote
  const auto found = again.lookup(make_record(0).key).value();
  REQUIRE(found);
  CHECK(found->value == 1.5);
  CHECK(found->provenance.policy == "random");
  CHECK(found->provenance.evaluations == 40);
  CHECK(found->provenance.timestamp == "2026-11-24T13:00:00Z");
  REQUIRE(found->configuration.size() == 4);
  CHECK(found->configuration[0].value.is_integer());
  CHECK(found->configuration[0].value.as_integer() == 32);
  CHECK(found->configuration[1].value.is_real());
  CHECK(found->configuration[1].value.as_real() == 0.5);
  CHECK(found->configuration[2].value.as_text() == "ij");
  CHECK(found->configuration[3].value.is_text());
  CHECK(found->configuration[3].value.as_text() == "16");
  CHECK(again.lookup(TuningKey{"transpose/n=2048/f32", "other"}).value() == std::nullopt);
}

TEST_CASE("tuning database: other devices' runs are transfer sources for a new device") {
  static_assert(transfer_repository<TuningDatabase>);
  TempDir dir("sqlite_transfer");
  const auto l = test::bowl();
  const TunerOptions options{.seed = 5};
  std::vector<std::size_t> correct;
  for (const char* device : {"gpu-a", "gpu-b"}) {
    Tuner tuner(RandomSearch{}, InterruptingRunner{}, TuningDatabase(dir.file("t.db")), options);
    const auto r = tuner.tune(l.space, TuningKey{"bowl", device}, MaxEvaluations{40});
    // gpu-b starts from gpu-a's two best.
    CHECK(r.transfer.seeds == (correct.empty() ? 0 : 2));
    correct.push_back(r.count(Status::correct));
  }
  TuningDatabase db(dir.file("t.db"));
  const auto sources = db.transfer_sources(TuningKey{"bowl", "new"});
  REQUIRE(sources.has_value());
  REQUIRE(sources->size() == 2);
  std::vector<double> best;
  for (std::size_t i = 0; i < 2; ++i) {
    const TransferSource& s = (*sources)[i];
    CHECK(s.device == (i == 0 ? "gpu-a" : "gpu-b"));
    CHECK(s.points.size() == correct[i] + 1);  // its best record and its correct trials
    best.push_back(HUGE_VAL);
    for (const auto& p : s.points) {
      CHECK(l.space.find(p.configuration).has_value());
      best.back() = std::min(best.back(), p.value);
    }
  }
  CHECK(db.transfer_sources(TuningKey{"bowl", "gpu-a"}).value().size() == 1);
  CHECK(db.transfer_sources(TuningKey{"bowl#objective=energy", "new"}).value().empty());

  // A new device starts from both. gpu-b measured gpu-a's two best, so gpu-a's weight is known
  // (the fraction of gpu-b's optimum they reached); the first trial is the most trusted
  // source's best.
  Tuner tuner(RandomSearch{}, InterruptingRunner{}, std::move(db), TunerOptions{.seed = 9});
  const auto r = tuner.tune(l.space, TuningKey{"bowl", "new"}, MaxEvaluations{10});
  REQUIRE(r.transfer.sources.size() == 2);
  const auto& a =
      r.transfer.sources[0].device == "gpu-a" ? r.transfer.sources[0] : r.transfer.sources[1];
  CHECK(a.predicted == 1);
  CHECK(a.weight == doctest::Approx(best[1] / best[0]));
  const bool a_first = r.transfer.sources[0].device == "gpu-a";
  CHECK(r.history[0].measurement.value == doctest::Approx(best[a_first ? 0 : 1]));
}

TEST_CASE("tuning database: a pareto record keeps its front; a file of time records no table") {
  TempDir dir("sqlite_front");
  const auto has_fronts = [&] {
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(dir.file("t.db").c_str(), &raw) == SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(raw, "SELECT 1 FROM sqlite_master WHERE name = 'fronts'", -1, &s,
                               nullptr) == SQLITE_OK);
    const bool found = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    sqlite3_close(raw);
    return found;
  };
  TuningDatabase db(dir.file("t.db"));
  REQUIRE(db.store(make_record(2.0)).value() == StoreOutcome::added);
  CHECK_FALSE(has_fronts());  // time records only: the schema as before
  CHECK(db.lookup(make_record(0).key).value()->front.empty());
  Record pareto = make_record(1e-6);
  pareto.key.problem += "#objective=pareto:knee";
  pareto.front = {{{{"tile", 16}, {"unroll", 0.25}}, 1e-4, 2e-2},
                  {{{"tile", 32}, {"unroll", 0.5}, {"order", "ij"}}, 2e-4, 1e-2}};
  REQUIRE(db.store(pareto).value() == StoreOutcome::added);
  CHECK(has_fronts());
  TuningDatabase again(dir.file("t.db"));
  const auto found = again.lookup(pareto.key).value();
  REQUIRE(found);
  CHECK(found->front == pareto.front);
  CHECK(again.lookup(make_record(0).key).value()->front.empty());
  // A better record replaces the front with its own; one without a front leaves none.
  pareto.value = 5e-7;
  pareto.front.pop_back();
  REQUIRE(again.store(pareto).value() == StoreOutcome::updated);
  CHECK(db.lookup(pareto.key).value()->front == pareto.front);
  pareto.value = 1e-7;
  pareto.front.clear();
  REQUIRE(again.store(pareto).value() == StoreOutcome::updated);
  CHECK(db.lookup(pareto.key).value()->front.empty());
}

TEST_CASE("tuning database: a record tuned on another space is a miss") {
  TempDir dir("sqlite_fingerprint");
  TuningDatabase db(dir.file("t.db"));
  const auto rec = make_record(1);
  CHECK(db.store(rec, "aaaa").value() == StoreOutcome::added);
  CHECK(db.lookup(rec.key, "aaaa").value().has_value());
  CHECK(db.lookup(rec.key, "bbbb").value() == std::nullopt);
  CHECK(db.lookup(rec.key).value() == std::nullopt);  // no fingerprint: another entry

  // Through the tuner: changing the space changes the fingerprint, so the run tunes again.
  const auto l = test::bowl();
  const TuningKey key{"bowl", "test"};
  Tuner tuner(RandomSearch{}, test::LandscapeRunner(l.evaluate), std::move(db),
              TunerOptions{.seed = 3});
  const auto first = tuner.tune(l.space, key, MaxEvaluations{20});
  CHECK(first.stored == StoreOutcome::added);
  CHECK(tuner.tune(l.space, key, MaxEvaluations{20}).reason == StopReason::repository_hit);
  const Space narrower({range("x", 0, 15), range("y", 0, 15), pow2("z", 1, 8)},
                       {sum_at_most({"x", "y"}, 24)});
  CHECK(space_fingerprint(narrower) != space_fingerprint(l.space));
  const auto other = tuner.tune(narrower, key, MaxEvaluations{20});
  CHECK(other.reason == StopReason::condition);
  CHECK(other.stored == StoreOutcome::added);
}

TEST_CASE("tuning database: WAL mode, run metadata and every trial kept") {
  TempDir dir("sqlite_runs");
  const auto l = test::bowl();
  Tuner tuner(RandomSearch{}, test::LandscapeRunner(l.evaluate), TuningDatabase(dir.file("t.db")),
              TunerOptions{.seed = 5, .batch_size = 3});
  const auto r = tuner.tune(l.space, TuningKey{"bowl", "host"}, MaxEvaluations{30});
  CHECK_FALSE(r.repository_error);
  CHECK(r.replayed == 0);

  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(dir.file("t.db").c_str(), &raw) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &s, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))) == "wal");
  sqlite3_finalize(s);
  sqlite3_close(raw);

  const auto& db = tuner.repository();
  const auto runs = db.runs().value();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].info.key == TuningKey{"bowl", "host"});
  CHECK(runs[0].info.seed == 5);
  CHECK(runs[0].info.policy == "random");
  CHECK(runs[0].info.batch_size == 3);
  CHECK(runs[0].info.space_fingerprint == space_fingerprint(l.space));
  CHECK(runs[0].info.parameters == std::vector<std::string>{"x", "y", "z"});
  CHECK(runs[0].best_value == r.best_value);
  const auto trials = db.trials(runs[0].id).value();
  REQUIRE(trials.size() == r.history.size());
  for (std::size_t i = 0; i < trials.size(); ++i) {
    CHECK(trials[i].configuration == l.space.named_values(r.history[i].configuration));
    CHECK(trials[i].measurement.status == r.history[i].measurement.status);
    CHECK(trials[i].measurement.value == r.history[i].measurement.value);
    CHECK(trials[i].measurement.message == r.history[i].measurement.message);
    CHECK(trials[i].evaluation == i + 1);
  }
  const auto best = db.best_records().value();
  REQUIRE(best.size() == 1);
  CHECK(best[0].first == space_fingerprint(l.space));
  CHECK(best[0].second.value == r.best_value);
}

TEST_CASE("tuning database: errors name the file") {
  TempDir dir("sqlite_errors");
  const std::string junk = dir.write("junk.db", std::string(4096, 'x'));
  auto bad = TuningDatabase::open(junk);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find(junk) != std::string::npos);

  const std::string missing = dir.file("no/such/dir/t.db");
  auto none = TuningDatabase::open(missing);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().message.find(missing) != std::string::npos);
  CHECK_THROWS_AS(TuningDatabase{missing}, Error);

  auto ro = TuningDatabase::open(dir.file("absent.db"), DatabaseOptions{.read_only = true});
  REQUIRE_FALSE(ro.has_value());
  CHECK(ro.error().message.find("absent.db") != std::string::npos);
}

TEST_CASE("tuning database: two connections share one file") {
  TempDir dir("sqlite_shared");
  TuningDatabase a(dir.file("t.db"));
  TuningDatabase b(dir.file("t.db"));
  for (int i = 0; i < 20; ++i) {
    Record r = make_record(10 - i * 0.1);
    r.key.problem = "p" + std::to_string(i % 4);
    REQUIRE((i % 2 == 0 ? a : b).store(r).has_value());
  }
  const auto best = a.best_records().value();
  REQUIRE(best.size() == 4);
  for (const auto& [fp, rec] : best) CHECK(rec.value < 9.0);
}

TEST_CASE("tuning database: runs and best records keep their timing, or say nothing") {
  TempDir dir("sqlite_timing");
  const auto l = test::bowl();
  Tuner tuner(RandomSearch{}, timed_runner(l, model_time), TuningDatabase(dir.file("t.db")),
              TunerOptions{.seed = 2});
  const TuningKey key{"bowl", "host"};
  CHECK(tuner.tune(l.space, key, MaxEvaluations{10}).stored == StoreOutcome::added);
  const auto& db = tuner.repository();
  const auto runs = db.runs().value();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].info.timing == model_time);
  const auto found = db.lookup(key, space_fingerprint(l.space)).value();
  REQUIRE(found);
  CHECK(found->provenance.timing == model_time);
  const auto best = db.best_records().value();
  REQUIRE(best.size() == 1);
  CHECK(best[0].second.provenance.timing == model_time);

  // A runner that does not say, and a record stored without it: none, not a default kind.
  Tuner unsaid(RandomSearch{}, test::LandscapeRunner(l.evaluate), TuningDatabase(dir.file("t.db")),
               TunerOptions{.seed = 2});
  CHECK(unsaid.tune(l.space, TuningKey{"bowl", "other"}, MaxEvaluations{10}).stored ==
        StoreOutcome::added);
  CHECK(unsaid.repository().runs().value().at(1).info.timing == std::nullopt);
  REQUIRE(unsaid.repository().store(make_record(1)).has_value());
  CHECK(unsaid.repository().lookup(make_record(1).key).value()->provenance.timing == std::nullopt);

  // Export: the run's kind and source on each of its trials; empty for the unsaid run.
  std::ostringstream csv;
  export_runs(db).value().write_csv(csv);
  CHECK(csv.str().find(",2,random,simulated,test model 1.0,1,") != std::string::npos);
  CHECK(csv.str().find(",2,random,,,1,") != std::string::npos);
  std::ostringstream jsonl;
  export_runs(db, RunFilter{.run = 1}).value().write_json_lines(jsonl);
  CHECK(jsonl.str().find("\"policy\":\"random\",\"timing\":\"simulated\",\"timing_source\":"
                         "\"test model 1.0\",\"evaluation\":1,") != std::string::npos);

  // A kind this build does not know is an error that names the file and the text.
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(dir.file("t.db").c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "UPDATE best SET timing_kind = 'guessed'", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
  sqlite3_close(raw);
  const auto bad = db.best_records();
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().code == make_error_code(Errc::schema_error));
  CHECK(bad.error().message.find("t.db") != std::string::npos);
  CHECK(bad.error().message.find("unknown timing_kind 'guessed'") != std::string::npos);
  CHECK_FALSE(db.lookup(key, space_fingerprint(l.space)).has_value());
}

TEST_CASE("tuning database: a version-1 file is read as it is, then migrated in place") {
  TempDir dir("sqlite_migrate");
  const std::string path = dir.file("v1.db");
  write_version_1_database(path);
  {
    // Read-only: not migrated (aoe-db on an old file); its rows say nothing of their timing.
    auto ro = TuningDatabase::open(path, DatabaseOptions{.read_only = true});
    REQUIRE(ro.has_value());
    const auto runs = ro->runs().value();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].info.key == TuningKey{"old", "host"});
    CHECK(runs[0].info.timing == std::nullopt);
    const auto rec = ro->lookup(TuningKey{"old", "host"}, "f00d").value();
    REQUIRE(rec);
    CHECK(rec->value == 0.25);
    CHECK(rec->provenance.timing == std::nullopt);
    std::ostringstream csv;
    export_runs(*ro).value().write_csv(csv);
    CHECK(csv.str().find("1,old,host,f00d,3,random,,,1,8,correct,0.25,") != std::string::npos);
  }
  CHECK(file_schema_version(path) == "1");

  TuningDatabase db(path);  // for writing: migrated
  CHECK(file_schema_version(path) == "2");
  CHECK(db.runs().value().at(0).info.timing == std::nullopt);
  const auto rec = db.lookup(TuningKey{"old", "host"}, "f00d").value();
  REQUIRE(rec);
  CHECK(rec->configuration.at(0).value.as_integer() == 8);
  CHECK(rec->provenance.timing == std::nullopt);
  CHECK(db.trials(1).value().size() == 1);
  // The migrated file takes timed records: a measured one replaces the old unsaid one.
  Record measured = *rec;
  measured.value = 0.5;
  measured.provenance.timing = device_time;
  CHECK(db.store(measured, "f00d").value() == StoreOutcome::updated);
  CHECK(TuningDatabase(path).lookup(rec->key, "f00d").value()->provenance.timing == device_time);
  CHECK(file_schema_version(path) == "2");  // opening a version-2 file again changes nothing

  // A version this build does not know is refused, naming the file.
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "UPDATE meta SET value = '3' WHERE name = 'schema_version'", nullptr,
                       nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(raw);
  for (const bool read_only : {false, true}) {
    auto newer = TuningDatabase::open(path, DatabaseOptions{.read_only = read_only});
    REQUIRE_FALSE(newer.has_value());
    CHECK(newer.error().code == make_error_code(Errc::unsupported_version));
    CHECK(newer.error().message.find("v1.db") != std::string::npos);
  }
}

TEST_CASE("tuning database: a model's time is not a device's winner") {
  TempDir dir("sqlite_hint");
  const auto l = test::bowl();
  const TuningKey key{"bowl", "device"};
  const std::string fp = space_fingerprint(l.space);
  Tuner model(RandomSearch{}, timed_runner(l, model_time), TuningDatabase(dir.file("t.db")),
              TunerOptions{.seed = 6});
  const auto simulated = model.tune(l.space, key, MaxEvaluations{20});
  REQUIRE(simulated.stored == StoreOutcome::added);
  // Make the model's record far better than anything the device can measure.
  Record too_good = model.repository().lookup(key, fp).value().value();
  too_good.value = -1e9;
  CHECK(model.repository().store(too_good, fp).value() == StoreOutcome::updated);
  // A tuner whose times are the model's own takes it as a hit.
  CHECK(model.tune(l.space, key, MaxEvaluations{20}).reason == StopReason::repository_hit);

  // A tuner that measures does not: it tunes, and its own record replaces the model's although
  // its value is worse.
  Tuner device(RandomSearch{}, timed_runner(l, device_time), TuningDatabase(dir.file("t.db")),
               TunerOptions{.seed = 6});
  const auto measured = device.tune(l.space, key, MaxEvaluations{20});
  CHECK(measured.reason == StopReason::condition);
  CHECK(device.measure().runner.measured() == 20);
  CHECK(measured.stored == StoreOutcome::updated);
  const auto stored = device.repository().lookup(key, fp).value().value();
  CHECK(stored.provenance.timing == device_time);
  CHECK(stored.value == measured.best_value);
  CHECK(stored.value > too_good.value);
  // Then the device's record is its hit, and a model's better time does not replace it.
  CHECK(device.tune(l.space, key, MaxEvaluations{20}).reason == StopReason::repository_hit);
  CHECK(device.repository().store(too_good, fp).value() == StoreOutcome::kept);
  // An unsaid record is not measured either.
  Record unsaid = too_good;
  unsaid.provenance.timing.reset();
  CHECK(device.repository().store(unsaid, fp).value() == StoreOutcome::kept);
}

TEST_CASE("resume: an interrupted run continues and equals an uninterrupted one") {
  SUBCASE("random, batch 1") { resume_equals_uninterrupted<RandomSearch>(1, 23); }
  SUBCASE("random, batch 4, mid-batch") { resume_equals_uninterrupted<RandomSearch>(4, 31); }
  SUBCASE("evolutionary, batch 1") { resume_equals_uninterrupted<Evolutionary<>>(1, 37); }
  SUBCASE("evolutionary, batch 5") { resume_equals_uninterrupted<Evolutionary<>>(5, 44); }
}

TEST_CASE("resume: a finished run is not resumed, another seed is another run") {
  TempDir dir("sqlite_no_resume");
  const auto l = test::bowl();
  const TuningKey key{"bowl", "test"};
  Tuner tuner(RandomSearch{}, test::LandscapeRunner(l.evaluate), TuningDatabase(dir.file("t.db")),
              TunerOptions{.seed = 1, .reuse = false});
  CHECK(tuner.tune(l.space, key, MaxEvaluations{10}).replayed == 0);
  CHECK(tuner.tune(l.space, key, MaxEvaluations{10}).replayed == 0);
  tuner.options().seed = 2;
  CHECK(tuner.tune(l.space, key, MaxEvaluations{10}).replayed == 0);
  CHECK(tuner.repository().runs().value().size() == 3);
  CHECK(tuner.measure().measured() == 30);
}

TEST_CASE("export: a run's history and a database's runs as CSV and JSON lines") {
  TempDir dir("sqlite_export");
  const auto l = test::bowl();
  Tuner tuner(RandomSearch{}, test::LandscapeRunner(l.evaluate), TuningDatabase(dir.file("t.db")),
              TunerOptions{.seed = 9});
  const auto r = tuner.tune(l.space, TuningKey{"bowl", "host"}, MaxEvaluations{12});

  std::ostringstream csv;
  write_history_csv(csv, l.space, r);
  std::istringstream lines(csv.str());
  std::string header;
  std::getline(lines, header);
  CHECK(header == "evaluation,x,y,z,status,value,cost,started,finished,samples,message");
  std::string first;
  std::getline(lines, first);
  const auto& t0 = r.history[0];
  CHECK(first.rfind("1," + l.space.value(t0.configuration, 0).to_string() + "," +
                        l.space.value(t0.configuration, 1).to_string() + ",",
                    0) == 0);
  std::size_t rows = 1;
  for (std::string line; std::getline(lines, line);) ++rows;
  CHECK(rows == 12);

  std::ostringstream jsonl;
  write_history_json_lines(jsonl, l.space, r);
  CHECK(jsonl.str().find("{\"evaluation\":1,\"x\":") == 0);

  const auto table = export_runs(tuner.repository()).value();
  CHECK(table.size() == 12);
  std::ostringstream db_csv;
  table.write_csv(db_csv);
  CHECK(db_csv.str().rfind(
            "run,problem,device,space_fingerprint,seed,policy,timing,timing_source,evaluation,x,y,"
            "z,",
            0) == 0);
  // LandscapeRunner does not say where its times come from: the timing cells are empty.
  CHECK(db_csv.str().find("1,bowl,host," + space_fingerprint(l.space) + ",9,random,,,1,") !=
        std::string::npos);
  CHECK(export_runs(tuner.repository(), RunFilter{.problem = "other"}).value().size() == 0);

  // CSV quoting: a message with a comma and a quote.
  TrialTable quoted;
  LoggedTrial t;
  t.configuration = {{"order", "i,j"}};
  t.measurement = Measurement::failure(Status::runtime, "said \"no\", twice");
  quoted.add({}, t);
  std::ostringstream q;
  quoted.write_csv(q);
  CHECK(q.str().find("\"i,j\"") != std::string::npos);
  CHECK(q.str().find("\"said \"\"no\"\", twice\"") != std::string::npos);
}

#ifdef AOE_SQLITE_RESUME_CHILD_PATH
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

extern char** environ;

namespace {

/// Starts the child; returns its pid.
pid_t spawn_child(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(AOE_SQLITE_RESUME_CHILD_PATH));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, AOE_SQLITE_RESUME_CHILD_PATH, nullptr, nullptr, argv.data(), environ) ==
          0);
  return pid;
}

int wait_child(pid_t pid) {
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return status;
}

/// The child's history file without its first line ("replayed N").
std::string history_of(const std::string& path, std::size_t* replayed = nullptr) {
  std::string text = read_text(path);
  const auto eol = text.find('\n');
  REQUIRE(eol != std::string::npos);
  if (replayed != nullptr) *replayed = std::stoul(text.substr(9, eol - 9));
  return text.substr(eol + 1);
}

}  // namespace

TEST_CASE("resume: kill -9 at random points, then the resumed result equals an uninterrupted one") {
  TempDir dir("sqlite_kill");
  // Fixed seed: the kill times are drawn, not the outcome (which must not depend on them).
  std::mt19937 rng(20261124);
  for (const std::string policy : {"random", "evolutionary"}) {
    CAPTURE(policy);
    const std::string batch = policy == "random" ? "1" : "4";
    const std::string straight_out = dir.file(policy + "_straight.txt");
    REQUIRE(wait_child(spawn_child({dir.file(policy + "_straight.db"), policy, "80", batch, "7",
                                    straight_out, "1"})) == 0);
    const std::string expected = history_of(straight_out);

    const std::string db = dir.file(policy + "_killed.db");
    const std::string out = dir.file(policy + "_killed.txt");
    // 10 ms per measurement: 80 trials take 800 ms or more, so four kills within 150 ms each
    // never let a run finish; after 60 ms (start-up takes about 30) each has logged trials.
    int kills = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
      const pid_t pid = spawn_child({db, policy, "80", batch, "7", out, "10"});
      std::this_thread::sleep_for(std::chrono::milliseconds(60 + rng() % 90));
      ::kill(pid, SIGKILL);
      const int status = wait_child(pid);
      if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ++kills;
    }
    CHECK(kills == 4);
    REQUIRE_FALSE(std::filesystem::exists(out));
    REQUIRE(wait_child(spawn_child({db, policy, "80", batch, "7", out, "1"})) == 0);
    std::size_t replayed = 0;
    CHECK(history_of(out, &replayed) == expected);
    MESSAGE(policy << ": " << replayed << " of 80 trials replayed after " << kills << " kills");
    CHECK(replayed > 0);
    CHECK(replayed < 80);
  }
}
#endif

#ifdef AOE_TOOL_AOE_DB_PATH
TEST_CASE("aoe-db export writes CSV and JSON lines; bad input names the file") {
  TempDir dir("sqlite_tool");
  const auto l = test::bowl();
  {
    Tuner tuner(RandomSearch{}, test::LandscapeRunner(l.evaluate), TuningDatabase(dir.file("t.db")),
                TunerOptions{.seed = 4});
    (void)tuner.tune(l.space, TuningKey{"bowl", "host"}, MaxEvaluations{7});
  }
  const std::string tool = AOE_TOOL_AOE_DB_PATH;
  const std::string csv = dir.file("out.csv");
  REQUIRE(std::system((tool + " export " + dir.file("t.db") + " -o " + csv).c_str()) == 0);
  const std::string text = read_text(csv);
  CHECK(text.rfind("run,problem,device,space_fingerprint,seed,policy,timing,timing_source,"
                   "evaluation,x,y,z,",
                   0) == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') == 8);

  const std::string jsonl = dir.file("out.jsonl");
  REQUIRE(std::system(
              (tool + " export " + dir.file("t.db") + " --format jsonl -o " + jsonl).c_str()) == 0);
  const std::string j = read_text(jsonl);
  CHECK(std::count(j.begin(), j.end(), '\n') == 7);
  CHECK(j.rfind("{\"run\":1,\"problem\":\"bowl\"", 0) == 0);
  CHECK(j.find("\"timing\":\"\",\"timing_source\":\"\"") != std::string::npos);  // not said

  // A version-1 file: aoe-db reads it without migrating it (read-only), its timing empty.
  const std::string old_db = dir.file("v1.db");
  write_version_1_database(old_db);
  const std::string old_csv = dir.file("old.csv");
  REQUIRE(std::system((tool + " export " + old_db + " -o " + old_csv).c_str()) == 0);
  CHECK(read_text(old_csv).find("\n1,old,host,f00d,3,random,,,1,8,correct,") != std::string::npos);
  CHECK(file_schema_version(old_db) == "1");

  // aoe-db best: a record's timing when it says it, nothing when it does not.
  const std::string timed_db = dir.file("timed.db");
  {
    Tuner tuner(RandomSearch{}, timed_runner(l, model_time), TuningDatabase(timed_db),
                TunerOptions{.seed = 4});
    (void)tuner.tune(l.space, TuningKey{"bowl", "host"}, MaxEvaluations{7});
  }
  const std::string best = dir.file("best.txt");
  REQUIRE(std::system((tool + " best " + timed_db + " > " + best).c_str()) == 0);
  CHECK(read_text(best).find("7 evaluations, ") != std::string::npos);
  CHECK(read_text(best).ends_with("Z, simulated (test model 1.0))\n"));
  REQUIRE(std::system((tool + " best " + dir.file("t.db") + " > " + best).c_str()) == 0);
  CHECK(read_text(best).ends_with("Z)\n"));

  const std::string err = dir.file("err.txt");
  CHECK(std::system((tool + " export " + dir.file("missing.db") + " 2>" + err).c_str()) != 0);
  CHECK(read_text(err).find("missing.db") != std::string::npos);
}
#endif
