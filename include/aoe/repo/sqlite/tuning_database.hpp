// aoe::TuningDatabase: a repository on an SQLite file that keeps every trial of every run, the
// best record per key and space, and the runs' metadata; interrupted runs resume from it.
// Needs SQLite 3 (target aoe::sqlite; docs/database.md).
#ifndef AOE_REPO_SQLITE_TUNING_DATABASE_HPP
#define AOE_REPO_SQLITE_TUNING_DATABASE_HPP

#include "aoe/core/error.hpp"
#include "aoe/export/json_text.hpp"
#include "aoe/repo/sqlite/detail/connection.hpp"
#include "aoe/space/value.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/objective.hpp"
#include "aoe/vocab/record.hpp"
#include "aoe/vocab/run_log.hpp"
#include "aoe/vocab/status.hpp"
#include "aoe/vocab/timing.hpp"
#include "aoe/vocab/transfer.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// How a database file is opened.
struct DatabaseOptions {
  bool read_only = false;  ///< for inspection and export; `store` and the run log then fail
  /// SQLite's `synchronous` in WAL mode: false (NORMAL) survives a killed process and keeps
  /// the file consistent after a power loss, which may lose the last trials; true (FULL) keeps
  /// every committed trial through a power loss at the cost of an fsync per batch.
  bool synchronous_full = false;
  int busy_timeout_ms = 10000;  ///< how long to wait for another process's write lock
};

/// A run as the database keeps it (`info.timing`: the run's timing provenance, none when not
/// said).
struct RunRow {
  std::int64_t id = 0;
  RunInfo info;
  std::string started_at;   ///< ISO 8601, UTC
  std::string finished_at;  ///< empty while the run is unfinished
  std::string reason;       ///< to_string(StopReason), empty while unfinished
  std::size_t trials = 0;   ///< trials logged
  std::optional<double> best_value;
};

/// A repository on an SQLite file in WAL mode, which several processes can share. Models
/// `repository_policy` for any `TuningKey`, and the optional `fingerprinted_repository` (a
/// record tuned on another space is a miss) and `trial_log` (every trial is kept; an
/// interrupted run with the same key, space, seed and policy resumes) capabilities. Every
/// error names the file. Runs and best records keep where their times came from (simulated or
/// measured, or not said); a measured record replaces one that is not measured whatever the
/// two values (docs/database.md#simulated-or-measured). Schema: docs/database.md.
class TuningDatabase {
 public:
  /// Version 2 added the timing columns; a version-1 file opened for writing is migrated in
  /// place, and one opened read-only is read as it is (its rows not said).
  static constexpr int schema_version = 2;

  /// Opens or creates `path`. Non-throwing; the constructor below throws `aoe::Error` instead.
  [[nodiscard]] static Result<TuningDatabase> open(const std::string& path,
                                                   DatabaseOptions options = {}) {
    auto c = detail::sqlite::Connection::open(path, options.read_only);
    if (!c) return c.error();
    TuningDatabase db;
    db.conn_ = std::move(*c);
    if (auto r = db.init(options); !r) return r.error();
    return db;
  }

  explicit TuningDatabase(const std::string& path, DatabaseOptions options = {})
      : TuningDatabase(open(path, options).value()) {}

  TuningDatabase(TuningDatabase&&) noexcept = default;
  TuningDatabase& operator=(TuningDatabase&&) noexcept = default;
  TuningDatabase(const TuningDatabase&) = delete;
  TuningDatabase& operator=(const TuningDatabase&) = delete;
  ~TuningDatabase() = default;

  [[nodiscard]] const std::string& path() const { return conn_.path(); }

  // ---- repository_policy: records without a space fingerprint --------------------------------

  [[nodiscard]] Result<std::optional<Record>> lookup(const TuningKey& key) const {
    return lookup(key, "");
  }
  Result<StoreOutcome> store(const Record& record) { return store(record, ""); }

  // ---- fingerprinted_repository -------------------------------------------------------------

