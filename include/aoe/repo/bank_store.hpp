// The storage core of every on-disk bank (the operator knowledge bank, the SGAT graph bank, the
// GDAT gradient-fusion bank), written once: reading a bank file (absent: empty; unreadable,
// corrupt or of another version: an error naming the file, the file left as it is), the records
// skipped on load for their time (one warning each; kept in the file, see below), the store (a
// time that is not a positive finite number refused; the file lock, waited for up to
// TUNE_BANK_LOCK_TIMEOUT; the file re-read under it; `kept` when the stored record is as fast;
// otherwise `added` or `updated` and the file rewritten through aoe::write_file_atomically) and
// the check before a job.
//
// A record skipped on load (its time is not a positive finite number: another version of the
// tool or another user wrote it) is not used, but a store never drops it: it is written back as
// it was read, in its place, until a store of the same key replaces it. A user's bank file loses
// nothing that someone else wrote.
//
// A bank says only what differs: its file format and how its records are found and compared, in
// a Format that derives from BankFormat<Contents, Record> (the types, the tool written into each
// provenance, "faster" as a plain comparison) and adds:
//
//   static constexpr std::string_view bank = "graph bank";  // in messages
//   static constexpr std::string_view quantity = "value";   // "its <quantity> is not ..."
//   Result<Contents> parse(std::string text, const path& file,
//                          std::vector<SkippedRecord>& skipped) const;  // in file order
//   std::optional<double> stored(const Contents&, const Record&) const;  // the stored time
//   void put(Contents&, const Record&) const;            // add or replace the record
//   std::string key(const Record&) const;                // the key a SkippedRecord names
//   Result<std::string> text(const Contents&, std::span<const SkippedRecord> skipped,
//                            const path& file) const;    // the skipped ones in their places
//   double time(const Record&) const;  std::string name(const Record&) const;
#ifndef AOE_REPO_BANK_STORE_HPP
#define AOE_REPO_BANK_STORE_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/io/file_descriptor.hpp"
#include "aoe/io/parse_json.hpp"
#include "aoe/io/read_input.hpp"
#include "aoe/repo/bank_access.hpp"
#include "aoe/repo/bank_file.hpp"
#include "aoe/vocab/record.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace aoe::detail {

/// The error of a bank file that cannot be parsed: `where` names the file (and line or JSON
/// pointer), `what` what was expected.
[[nodiscard]] inline ErrorInfo corrupt_bank_file(std::string_view bank, const std::string& where,
                                                 const std::string& what) {
  return make_error(Errc::parse_error, std::string(bank) + ": " + where + ": " + what +
                                           "; the file is corrupt and was left as it is (repair it "
                                           "or move it away to start a new bank)");
}

/// The error of a bank file written by another version.
[[nodiscard]] inline ErrorInfo bank_file_of_another_version(std::string_view bank,
                                                            const std::string& where,
                                                            const std::string& expected,
                                                            const std::string& found) {
  return make_error(Errc::unsupported_version, std::string(bank) + ": " + where + ": expected " +
                                                   expected + ", found " + found +
                                                   "; written by another version, left as it is");
}

/// The JSON of a bank file's text; text that is not JSON is a corrupt file.
[[nodiscard]] inline Result<boost::json::value> parse_bank_json(std::string_view bank,
                                                                const std::string& bytes,
                                                                const std::filesystem::path& file) {
  auto parsed = parse_json(bytes, file.string());
  if (!parsed) {
    return make_error(Errc::parse_error, std::string(bank) + ": " + parsed.error().message +
                                             "; the file is corrupt and was left as it is "
                                             "(repair it or move it away to start a new bank)");
  }
  return parsed;
}

/// A record of a bank file skipped on load (its time is not a positive finite number): not
/// used, but written back as it was read, in its place, until a store of `key` replaces it.
struct SkippedRecord {
  std::string name;         ///< how the warning names it ("'<key>'")
  std::string key;          ///< Format::key of the record that would replace it
  std::size_t at = 0;       ///< its index among the file's records (used and skipped)
  boost::json::value json;  ///< as read
};

/// Calls `record(i)` for each of `count` records (in order) and `skipped_record(s)` for each of
/// `skipped` (in file order), each skipped record at its index `at` of the whole sequence: the
/// file order of a bank file whose records are a sequence (the graph bank's lines, the
/// gradient-fusion bank's array).
template <class OnRecord, class OnSkipped>
void in_file_order(std::size_t count, std::span<const SkippedRecord> skipped, OnRecord&& record,
                   OnSkipped&& skipped_record) {
  std::size_t r = 0;
  std::size_t written = 0;
  for (const auto& s : skipped) {
    for (; r < count && written < s.at; ++r, ++written) record(r);
    skipped_record(s);
    ++written;
  }
  for (; r < count; ++r) record(r);
}

/// What every bank file format (BankStore's Format) starts from: its contents and record types,
/// the tool written into each entry's provenance, and a record faster than the stored one when
/// its time is smaller (a format may say otherwise).
template <class ContentsType, class RecordType>
struct BankFormat {
  using Contents = ContentsType;
  using Record = RecordType;
  std::string tool;  ///< written into each provenance

