// AOE's operator knowledge bank on disk: a custom bank (read and written) over a read-only
// built-in bank, one JSON file per SoC, core count and knowledge kind, written atomically under
// a file lock. Models `repository_policy`, so it can be a Tuner's repository.
//
// Layout (docs/aoe-facts.md#operator-knowledge-bank-layout-and-key):
//   <root>/<soc_version>/unified_bank/
//   <soc_version>_<core_num>_AiCore_<schedule|format_type|impl_type>.json
// Content: {"schema_version": 1, "soc_version", "core_num", "core_type", "knowledge_kind",
//           "entries": {"<operator key text>": {"knowledge": {...}, "cost_time(us)", "value",
//                       "provenance": {"policy", "evaluations", "timestamp", "tool"}}}}
// An entry tuned for another objective than time (aoe::Objective) is named by the key text and
// the objective's suffix ("<operator key text>#objective=energy") and holds the objective's
// score in "value" (joules, joules x seconds, ...) with no "cost_time(us)" (docs/energy.md).
// AOE keys entries by the MD5 of the key text; we key by the text itself (readable, exact).
//
// Keys that are not AOE operator keys (a library user's, e.g. TuningKey{"matmul/n=256/fp32",
// "host"}) go to a file of their own per device, never into AOE's files:
//   <root>/<device>/user_bank/<device>_user_keys.json
// Content: {"schema_version": 1, "device", "knowledge_kind": "user_keys",
//           "entries": {"<problem>": <an entry as above>}}
// <device> is the key's device with every byte other than [A-Za-z0-9._-] written as %XX (a
// device of dots only is written wholly as %XX), so distinct devices never share a file.
#ifndef AOE_REPO_KNOWLEDGE_BANK_HPP
#define AOE_REPO_KNOWLEDGE_BANK_HPP

#include "aoe/config/environment.hpp"
#include "aoe/core/error.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/io/parse_json.hpp"
#include "aoe/io/read_input.hpp"
#include "aoe/io/write_json.hpp"
#include "aoe/op/bank_key.hpp"
#include "aoe/repo/bank_access.hpp"
#include "aoe/repo/bank_file.hpp"
#include "aoe/repo/bank_store.hpp"
#include "aoe/space/value.hpp"
#include "aoe/version.hpp"
#include "aoe/vocab/record.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace aoe {

/// The bank file schema version this build reads and writes.
inline constexpr std::int64_t knowledge_bank_schema_version = 1;

/// Where the bank lives.
struct KnowledgeBankOptions {
  std::filesystem::path custom_root;  ///< read and written
  std::optional<std::filesystem::path> builtin_root =
      std::nullopt;                                  ///< read only, consulted after the custom
  std::string tool = "openaoe " AOE_VERSION_STRING;  ///< written into each entry's provenance
  /// fsync each file written (and its directory): a store survives a power loss. false: each
  /// write is still atomic (temporary file, rename) and survives the process being killed, but
  /// not a power loss; a store then costs a fraction of a millisecond instead of ~10 ms on this
  /// project's CI disk (docs/online.md).
  bool durable = true;
  /// The lock timeout and where warnings about skipped records and unreadable built-in files go.
  BankAccess access{};
};

namespace detail {

/// One bank file's entries, by operator key text.
using BankEntries = std::map<std::string, Record>;

inline std::string bank_kind_file_part(KnowledgeKind k) {
  switch (k) {
    case KnowledgeKind::schedule: return "schedule";
    case KnowledgeKind::format: return "format_type";
    case KnowledgeKind::impl: return "impl_type";
  }
  return "schedule";
}

inline boost::json::value value_to_json(const Value& v) {
  if (v.is_integer()) return boost::json::value(v.as_integer());
  if (v.is_real()) return boost::json::value(v.as_real());
  return boost::json::value(v.as_text());
}

inline std::optional<Value> value_from_json(const boost::json::value& j) {
  if (j.is_int64()) return Value(j.as_int64());
  if (j.is_uint64()) return Value(static_cast<std::int64_t>(j.as_uint64()));
  if (j.is_double()) return Value(j.as_double());
  if (j.is_string()) return Value(std::string(j.as_string()));
  return std::nullopt;
}

/// A device name as a file name part: bytes other than [A-Za-z0-9._-] as %XX (and a name of
/// dots only wholly so), so that distinct devices never share a file and none leaves the root.
inline std::string bank_device_file_part(const std::string& device) {
  static constexpr char hex[] = "0123456789ABCDEF";
  const bool dots_only = device.find_first_not_of('.') == std::string::npos;
  std::string out;
  for (const char ch : device) {
    const auto c = static_cast<unsigned char>(ch);
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || (c == '.' && !dots_only);
    if (safe) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4U]);
      out.push_back(hex[c & 15U]);
    }
  }
  return out;
}

}  // namespace detail