  /// The best record for `key` tuned on a space with this fingerprint; none for another space.
  [[nodiscard]] Result<std::optional<Record>> lookup(const TuningKey& key,
                                                     std::string_view fingerprint) const {
    auto s = conn_.prepare(
        "SELECT b.value, b.policy, b.evaluations, b.timestamp, j.key, j.value, j.type, " +
        timing_columns("b") +
        " FROM best b, json_each(b.configuration) j "
        "WHERE b.problem = ?1 AND b.device = ?2 AND b.space_fingerprint = ?3 ORDER BY j.id");
    if (!s) return s.error();
    s->bind(1, key.problem).bind(2, key.device).bind(3, fingerprint);
    std::optional<Record> out;
    std::optional<ErrorInfo> bad;
    auto read = s->each_row([&](const detail::sqlite::Statement& row) {
      if (!out) {
        out.emplace();
        out->key = key;
        out->value = row.real(0);
        out->provenance.policy = row.text(1);
        out->provenance.evaluations = static_cast<std::size_t>(row.integer(2));
        out->provenance.timestamp = row.text(3);
        out->provenance.timing = column_timing(row, 7, bad);
      }
      out->configuration.push_back({row.text(4), column_value(row, 5, 6)});
    });
    if (!read) return read.error();
    if (bad) return *bad;
    if (out) {
      if (auto front = read_front(key, fingerprint); front) {
        out->front = std::move(*front);
      } else {
        return front.error();
      }
    }
    return out;
  }