  [[nodiscard]] static bool faster(double candidate, double stored) { return candidate < stored; }
};

/// An entry's "provenance" object, `tool` the writer.
[[nodiscard]] inline boost::json::object provenance_json(const Provenance& p,
                                                         const std::string& tool) {
  boost::json::object o;
  o["policy"] = p.policy;
  o["evaluations"] = static_cast<std::int64_t>(p.evaluations);
  o["timestamp"] = p.timestamp;
  o["tool"] = tool;
  if (p.timing) {
    o["timing"] =
        boost::json::object{{"kind", to_string(p.timing->kind)}, {"source", p.timing->source}};
  }
  return o;
}

/// The provenance of `entry` (its "provenance" object); fields absent or of another type are
/// left as they are.
inline void read_provenance(const boost::json::object& entry, Provenance& out) {
  const auto* p = entry.if_contains("provenance");
  if (p == nullptr || !p->is_object()) return;
  const auto& po = p->as_object();
  if (const auto* s = po.if_contains("policy"); s && s->is_string()) {
    out.policy = std::string(s->as_string());
  }
  if (const auto* s = po.if_contains("evaluations"); s && s->is_int64()) {
    out.evaluations = static_cast<std::size_t>(s->as_int64());
  }
  if (const auto* s = po.if_contains("timestamp"); s && s->is_string()) {
    out.timestamp = std::string(s->as_string());
  }
  // "timing": {"kind": "simulated" | "measured", "source"}; absent (a bank written before it
  // was stored) or of another kind: not said.
  if (const auto* t = po.if_contains("timing"); t && t->is_object()) {
    const auto* kind = t->as_object().if_contains("kind");
    const auto k = kind && kind->is_string() ? timing_kind_from(kind->as_string()) : std::nullopt;
    if (k) {
      const auto* source = t->as_object().if_contains("source");
      out.timing = Timing{
          *k, source && source->is_string() ? std::string(source->as_string()) : std::string()};
    }
  }
}

/// One bank's files: read, cached, locked, merged and written as the header says. Thread-safe.
template <class Format>
class BankStore {
 public:
  using Contents = typename Format::Contents;
  using Record = typename Format::Record;

  BankStore() = default;
  BankStore(BankAccess access, bool durable, std::string doc)
      : access_(std::move(access)),
        durable_(durable),
        doc_(std::move(doc)),
        state_(std::make_unique<State>()) {}

  [[nodiscard]] const BankAccess& access() const noexcept { return access_; }

  /// `use(contents)` on the contents of `file` as last read or written by this store (read on
  /// first use). `built_in`: a file the bank only reads (CANN's, which may hold files in its
  /// own format): when it cannot be read it is skipped, as if empty, with one warning naming it.
  template <class Use>
  [[nodiscard]] auto with_cached(const std::filesystem::path& file, const Format& format, Use&& use,
                                 bool built_in = false) const
      -> Result<decltype(use(std::declval<const Contents&>()))> {
    std::lock_guard lock(state_->mutex);
    auto it = state_->cache.find(file);
    if (it == state_->cache.end()) {
      auto contents = load(file, format);
      if (!contents && !built_in) return contents.error();
      if (!contents) {
        warn_once(file.string(), std::string(Format::bank) + ": skipping built-in bank file " +
                                     file.string() + ": " + contents.error().message);
        contents = Contents{};
      }
      it = state_->cache.emplace(file, std::move(*contents)).first;
    }
    return use(static_cast<const Contents&>(it->second));
  }

  /// The contents of `file`, read now; records skipped for their time are warned about once.
  [[nodiscard]] Result<Contents> load(const std::filesystem::path& file,
                                      const Format& format) const {
    auto file_read = read(file, format);
    if (!file_read) return file_read.error();
    return std::move(file_read->contents);
  }

  /// Stores `record` in `file`: `added` when it is new, `updated` when it is faster than the
  /// stored one (or `replace`), otherwise `kept` and nothing is written. Under the file's lock
  /// the file is re-read, so records written meanwhile by another process are kept, and so are
  /// the records skipped on load, but the one of `record`'s key, which `record` replaces.
  Result<StoreOutcome> store(const std::filesystem::path& file, const Format& format,
                             const Record& record, bool replace = false) {
    if (!storable_time(format.time(record))) {
      return unstorable_time(std::string(Format::bank), format.name(record), format.time(record));
    }
    std::lock_guard guard(state_->mutex);
    auto file_read = locked_read(file, format);
    if (!file_read) return file_read.error();
    Contents& contents = file_read->contents;
    StoreOutcome outcome = StoreOutcome::added;
    if (const auto old = format.stored(contents, record)) {
      if (!replace && !format.faster(format.time(record), *old)) {
        state_->cache[file] = std::move(contents);
        return StoreOutcome::kept;
      }
      outcome = StoreOutcome::updated;
    }
    std::erase_if(file_read->skipped,
                  [&](const SkippedRecord& s) { return s.key == format.key(record); });
    format.put(contents, record);
    auto text = format.text(contents, std::span<const SkippedRecord>(file_read->skipped), file);
    if (!text) return text.error();
    if (auto ok = write_file_atomically(file, *text, durable_); !ok) return ok.error();
    state_->cache[file] = std::move(contents);
    return outcome;
  }