/// The operator knowledge bank (custom over built-in). Thread-safe: lookups share a cache of the
/// files read; stores take the file lock, re-read, merge and write atomically, so two processes
/// writing one bank lose nothing. A corrupt file or one of an unknown schema version is an
/// error and is never overwritten.
class KnowledgeBank {
 public:
  KnowledgeBank() = default;
  explicit KnowledgeBank(KnowledgeBankOptions options) : options_(std::move(options)) {}

  /// The bank AOE's environment names: custom root `Environment::op_bank_root()`
  /// (TUNE_BANK_PATH, else ${ASCEND_CACHE_PATH}/aoe_data, else the default under HOME), built-in
  /// root under ASCEND_OPP_PATH when set. Used by `aoe::Online` when it makes its repository:
  /// online tuning stores every winner as it is found, so `durable` is false by default there
  /// (atomic, survives a killed process, not a power loss).
  [[nodiscard]] static KnowledgeBank from_environment(const Environment& env,
                                                      bool durable = false) {
    return KnowledgeBank(KnowledgeBankOptions{
        .custom_root = env.op_bank_root(),
        .builtin_root = env.builtin_bank_root(),
        .durable = durable,
        .access = {.lock_timeout = std::chrono::seconds(env.bank_lock_timeout)}});
  }

  [[nodiscard]] const KnowledgeBankOptions& options() const noexcept { return options_; }

  /// The bank file of a scope and kind under `root`.
  [[nodiscard]] static std::filesystem::path file_for(const std::filesystem::path& root,
                                                      const BankScope& scope, KnowledgeKind kind) {
    return root / scope.soc_version / "unified_bank" /
           (scope.soc_version + "_" + std::to_string(scope.core_num) + "_AiCore_" +
            detail::bank_kind_file_part(kind) + ".json");
  }

  /// The custom bank's file for a scope and kind.
  [[nodiscard]] std::filesystem::path custom_file(const BankScope& scope,
                                                  KnowledgeKind kind) const {
    return file_for(options_.custom_root, scope, kind);
  }

  /// The file of a device's user keys (keys that are not AOE operator keys) under `root`.
  [[nodiscard]] static std::filesystem::path user_file_for(const std::filesystem::path& root,
                                                           const std::string& device) {
    const std::string d = detail::bank_device_file_part(device);
    return root / d / "user_bank" / (d + "_user_keys.json");
  }

  /// The custom bank's file of a device's user keys.
  [[nodiscard]] std::filesystem::path custom_user_file(const std::string& device) const {
    return user_file_for(options_.custom_root, device);
  }

  /// The record for `key`: the custom bank first, then the built-in. An AOE operator key (of
  /// `make_bank_key`) is looked up in its SoC's file, any other key in its device's user-keys
  /// file. An unreadable, corrupt or unknown-version custom file is an error naming it; such a
  /// built-in file (the built-in bank belongs to CANN and may hold files in its own format) is
  /// skipped with one warning naming it. A record whose time is not a positive finite number is
  /// skipped with one warning naming the file and the key.
  [[nodiscard]] Result<std::optional<Record>> lookup(const TuningKey& key) const {
    auto slot = slot_for(key);
    if (!slot) return slot.error();
    for (const bool custom : {true, false}) {
      if (!custom && !options_.builtin_root) break;
      // The slot's file path, made once per distinct file and thread, not once per lookup: a
      // path of five parts cost two thirds of a cached lookup (docs/reliability.md#model-size).
      struct LastFile {
        std::string root, device, soc;
        int cores = -1;
        bool user = false;
        KnowledgeKind kind = KnowledgeKind::schedule;
        std::filesystem::path file;
      };
      thread_local LastFile last_custom, last_builtin;
      const auto& root = custom ? options_.custom_root : *options_.builtin_root;
      LastFile& l = custom ? last_custom : last_builtin;
      if (l.file.empty() || l.root != root.native() || l.user != slot->user ||
          l.device != slot->device || l.soc != slot->scope.soc_version ||
          l.cores != slot->scope.core_num || l.kind != slot->kind) {
        l = {root.native(), slot->device, slot->scope.soc_version, slot->scope.core_num,
             slot->user,    slot->kind,   slot->file(root)};
      }
      const std::filesystem::path& file = l.file;
      auto found = store_.with_cached(
          file, *slot,
          [&](const detail::BankEntries& entries) {
            const auto e = entries.find(slot->entry);
            return e == entries.end() ? std::optional<Record>() : std::optional<Record>(e->second);
          },
          !custom);
      if (!found) return found.error();
      if (found->has_value()) {
        (*found)->key = key;
        return found;
      }
    }
    return std::optional<Record>();
  }