  /// Keeps the better of the stored and the new record (lower value) for (key, fingerprint).
  Result<StoreOutcome> store(const Record& record, std::string_view fingerprint) {
    auto tx = detail::sqlite::Transaction::begin(conn_);
    if (!tx) return tx.error();
    auto q = conn_.prepare(
        "SELECT value, timing_kind FROM best WHERE problem = ?1 AND device = ?2 AND "
        "space_fingerprint = ?3");
    if (!q) return q.error();
    q->bind(1, record.key.problem).bind(2, record.key.device).bind(3, fingerprint);
    auto found = q->step();
    if (!found) return found.error();
    StoreOutcome outcome = StoreOutcome::added;
    if (*found) {
      if (!replaces(record, q->real(0), q->text(1) == "measured")) {
        return StoreOutcome::kept;  // tx rolls back
      }
      outcome = StoreOutcome::updated;
    }
    q->reset();
    auto s = conn_.prepare(
        "INSERT OR REPLACE INTO best (problem, device, space_fingerprint, configuration, value, "
        "policy, evaluations, timestamp, run_id, timing_kind, timing_source) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    if (!s) return s.error();
    s->bind(1, record.key.problem)
        .bind(2, record.key.device)
        .bind(3, fingerprint)
        .bind(4, detail::json_object(record.configuration))
        .bind(5, record.value)
        .bind(6, record.provenance.policy)
        .bind(7, static_cast<std::int64_t>(record.provenance.evaluations))
        .bind(8, record.provenance.timestamp);
    if (run_) {
      s->bind(9, *run_);
    } else {
      s->bind_null(9);
    }
    bind_timing(*s, 10, record.provenance.timing);
    if (auto r = s->run(); !r) return r.error();
    if (auto r = store_front(record, fingerprint); !r) return r.error();
    if (auto r = tx->commit(); !r) return r.error();
    return outcome;
  }

  // ---- transfer_repository ------------------------------------------------------------------

  /// What other devices than `key.device` know of `key.problem` (docs/transfer.md): per
  /// device, its best records (one per space it was tuned on) and, for a time objective, the
  /// correct trials its runs logged, so that the sources can be weighed on each other. A key
  /// with an objective suffix (`#objective=...`) takes the best records only: a trial's value is
  /// its time, not that objective's score.
  [[nodiscard]] Result<std::vector<TransferSource>> transfer_sources(const TuningKey& key) const {
    const bool with_trials = key.problem.find(objective_key_marker) == std::string::npos;
    auto s = conn_.prepare(
        "SELECT p.device, p.point, j.key, j.value, j.type, p.value FROM ("
        "SELECT device, 'b' || rowid AS point, configuration, value FROM best "
        "WHERE problem = ?1 AND device <> ?2 "
        "UNION ALL SELECT r.device, 't' || t.run_id || '.' || t.evaluation, t.configuration, "
        "t.value FROM trials t JOIN runs r ON r.id = t.run_id "
        "WHERE ?3 AND r.problem = ?1 AND r.device <> ?2 AND t.status = 'correct' "
        "AND t.value IS NOT NULL) p, json_each(p.configuration) j "
        "ORDER BY p.device, p.point, j.id");
    if (!s) return s.error();
    s->bind(1, key.problem).bind(2, key.device).bind(3, static_cast<std::int64_t>(with_trials));
    std::vector<TransferSource> out;
    std::string point;
    auto read = s->each_row([&](const detail::sqlite::Statement& row) {
      std::string device = row.text(0);
      if (out.empty() || out.back().device != device) {
        out.push_back({std::move(device), {}});
        point.clear();
      }
      auto& points = out.back().points;
      if (std::string p = row.text(1); points.empty() || p != point) {
        point = std::move(p);
        points.push_back({{}, row.real(5)});
      }
      points.back().configuration.push_back({row.text(2), column_value(row, 3, 4)});
    });
    if (!read) return read.error();
    return out;
  }

  // ---- trial_log ----------------------------------------------------------------------------

  /// Resumes the most recent unfinished run that matches `info` and whose process has ended
  /// (returning its trials), or starts a new run (returning none).
  Result<std::vector<LoggedTrial>> begin_run(const RunInfo& info) {
    run_.reset();
    auto tx = detail::sqlite::Transaction::begin(conn_);
    if (!tx) return tx.error();
    auto q = conn_.prepare(
        "SELECT id, host, pid FROM runs WHERE problem = ?1 AND device = ?2 AND "
        "space_fingerprint = ?3 AND seed = ?4 AND policy = ?5 AND finished_at IS NULL "
        "ORDER BY id DESC");
    if (!q) return q.error();
    q->bind(1, info.key.problem)
        .bind(2, info.key.device)
        .bind(3, info.space_fingerprint)
        .bind(4, static_cast<std::int64_t>(info.seed))
        .bind(5, info.policy);
    const std::string host = host_name();
    std::optional<std::int64_t> resumed;
    while (true) {
      auto row = q->step();
      if (!row) return row.error();
      if (!*row) break;
      const auto pid = static_cast<pid_t>(q->integer(2));
      const bool alive =
          q->text(1) == host && pid != ::getpid() && (::kill(pid, 0) == 0 || errno == EPERM);
      if (!alive) {
        resumed = q->integer(0);
        break;
      }
    }
    q->reset();
    std::vector<LoggedTrial> trials;
    if (resumed) {
      auto t = read_trials(*resumed);
      if (!t) return t.error();
      trials = std::move(*t);
      auto u =
          conn_.prepare("UPDATE runs SET host = ?1, pid = ?2, resumed = resumed + 1 WHERE id = ?3");
      if (!u) return u.error();
      u->bind(1, host).bind(2, static_cast<std::int64_t>(::getpid())).bind(3, *resumed);
      if (auto r = u->run(); !r) return r.error();
      run_ = *resumed;
    } else {
      std::string names;
      for (const auto& n : info.parameters) {
        if (!names.empty()) names += '\n';
        names += n;
      }
      auto s = conn_.prepare(
          "INSERT INTO runs (problem, device, space_fingerprint, seed, policy, batch_size, "
          "parameters, started_at, host, pid, timing_kind, timing_source) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
      if (!s) return s.error();
      s->bind(1, info.key.problem)
          .bind(2, info.key.device)
          .bind(3, info.space_fingerprint)
          .bind(4, static_cast<std::int64_t>(info.seed))
          .bind(5, info.policy)
          .bind(6, static_cast<std::int64_t>(info.batch_size))
          .bind(7, names)
          .bind(8, now())
          .bind(9, host)
          .bind(10, static_cast<std::int64_t>(::getpid()));
      bind_timing(*s, 11, info.timing);
      if (auto r = s->run(); !r) return r.error();
      run_ = conn_.last_insert_rowid();
    }
    if (auto r = tx->commit(); !r) {
      run_.reset();
      return r.error();
    }
    return trials;
  }

  /// Appends trials to the open run, in one transaction. Precondition: `begin_run` succeeded.
  Result<void> log_trials(std::span<const LoggedTrial> trials) {
    if (!run_) {
      return make_error(Errc::invalid_argument,
                        "tuning database '" + path() + "': log_trials without begin_run");
    }
    if (trials.empty()) return {};
    auto tx = detail::sqlite::Transaction::begin(conn_);
    if (!tx) return tx.error();
    auto s = conn_.prepare(
        "INSERT OR REPLACE INTO trials (run_id, evaluation, configuration, status, value, "
        "samples, message, cost, started, finished, recorded_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    if (!s) return s.error();
    const std::string at = now();
    for (const auto& t : trials) {
      s->reset();
      const auto& m = t.measurement;
      s->bind(1, *run_)
          .bind(2, static_cast<std::int64_t>(t.evaluation))
          .bind(3, detail::json_object(t.configuration))
          .bind(4, to_string(m.status))
          .bind(5, std::isfinite(m.value) ? std::optional<double>(m.value) : std::nullopt)
          .bind(6, detail::json_array(m.samples))
          .bind(7, m.message)
          .bind(8, m.cost)
          .bind(9, t.started)
          .bind(10, t.finished)
          .bind(11, at);
      if (auto r = s->run(); !r) return r.error();
    }
    return tx->commit();
  }

  /// Marks the open run finished with its summary.
  Result<void> end_run(const RunSummary& summary) {
    if (!run_) {
      return make_error(Errc::invalid_argument,
                        "tuning database '" + path() + "': end_run without begin_run");
    }
    auto s = conn_.prepare(
        "UPDATE runs SET finished_at = ?1, reason = ?2, evaluations = ?3, best_value = ?4, "
        "total_seconds = ?5 WHERE id = ?6");
    if (!s) return s.error();
    s->bind(1, now())
        .bind(2, summary.reason)
        .bind(3, static_cast<std::int64_t>(summary.evaluations))
        .bind(4, summary.best_value)
        .bind(5, summary.total_seconds)
        .bind(6, *run_);
    auto r = s->run();
    run_.reset();
    return r;
  }

  /// The open run's id (between `begin_run` and `end_run`).
  [[nodiscard]] std::optional<std::int64_t> current_run() const noexcept { return run_; }

  // ---- inspection ---------------------------------------------------------------------------

  /// Every run, oldest first.
  [[nodiscard]] Result<std::vector<RunRow>> runs() const {
    auto s = conn_.prepare(
        "SELECT r.id, r.problem, r.device, r.space_fingerprint, r.seed, r.policy, r.batch_size, "
        "r.parameters, r.started_at, r.finished_at, r.reason, r.best_value, "
        "(SELECT COUNT(*) FROM trials t WHERE t.run_id = r.id), " +
        timing_columns("r") + " FROM runs r ORDER BY r.id");
    if (!s) return s.error();
    std::vector<RunRow> out;
    std::optional<ErrorInfo> bad;
    auto read = s->each_row([&](const detail::sqlite::Statement& row) {
      RunRow r;
      r.id = row.integer(0);
      r.info.key = {row.text(1), row.text(2)};
      r.info.space_fingerprint = row.text(3);
      r.info.seed = static_cast<std::uint64_t>(row.integer(4));
      r.info.policy = row.text(5);
      r.info.batch_size = static_cast<std::size_t>(row.integer(6));
      const std::string names = row.text(7);
      for (std::size_t b = 0; !names.empty() && b <= names.size();) {
        const auto e = std::min(names.find('\n', b), names.size());
        r.info.parameters.push_back(names.substr(b, e - b));
        b = e + 1;
      }
      r.started_at = row.text(8);
      r.finished_at = row.text(9);
      r.reason = row.text(10);
      if (!row.is_null(11)) r.best_value = row.real(11);
      r.trials = static_cast<std::size_t>(row.integer(12));
      r.info.timing = column_timing(row, 13, bad);
      out.push_back(std::move(r));
    });
    if (!read) return read.error();
    if (bad) return *bad;
    return out;
  }

  /// The trials of run `run_id`, in evaluation order.
  [[nodiscard]] Result<std::vector<LoggedTrial>> trials(std::int64_t run_id) const {
    return read_trials(run_id);
  }

  /// Every best record: (key, space fingerprint, record).
  [[nodiscard]] Result<std::vector<std::pair<std::string, Record>>> best_records() const {
    auto s = conn_.prepare(
        "SELECT b.problem, b.device, b.space_fingerprint, b.value, b.policy, b.evaluations, "
        "b.timestamp, j.key, j.value, j.type, " +
        timing_columns("b") +
        " FROM best b, json_each(b.configuration) j "
        "ORDER BY b.problem, b.device, b.space_fingerprint, j.id");
    if (!s) return s.error();
    std::vector<std::pair<std::string, Record>> out;
    std::optional<ErrorInfo> bad;
    auto read = s->each_row([&](const detail::sqlite::Statement& row) {
      TuningKey key{row.text(0), row.text(1)};
      std::string fp = row.text(2);
      if (out.empty() || out.back().second.key != key || out.back().first != fp) {
        Record r;
        r.key = std::move(key);
        r.value = row.real(3);
        r.provenance = {row.text(4), static_cast<std::size_t>(row.integer(5)), row.text(6),
                        column_timing(row, 10, bad)};
        out.emplace_back(std::move(fp), std::move(r));
      }
      out.back().second.configuration.push_back({row.text(7), column_value(row, 8, 9)});
    });
    if (!read) return read.error();
    if (bad) return *bad;
    return out;
  }

 private:
  TuningDatabase() = default;

  Result<void> init(const DatabaseOptions& options) {
    const std::string timeout = "PRAGMA busy_timeout = " + std::to_string(options.busy_timeout_ms);
    if (auto r = conn_.exec(timeout.c_str()); !r) return r.error();
    if (options.read_only) return check_schema(false);
    // WAL: readers never block the writer and several processes share the file.
    std::string journal;
    {
      auto mode = conn_.prepare("PRAGMA journal_mode = WAL");
      if (!mode) return mode.error();
      if (auto r = mode->step(); !r) return r.error();
      journal = mode->text(0);
    }
    if (journal != "wal") {
      return make_error(Errc::unsupported, "tuning database '" + path() +
                                               "': cannot switch to WAL mode (the file system "
                                               "may not support shared memory; got journal "
                                               "mode '" +
                                               journal + "')");
    }
    if (auto r = conn_.exec(options.synchronous_full ? "PRAGMA synchronous = FULL"
                                                     : "PRAGMA synchronous = NORMAL");
        !r) {
      return r.error();
    }
    return check_schema(true);
  }

  /// Creates the tables of a new file or migrates a version-1 one (`create`: opened for
  /// writing), then reads the file's version into `version_`: this build's, or 1 for a file
  /// opened read-only that was never migrated.
  Result<void> check_schema(bool create) {
    if (create) {
      auto tx = detail::sqlite::Transaction::begin(conn_);
      if (!tx) return tx.error();
      if (auto r = conn_.exec(schema_sql); !r) return r.error();
      auto v = read_version();
      if (!v) return v.error();
      // Version 1 had no timing columns: add them, its rows not said (NULL). In the same
      // transaction as the version, so a failed or concurrent migration leaves version 1 whole.
      if (*v == "1") {
        if (auto r = conn_.exec(migrate_1_to_2_sql); !r) return r.error();
      }
      if (auto c = tx->commit(); !c) return c.error();
    }
    auto v = read_version();
    if (!v) return v.error();
    if (*v == std::to_string(schema_version)) {
      version_ = schema_version;
    } else if (*v == "1" && !create) {
      version_ = 1;
    } else {
      return make_error(Errc::unsupported_version,
                        "tuning database '" + path() + "': schema version " + *v +
                            ", this build reads versions 1 and " + std::to_string(schema_version));
    }
    return {};
  }

  static constexpr const char* schema_sql = R"sql(
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', '2');
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY, problem TEXT NOT NULL, device TEXT NOT NULL,
  space_fingerprint TEXT NOT NULL, seed INTEGER NOT NULL, policy TEXT NOT NULL,
  batch_size INTEGER NOT NULL, parameters TEXT NOT NULL, started_at TEXT NOT NULL,
  finished_at TEXT, reason TEXT, evaluations INTEGER, best_value REAL, total_seconds REAL,
  host TEXT NOT NULL, pid INTEGER NOT NULL, resumed INTEGER NOT NULL DEFAULT 0,
  timing_kind TEXT, timing_source TEXT);
CREATE INDEX IF NOT EXISTS runs_by_key ON runs (problem, device, space_fingerprint, seed, policy);
CREATE TABLE IF NOT EXISTS trials (
  run_id INTEGER NOT NULL REFERENCES runs (id), evaluation INTEGER NOT NULL,
  configuration TEXT NOT NULL, status TEXT NOT NULL, value REAL, samples TEXT NOT NULL,
  message TEXT NOT NULL, cost REAL NOT NULL, started REAL NOT NULL, finished REAL NOT NULL,
  recorded_at TEXT NOT NULL, PRIMARY KEY (run_id, evaluation));
CREATE TABLE IF NOT EXISTS best (
  problem TEXT NOT NULL, device TEXT NOT NULL, space_fingerprint TEXT NOT NULL,
  configuration TEXT NOT NULL, value REAL NOT NULL, policy TEXT NOT NULL,
  evaluations INTEGER NOT NULL, timestamp TEXT NOT NULL, run_id INTEGER,
  timing_kind TEXT, timing_source TEXT,
  PRIMARY KEY (problem, device, space_fingerprint));
)sql";

  static constexpr const char* migrate_1_to_2_sql = R"sql(
ALTER TABLE runs ADD COLUMN timing_kind TEXT;
ALTER TABLE runs ADD COLUMN timing_source TEXT;
ALTER TABLE best ADD COLUMN timing_kind TEXT;
ALTER TABLE best ADD COLUMN timing_source TEXT;
UPDATE meta SET value = '2' WHERE name = 'schema_version';
)sql";

