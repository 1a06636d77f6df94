// RAII over the SQLite C API: a connection and prepared statements whose errors name the file.
// Private to aoe::TuningDatabase.
#ifndef AOE_REPO_SQLITE_DETAIL_CONNECTION_HPP
#define AOE_REPO_SQLITE_DETAIL_CONNECTION_HPP

#include "aoe/core/error.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace aoe::detail::sqlite {

struct CloseDb {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
struct FinalizeStmt {
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};

/// The errno of the last failed system call on the database's write-ahead log (or rollback
/// journal), else on the database file, as the unix VFS keeps it per file
/// (SQLITE_FCNTL_LAST_ERRNO); 0 when none failed or the file is not open.
inline int last_file_errno(sqlite3* db) {
  int journal_errno = 0;
  sqlite3_file* journal = nullptr;
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &journal) == SQLITE_OK &&
      journal != nullptr && journal->pMethods != nullptr) {
    journal->pMethods->xFileControl(journal, SQLITE_FCNTL_LAST_ERRNO, &journal_errno);
  }
  if (journal_errno != 0) return journal_errno;
  int main_errno = 0;
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_LAST_ERRNO, &main_errno) != SQLITE_OK) {
    return 0;
  }
  return main_errno;
}

/// The errno behind an error of the disk, 0 when SQLite does not give it back reliably: the
/// failed file's own (last_file_errno), else, for an I/O error only, the connection's
/// (sqlite3_system_errno, taken when SQLite reported the error: the way to the errors of the
/// `-shm` file, which keeps none of its own). Not for "unable to open database file": SQLite
/// tries other paths after the failed open, and sqlite3_system_errno then names their ENOENT
/// for an injected EIO. "database or disk is full" needs none: SQLite says it for ENOSPC only.
inline int disk_errno(sqlite3* db, int primary) {
  if (db == nullptr) return 0;
  if (primary != SQLITE_IOERR && primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY) {
    return 0;
  }
  if (const int of_file = last_file_errno(db); of_file != 0) return of_file;
  return primary == SQLITE_IOERR ? sqlite3_system_errno(db) : 0;
}

/// "tuning database 'runs.db': <what>: <SQLite's message>", and after an error of the disk the
/// failed call's errno where SQLite gives it back (disk_errno), which its message does not
/// name: "...: disk I/O error: Input/output error (errno 5)".
inline ErrorInfo error(std::string_view path, sqlite3* db, std::string_view what, int rc) {
  std::string msg = "tuning database '" + std::string(path) + "': " + std::string(what) + ": ";
  msg += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  const int primary = rc & 0xFF;
  if (const int sys = disk_errno(db, primary); sys != 0) {
    msg += ": " + std::generic_category().message(sys) + " (errno " + std::to_string(sys) + ")";
  }
  Errc code = Errc::io_error;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) code = Errc::busy;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) code = Errc::parse_error;
  if (primary == SQLITE_CANTOPEN) code = Errc::not_found;
  return ErrorInfo(code, std::move(msg));
}

/// A prepared statement: bind (1-based), step, read columns (0-based).
class Statement {
 public:
  Statement(sqlite3_stmt* s, sqlite3* db, const std::string* path) : s_(s), db_(db), path_(path) {}

  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(s_.get(), i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(s_.get(), i, v);
    return *this;
  }
  Statement& bind(int i, std::string_view v) {
    sqlite3_bind_text(s_.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, const std::optional<double>& v) {
    if (v) return bind(i, *v);
    sqlite3_bind_null(s_.get(), i);
    return *this;
  }

  Statement& bind_null(int i) {
    sqlite3_bind_null(s_.get(), i);
    return *this;
  }
  /// Makes the statement ready to run again with new bindings.
  Statement& reset() {
    sqlite3_reset(s_.get());
    sqlite3_clear_bindings(s_.get());
    return *this;
  }

  /// true: a row is ready; false: done. An error is returned as such.
  Result<bool> step() {
    const int rc = sqlite3_step(s_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return error(*path_, db_, "a statement failed", rc);
  }
  /// Calls `row(*this)` for every row the statement returns; an error is returned as such.
  template <class F>
  Result<void> each_row(F&& row) {
    while (true) {
      auto ready = step();
      if (!ready) return ready.error();
      if (!*ready) return {};
      row(*this);
    }
  }
  /// Runs a statement that returns no rows.
  Result<void> run() {
    auto r = step();
    if (!r) return r.error();
    return {};
  }

  [[nodiscard]] bool is_null(int c) const {
    return sqlite3_column_type(s_.get(), c) == SQLITE_NULL;
  }
  [[nodiscard]] int type(int c) const { return sqlite3_column_type(s_.get(), c); }
  [[nodiscard]] std::int64_t integer(int c) const { return sqlite3_column_int64(s_.get(), c); }
  [[nodiscard]] double real(int c) const { return sqlite3_column_double(s_.get(), c); }
  [[nodiscard]] std::string text(int c) const {
    const auto* p = sqlite3_column_text(s_.get(), c);
    if (p == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(p),
                       static_cast<std::size_t>(sqlite3_column_bytes(s_.get(), c)));
  }

 private:
  std::unique_ptr<sqlite3_stmt, FinalizeStmt> s_;
  sqlite3* db_;
  const std::string* path_;
};

/// An open database file. Moves keep the path's address stable (it lives on the heap).
class Connection {
 public:
  Connection() = default;

  static Result<Connection> open(const std::string& path, bool read_only) {
    Connection c;
    c.path_ = std::make_unique<std::string>(path);
    sqlite3* raw = nullptr;
    const int flags =
        read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    const int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    c.db_.reset(raw);
    if (rc != SQLITE_OK) return error(path, raw, "cannot open", rc);
    sqlite3_extended_result_codes(raw, 1);
    return c;
  }

  Result<Statement> prepare(std::string_view sql) const {
    sqlite3_stmt* s = nullptr;
    const int rc =
        sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &s, nullptr);
    if (rc != SQLITE_OK) return error(*path_, db_.get(), "cannot prepare a statement", rc);
    return Statement(s, db_.get(), path_.get());
  }

  /// Runs one or more statements without parameters.
  Result<void> exec(const char* sql) const {
    const int rc = sqlite3_exec(db_.get(), sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return error(*path_, db_.get(), "cannot run a statement", rc);
    return {};
  }

  [[nodiscard]] std::int64_t last_insert_rowid() const {
    return sqlite3_last_insert_rowid(db_.get());
  }
  [[nodiscard]] const std::string& path() const { return *path_; }
  [[nodiscard]] sqlite3* handle() const noexcept { return db_.get(); }

 private:
  std::unique_ptr<sqlite3, CloseDb> db_;
  std::unique_ptr<std::string> path_;
};

/// A write transaction (BEGIN IMMEDIATE: takes the write lock up front, so a busy database is
/// found before anything is done); rolled back unless committed.
class Transaction {
 public:
  static Result<Transaction> begin(const Connection& c) {
    if (auto r = c.exec("BEGIN IMMEDIATE"); !r) return r.error();
    return Transaction(&c);
  }
  Transaction(Transaction&& o) noexcept : c_(std::exchange(o.c_, nullptr)) {}
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction() {
    if (c_ != nullptr) (void)c_->exec("ROLLBACK");
  }
  Result<void> commit() {
    auto r = c_->exec("COMMIT");
    if (r) c_ = nullptr;
    return r;
  }

 private:
  explicit Transaction(const Connection* c) : c_(c) {}
  const Connection* c_;
};

}  // namespace aoe::detail::sqlite

#endif  // AOE_REPO_SQLITE_DETAIL_CONNECTION_HPP