  /// Stores `record` in the custom bank if it is new (`added`) or better than the stored one
  /// (`updated`); otherwise `kept` and nothing is written. Under the file's lock the file is
  /// re-read, so records written meanwhile by another process are kept. A time that is not a
  /// positive finite number is refused (`invalid_argument`). `replace`: the stored record is
  /// replaced whatever its value (a stale record, one that no longer fits the key's space).
  Result<StoreOutcome> store(const Record& record, bool replace = false) {
    auto slot = slot_for(record.key);
    if (!slot) return slot.error();
    return store_.store(slot->file(options_.custom_root), *slot, record, replace);
  }

  /// Checks, before a job starts, that the custom bank of `scope` can be written: creates its
  /// directory and takes (then releases) the lock of each kind's file.
  [[nodiscard]] Result<void> check_writable(const BankScope& scope) const {
    for (const auto kind : {KnowledgeKind::schedule, KnowledgeKind::format, KnowledgeKind::impl}) {
      const Slot slot = Slot::operator_key(scope, kind, {}, options_.tool);
      if (auto ok = store_.check_writable(custom_file(scope, kind), slot); !ok) return ok;
    }
    return {};
  }

  /// The same for the files of `kinds` only: a job locks only the files it will write (#18).
  [[nodiscard]] Result<void> check_writable(const BankScope& scope,
                                            std::span<const KnowledgeKind> kinds) const {
    for (const auto kind : kinds) {
      const Slot slot = Slot::operator_key(scope, kind, {}, options_.tool);
      if (auto ok = store_.check_writable(custom_file(scope, kind), slot); !ok) return ok;
    }
    return {};
  }

  /// Forgets the files read so far (the next lookup reads them again).
  void reload() { store_.reload(); }

  /// Every entry of one custom file (for tools and tests).
  [[nodiscard]] Result<std::map<std::string, Record>> entries(const BankScope& scope,
                                                              KnowledgeKind kind) const {
    return store_.load(custom_file(scope, kind),
                       Slot::operator_key(scope, kind, {}, options_.tool));
  }

  /// Every entry of one device's custom user-keys file, by problem (for tools and tests).
  [[nodiscard]] Result<std::map<std::string, Record>> user_entries(
      const std::string& device) const {
    return store_.load(custom_user_file(device), Slot::user_key(device, {}, options_.tool));
  }

 private:
  /// Where a key's entry lives (its file relative to a root, its name in the file's "entries",
  /// how the file's header reads), and the bank file format (detail::BankStore's Format).
  struct Slot : detail::BankFormat<detail::BankEntries, aoe::Record> {
    static constexpr std::string_view bank = "knowledge bank";
    static constexpr std::string_view quantity = "value";

    bool user = false;  ///< a user key (not an AOE operator key)
    BankScope scope;    ///< operator keys: the SoC and core count
    KnowledgeKind kind = KnowledgeKind::schedule;
    std::string device;  ///< user keys: the key's device
    std::string entry;   ///< the entry's name: the operator key text, or the problem

    static Slot operator_key(BankScope scope, KnowledgeKind kind, std::string entry,
                             std::string tool) {
      return Slot{{std::move(tool)}, false, std::move(scope), kind, {}, std::move(entry)};
    }
    static Slot user_key(std::string device, std::string entry, std::string tool) {
      return Slot{{std::move(tool)}, true, {}, KnowledgeKind::schedule, std::move(device),
                  std::move(entry)};
    }
    [[nodiscard]] std::filesystem::path file(const std::filesystem::path& root) const {
      return user ? user_file_for(root, device) : file_for(root, scope, kind);
    }
    /// The key a record read from this slot's file gets back.
    [[nodiscard]] TuningKey key_of(const std::string& name) const {
      if (user) return TuningKey{name, device};
      return TuningKey{std::string(to_string(kind)) + "|" + name,
                       scope.soc_version + "_" + std::to_string(scope.core_num)};
    }