  [[nodiscard]] Result<std::string> read_version() const {
    auto s = conn_.prepare("SELECT value FROM meta WHERE name = 'schema_version'");
    if (!s) return s.error();
    auto row = s->step();
    if (!row) return row.error();
    if (!*row) {
      return make_error(Errc::schema_error,
                        "tuning database '" + path() + "': no schema_version in table meta");
    }
    return s->text(0);
  }

  /// The timing columns of table `alias` in a SELECT; NULLs in a version-1 file.
  [[nodiscard]] std::string timing_columns(const std::string& alias) const {
    if (version_ < 2) return "NULL, NULL";
    return alias + ".timing_kind, " + alias + ".timing_source";
  }

  /// The timing of the columns `kind` and `kind + 1` of `row`: none when NULL (not said); an
  /// unknown kind sets `bad` (the first one seen) and reads as not said.
  [[nodiscard]] std::optional<Timing> column_timing(const detail::sqlite::Statement& row, int kind,
                                                    std::optional<ErrorInfo>& bad) const {
    if (row.is_null(kind)) return std::nullopt;
    const std::string text = row.text(kind);
    const auto k = timing_kind_from(text);
    if (!k) {
      if (!bad) {
        bad = make_error(Errc::schema_error, "tuning database '" + path() +
                                                 "': unknown timing_kind '" + text +
                                                 "' (expected simulated or measured)");
      }
      return std::nullopt;
    }
    return Timing{*k, row.text(kind + 1)};
  }