  /// Puts the record of `key` (format.key) in `file` back as it was: `before`, or none (the
  /// record is removed), under the file's lock with the file re-read, so that the records of
  /// other keys, written meanwhile by another process, are kept. The format has
  /// `erase(Contents&, key)`. Used by SGAT's --reload to undo the writes of a wave that was cut
  /// short (docs/sgat.md#reload); nothing is written when the file already holds `before`.
  Result<void> restore(const std::filesystem::path& file, const Format& format,
                       const std::string& key, const std::optional<Record>& before) {
    std::lock_guard guard(state_->mutex);
    auto file_read = locked_read(file, format);
    if (!file_read) return file_read.error();
    Contents& contents = file_read->contents;
    auto old = format.text(contents, std::span<const SkippedRecord>(file_read->skipped), file);
    if (!old) return old.error();
    if (before) {
      format.put(contents, *before);
    } else {
      format.erase(contents, key);
    }
    auto text = format.text(contents, std::span<const SkippedRecord>(file_read->skipped), file);
    if (!text) return text.error();
    if (*text != *old) {
      if (auto ok = write_file_atomically(file, *text, durable_); !ok) return ok.error();
    }
    state_->cache[file] = std::move(contents);
    return {};
  }

  /// Checks before a job that `file` can be read and written: creates its directory, takes
  /// (then releases) its lock, reads it and creates (then removes) the temporary file a store
  /// writes it through, so that a directory the store could not write fails here, before any
  /// tuning, and not at the first store.
  [[nodiscard]] Result<void> check_writable(const std::filesystem::path& file,
                                            const Format& format) const {
    auto lock = lock_bank_file(file, std::string(Format::bank), access_);
    if (!lock) return lock.error();
    auto contents = load(file, format);
    if (!contents) return contents.error();
    if (auto ok = check_atomic_write(file); !ok) {
      return ErrorInfo(ok.error().code, std::string(Format::bank) + ": " + ok.error().message);
    }
    return {};
  }

  /// Forgets the files read so far.
  void reload() {
    std::lock_guard lock(state_->mutex);
    state_->cache.clear();
  }

  /// Sends `message` to the warning sink the first time `what` is warned about.
  void warn_once(const std::string& what, const std::string& message) const {
    std::lock_guard lock(state_->warn_mutex);
    if (!state_->warned.insert(what).second) return;
    if (access_.on_warning) access_.on_warning(message);
  }

 private:
  /// A file as read: the records used and those skipped for their time; and the file's lock
  /// when it was read under it (locked_read).
  struct FileRead {
    Contents contents;
    std::vector<SkippedRecord> skipped;
    std::unique_ptr<FileDescriptor> lock;
  };

  /// `file` read now under its lock, which the result holds: what a change of the file starts
  /// with, so that records other processes wrote meanwhile are kept.
  [[nodiscard]] Result<FileRead> locked_read(const std::filesystem::path& file,
                                             const Format& format) const {
    auto lock = lock_bank_file(file, std::string(Format::bank), access_);
    if (!lock) return lock.error();
    auto file_read = read(file, format);
    if (file_read) file_read->lock = std::move(*lock);
    return file_read;
  }

  /// `file` read now; records skipped for their time are warned about once. The first read in a
  /// directory also removes the temporary files that dead writers left there (once per
  /// process), so that a run that only reads its bank, as `aoe::Online` does once every key is
  /// stored, still sweeps what a failed `unlink` of an earlier run left.
  [[nodiscard]] Result<FileRead> read(const std::filesystem::path& file,
                                      const Format& format) const {
    remove_stale_temporary_files_once(file.parent_path());
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
      if (!ec) return FileRead{};
      return make_error(Errc::io_error, std::string(Format::bank) + ": cannot read " +
                                            file.string() + ": " + ec.message());
    }
    auto text = aoe::detail::read_input_file(file, doc_);
    if (!text)
      return ErrorInfo(text.error().code, std::string(Format::bank) + ": " + text.error().message);
    FileRead out;
    auto contents = format.parse(std::move(*text), file, out.skipped);
    if (!contents) return contents.error();
    for (const auto& s : out.skipped) {
      warn_once(file.string() + "\n" + s.name,
                std::string(Format::bank) + ": " + file.string() + ": skipping the record of " +
                    s.name + ": its " + std::string(Format::quantity) +
                    " is not a positive finite time (it will be tuned again; the record stays in "
                    "the file until then)");
    }
    out.contents = std::move(*contents);
    return out;
  }

  struct State {
    std::mutex mutex;
    std::map<std::filesystem::path, Contents> cache;
    std::mutex warn_mutex;
    std::set<std::string> warned;
  };

  BankAccess access_{};
  bool durable_ = true;
  std::string doc_;
  std::unique_ptr<State> state_ = std::make_unique<State>();
};

}  // namespace aoe::detail

#endif  // AOE_REPO_BANK_STORE_HPP