    [[nodiscard]] std::optional<double> stored(const Contents& c, const Record& /*r*/) const {
      const auto it = c.find(entry);
      return it == c.end() ? std::nullopt : std::optional<double>(it->second.value);
    }
    void put(Contents& c, const Record& r) const { c[entry] = r; }
    [[nodiscard]] std::string key(const Record& /*r*/) const { return entry; }
    [[nodiscard]] static double time(const Record& r) { return r.value; }
    [[nodiscard]] static std::string name(const Record& r) { return r.key.problem; }

    /// The entries of a bank file; records whose time is not a positive finite number are left
    /// out and kept in `skipped`.
    [[nodiscard]] Result<Contents> parse(std::string bytes, const std::filesystem::path& file,
                                         std::vector<detail::SkippedRecord>& skipped) const;
    /// The file's text: `entries` and the `skipped` records, by entry name.
    [[nodiscard]] Result<std::string> text(const Contents& entries,
                                           std::span<const detail::SkippedRecord> skipped,
                                           const std::filesystem::path& file) const;
    /// An entry's `front` (a pareto entry's), into `front`; where it is not readable, the JSON
    /// pointer and what was expected there.
    static boost::json::array front_json(const std::vector<FrontMember>& front);
    static std::optional<std::pair<std::string, std::string>> read_front(
        const boost::json::object& entry, const std::string& ptr, std::vector<FrontMember>& front);
  };

  [[nodiscard]] Result<Slot> slot_for(const TuningKey& key) const {
    if (auto parsed = parse_bank_key(key)) {
      return Slot::operator_key(std::move(parsed->scope), parsed->kind, std::move(parsed->op_key),
                                options_.tool);
    }
    if (key.problem.empty() || key.device.empty()) {
      return make_error(Errc::invalid_argument, "knowledge bank: key '" + key.problem + "' on '" +
                                                    key.device +
                                                    "': expected a non-empty problem and device");
    }
    return Slot::user_key(key.device, key.problem, options_.tool);
  }

  KnowledgeBankOptions options_;
  detail::BankStore<Slot> store_{options_.access, options_.durable,
                                 "a knowledge bank file, docs/cli.md"};
};

inline Result<detail::BankEntries> KnowledgeBank::Slot::parse(
    std::string bytes, const std::filesystem::path& file,
    std::vector<detail::SkippedRecord>& skipped) const {
  detail::BankEntries out;
  const auto corrupt = [&](const std::string& where, const std::string& what) {
    return detail::corrupt_bank_file(bank, file.string() + ": " + where, what);
  };
  auto parsed = detail::parse_bank_json(bank, bytes, file);
  if (!parsed) return parsed.error();
  const auto* obj = parsed->if_object();
  if (obj == nullptr) return corrupt("/", "expected a JSON object");
  const auto* version = obj->if_contains("schema_version");
  if (version == nullptr || !version->is_int64()) {
    return corrupt("/schema_version", "expected an integer");
  }
  if (version->as_int64() != knowledge_bank_schema_version) {
    return detail::bank_file_of_another_version(bank, file.string() + ": /schema_version",
                                                std::to_string(knowledge_bank_schema_version),
                                                std::to_string(version->as_int64()));
  }
  const auto* entries = obj->if_contains("entries");
  if (entries == nullptr || !entries->is_object()) {
    return corrupt("/entries", "expected an object");
  }
  std::size_t at = 0;
  for (const auto& [k, v] : entries->as_object()) {
    const std::string ptr = "/entries/" + detail::pointer_token(k);
    const auto* e = v.if_object();
    if (e == nullptr) return corrupt(ptr, "expected an object");
    Record r;
    r.key = key_of(std::string(k));
    const auto* knowledge = e->if_contains("knowledge");
    if (knowledge == nullptr || !knowledge->is_object()) {
      return corrupt(ptr + "/knowledge", "expected an object of parameter values");
    }
    for (const auto& [name, value] : knowledge->as_object()) {
      auto val = detail::value_from_json(value);
      if (!val)
        return corrupt(ptr + "/knowledge/" + detail::pointer_token(name), "expected a scalar");
      r.configuration.push_back({std::string(name), std::move(*val)});
    }
    const auto* value = e->if_contains("value");
    if (value == nullptr || !value->is_number()) {
      return corrupt(ptr + "/value", "expected the measured time in seconds");
    }
    r.value = value->to_number<double>();
    if (!detail::storable_time(r.value)) {
      skipped.push_back({"'" + std::string(k) + "'", std::string(k), at++, v});
      continue;
    }
    detail::read_provenance(*e, r.provenance);
    if (auto err = read_front(*e, ptr, r.front)) return corrupt(err->first, err->second);
    out.emplace(std::string(k), std::move(r));
    ++at;
  }
  return out;
}