  /// Binds `t` to parameters `i` (kind) and `i + 1` (source); NULLs when not said.
  static void bind_timing(detail::sqlite::Statement& s, int i, const std::optional<Timing>& t) {
    if (t) {
      s.bind(i, to_string(t->kind)).bind(i + 1, std::string_view(t->source));
    } else {
      s.bind_null(i).bind_null(i + 1);
    }
  }

  /// Whether `record` replaces a stored record of `stored_value` (`stored_measured`: its time
  /// is a device's): a measured time replaces one that is not and is never replaced by one
  /// that is not, whatever the values (a model's time is not compared with a device's);
  /// otherwise the lower value wins.
  static bool replaces(const Record& record, double stored_value, bool stored_measured) {
    const bool measured = record.provenance.timing && record.provenance.timing->measured();
    if (measured != stored_measured) return measured;
    return record.value < stored_value;
  }

  [[nodiscard]] Result<std::vector<LoggedTrial>> read_trials(std::int64_t run_id) const {
    std::vector<LoggedTrial> out;
    std::map<std::int64_t, std::size_t> at;  // evaluation -> index in out
    {
      auto s = conn_.prepare(
          "SELECT evaluation, status, value, message, cost, started, finished FROM trials "
          "WHERE run_id = ?1 ORDER BY evaluation");
      if (!s) return s.error();
      s->bind(1, run_id);
      while (true) {
        auto row = s->step();
        if (!row) return row.error();
        if (!*row) break;
        LoggedTrial t;
        t.evaluation = static_cast<std::size_t>(s->integer(0));
        const std::string status = s->text(1);
        const auto st = status_from_string(status);
        if (!st) {
          return make_error(Errc::schema_error, "tuning database '" + path() + "': run " +
                                                    std::to_string(run_id) + ", trial " +
                                                    std::to_string(t.evaluation) +
                                                    ": unknown status '" + status + "'");
        }
        t.measurement.status = *st;
        t.measurement.value = s->is_null(2) ? std::numeric_limits<double>::infinity() : s->real(2);
        t.measurement.message = s->text(3);
        t.measurement.cost = s->real(4);
        t.started = s->real(5);
        t.finished = s->real(6);
        at[s->integer(0)] = out.size();
        out.push_back(std::move(t));
      }
    }
    {
      auto s = conn_.prepare(
          "SELECT t.evaluation, j.key, j.value, j.type FROM trials t, "
          "json_each(t.configuration) j WHERE t.run_id = ?1 ORDER BY t.evaluation, j.id");
      if (!s) return s.error();
      s->bind(1, run_id);
      auto read = s->each_row([&](const detail::sqlite::Statement& row) {
        out[at[row.integer(0)]].configuration.push_back({row.text(1), column_value(row, 2, 3)});
      });
      if (!read) return read.error();
    }
    {
      auto s = conn_.prepare(
          "SELECT t.evaluation, j.value FROM trials t, json_each(t.samples) j "
          "WHERE t.run_id = ?1 ORDER BY t.evaluation, j.id");
      if (!s) return s.error();
      s->bind(1, run_id);
      auto read = s->each_row([&](const detail::sqlite::Statement& row) {
        out[at[row.integer(0)]].measurement.samples.push_back(
            row.is_null(1) ? std::numeric_limits<double>::quiet_NaN() : row.real(1));
      });
      if (!read) return read.error();
    }
    return out;
  }