inline boost::json::array KnowledgeBank::Slot::front_json(const std::vector<FrontMember>& front) {
  boost::json::array out;
  for (const auto& f : front) {
    boost::json::object member;
    boost::json::object knowledge;
    for (const auto& nv : f.configuration) knowledge[nv.name] = detail::value_to_json(nv.value);
    member["knowledge"] = std::move(knowledge);
    member["time(us)"] = f.seconds * 1e6;
    member["energy(mJ)"] = f.joules * 1e3;
    out.push_back(std::move(member));
  }
  return out;
}

inline std::optional<std::pair<std::string, std::string>> KnowledgeBank::Slot::read_front(
    const boost::json::object& entry, const std::string& ptr, std::vector<FrontMember>& front) {
  const auto* members = entry.if_contains("front");
  if (members == nullptr) return std::nullopt;
  if (!members->is_array()) return std::pair{ptr + "/front", std::string("expected an array")};
  for (std::size_t i = 0; i < members->as_array().size(); ++i) {
    const std::string at = ptr + "/front/" + std::to_string(i);
    const auto* m = members->as_array()[i].if_object();
    const auto* knowledge = m != nullptr ? m->if_contains("knowledge") : nullptr;
    if (knowledge == nullptr || !knowledge->is_object()) {
      return std::pair{at + "/knowledge", std::string("expected an object of parameter values")};
    }
    FrontMember f;
    for (const auto& [name, value] : knowledge->as_object()) {
      auto val = detail::value_from_json(value);
      if (!val)
        return std::pair{at + "/knowledge/" + detail::pointer_token(name), "expected a scalar"};
      f.configuration.push_back({std::string(name), std::move(*val)});
    }
    const auto* us = m->if_contains("time(us)");
    const auto* mj = m->if_contains("energy(mJ)");
    if (us == nullptr || !us->is_number()) {
      return std::pair{at + "/time(us)", std::string("expected a number")};
    }
    if (mj == nullptr || !mj->is_number()) {
      return std::pair{at + "/energy(mJ)", std::string("expected a number")};
    }
    f.seconds = us->to_number<double>() * 1e-6;
    f.joules = mj->to_number<double>() * 1e-3;
    front.push_back(std::move(f));
  }
  return std::nullopt;
}

inline Result<std::string> KnowledgeBank::Slot::text(const detail::BankEntries& entries,
                                                     std::span<const detail::SkippedRecord> skipped,
                                                     const std::filesystem::path& file) const {
  boost::json::object root;
  root["schema_version"] = knowledge_bank_schema_version;
  if (user) {
    root["device"] = device;
    root["knowledge_kind"] = "user_keys";
  } else {
    root["soc_version"] = scope.soc_version;
    root["core_num"] = scope.core_num;
    root["core_type"] = "AiCore";
    root["knowledge_kind"] = std::string(to_string(kind));
  }
  // By entry name, the skipped records among them.
  std::map<std::string, boost::json::value> all;
  for (const auto& s : skipped) all.emplace(s.key, s.json);
  for (const auto& [k, r] : entries) {
    boost::json::object e;
    boost::json::object knowledge;
    for (const auto& nv : r.configuration) knowledge[nv.name] = detail::value_to_json(nv.value);
    e["knowledge"] = std::move(knowledge);
    // An entry of an objective other than time (its name ends in Objective::key_suffix, e.g.
    // "#objective=energy") holds that objective's score in "value", no time.
    if (k.find("#objective=") == std::string::npos) e["cost_time(us)"] = r.value * 1e6;
    e["value"] = r.value;
    e["provenance"] = detail::provenance_json(r.provenance, tool);
    // A pareto entry: the front its configuration was picked from, in the result file's units.
    if (!r.front.empty()) e["front"] = front_json(r.front);
    all.insert_or_assign(k, std::move(e));
  }
  boost::json::object& out = root["entries"].emplace_object();
  for (auto& [k, e] : all) out[k] = std::move(e);
  return aoe::detail::serialize_json(root, file.string());
}

}  // namespace aoe

#endif  // AOE_REPO_KNOWLEDGE_BANK_HPP