  // ---- a pareto record's front (Record::front) ----------------------------------------------
  // Table `fronts`, one row per member, made by the first record that has a front: a file of
  // time-only tunings stays as it was (no table, the same schema version).

  [[nodiscard]] Result<bool> has_fronts() const {
    auto s = conn_.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fronts'");
    if (!s) return s.error();
    return s->step();
  }

  /// The record's front in place of the one stored for its key (none: the stored one removed).
  Result<void> store_front(const Record& record, std::string_view fingerprint) {
    auto exists = has_fronts();
    if (!exists) return exists.error();
    if (record.front.empty() && !*exists) return {};
    if (auto r = conn_.exec(
            "CREATE TABLE IF NOT EXISTS fronts (problem TEXT NOT NULL, device TEXT NOT NULL, "
            "space_fingerprint TEXT NOT NULL, position INTEGER NOT NULL, configuration TEXT NOT "
            "NULL, seconds REAL NOT NULL, joules REAL NOT NULL, PRIMARY KEY (problem, device, "
            "space_fingerprint, position))");
        !r) {
      return r.error();
    }
    auto d = conn_.prepare(
        "DELETE FROM fronts WHERE problem = ?1 AND device = ?2 AND space_fingerprint = ?3");
    if (!d) return d.error();
    d->bind(1, record.key.problem).bind(2, record.key.device).bind(3, fingerprint);
    if (auto r = d->run(); !r) return r.error();
    for (std::size_t i = 0; i < record.front.size(); ++i) {
      auto s = conn_.prepare(
          "INSERT INTO fronts (problem, device, space_fingerprint, position, configuration, "
          "seconds, joules) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
      if (!s) return s.error();
      s->bind(1, record.key.problem)
          .bind(2, record.key.device)
          .bind(3, fingerprint)
          .bind(4, static_cast<std::int64_t>(i))
          .bind(5, detail::json_object(record.front[i].configuration))
          .bind(6, record.front[i].seconds)
          .bind(7, record.front[i].joules);
      if (auto r = s->run(); !r) return r.error();
    }
    return {};
  }

  [[nodiscard]] Result<std::vector<FrontMember>> read_front(const TuningKey& key,
                                                            std::string_view fingerprint) const {
    std::vector<FrontMember> out;
    auto exists = has_fronts();
    if (!exists) return exists.error();
    if (!*exists) return out;
    auto s = conn_.prepare(
        "SELECT f.position, f.seconds, f.joules, j.key, j.value, j.type FROM fronts f, "
        "json_each(f.configuration) j WHERE f.problem = ?1 AND f.device = ?2 AND "
        "f.space_fingerprint = ?3 ORDER BY f.position, j.id");
    if (!s) return s.error();
    s->bind(1, key.problem).bind(2, key.device).bind(3, fingerprint);
    std::int64_t last = -1;
    auto read = s->each_row([&](const detail::sqlite::Statement& row) {
      if (row.integer(0) != last) {
        last = row.integer(0);
        out.push_back({{}, row.real(1), row.real(2)});
      }
      out.back().configuration.push_back({row.text(3), column_value(row, 4, 5)});
    });
    if (!read) return read.error();
    return out;
  }

  /// A json_each value column with its type column ('integer', 'real', 'text').
  static Value column_value(const detail::sqlite::Statement& s, int value, int type) {
    const std::string t = s.text(type);
    if (t == "integer") return Value(s.integer(value));
    if (t == "real") return Value(s.real(value));
    return Value(s.text(value));
  }

  static std::string now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
  }

  static std::string host_name() {
    char buffer[256] = {};
    if (::gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
    return buffer;
  }

  detail::sqlite::Connection conn_;
  std::optional<std::int64_t> run_;
  int version_ = schema_version;  ///< the file's schema version (1: read-only, not migrated)
};

}  // namespace aoe

#endif  // AOE_REPO_SQLITE_TUNING_DATABASE_HPP
