// SGAT's graph bank (AOE's subgraph "model bank"; docs/aoe-facts.md#subgraph-graph-bank): one
// file per SoC, <root>/<soc_version in lower case>_l2cache.json, in JSON lines. The first line is
// {"version": "2.1"}; each other line is one subgraph's strategy:
//   {"repo_key": "<decimal 64-bit key>", "modelName", "graphID",
//    "feature": {"feature": [{"struct": [{"op", "in": [shapes], "dsize": [bytes per element]}]}]},
//    "strategy": {"end2EndTime": <us>, "group": [{"cut", "fusionType", "scopeId", "ubPass", ...}]},
//    "knowledge": {<parameter>: <value>}, "value": <seconds>, "signature": "<structure text>",
//    "provenance": {"policy", "evaluations", "timestamp", "tool", "timing": {"kind", "source"}}}
// `feature` and `strategy` are AOE's fields; `knowledge` restores the configuration, `signature`
// tells a 64-bit key collision from a hit. The root is Environment::graph_bank_root()
// (TUNE_BANK_PATH, ${ASCEND_CACHE_PATH}/aoe_data, ${HOME}/Ascend/latest/data/aoe/custom/graph).
// Writes take a file lock, re-read the file, merge and rename a complete new file into place; a
// corrupt file or one of another version is an error naming the file and line, left as it is.
#ifndef AOE_JOBS_SGAT_GRAPH_BANK_HPP
#define AOE_JOBS_SGAT_GRAPH_BANK_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/io/parse_json.hpp"
#include "aoe/io/read_input.hpp"
#include "aoe/io/write_json.hpp"
#include "aoe/jobs/sgat/subgraph_key.hpp"
#include "aoe/repo/bank_access.hpp"
#include "aoe/repo/bank_file.hpp"
#include "aoe/repo/bank_store.hpp"
#include "aoe/repo/knowledge_bank.hpp"
#include "aoe/space/value.hpp"
#include "aoe/version.hpp"
#include "aoe/vocab/record.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <cctype>
#include <cerrno>
#include <cstdint>
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
#include <string_view>
#include <system_error>
#include <vector>

namespace aoe {

/// The graph bank file version this build reads and writes (AOE's built-in l2cache files').
inline constexpr std::string_view graph_bank_version = "2.1";

/// One subgraph strategy of the bank.
struct GraphBankRecord {
  std::string repo_key;               ///< the subgraph key, decimal (SubgraphKey::repo_key)
  std::string signature;              ///< the subgraph's structure text (SubgraphKey)
  std::string model_name;             ///< the model it was tuned in
  std::int64_t graph_id = 0;          ///< its subgraph index in that model
  std::vector<NamedValue> knowledge;  ///< the strategy's parameter values
  double value = 0;                   ///< the subgraph's simulated time, seconds
  boost::json::object feature;        ///< AOE's feature object
  boost::json::object strategy;       ///< AOE's strategy object
  Provenance provenance;
};

/// Where the bank lives.
struct GraphBankOptions {
  std::filesystem::path root;                        ///< Environment::graph_bank_root()
  std::string tool = "openaoe " AOE_VERSION_STRING;  ///< written into each provenance
  /// The lock timeout and where warnings about skipped records go.
  BankAccess access{};
};

/// The graph bank file format (detail::BankStore's Format): JSON lines, a version line first.
struct GraphBankFile : detail::BankFormat<std::vector<GraphBankRecord>, GraphBankRecord> {
  static constexpr std::string_view bank = "graph bank";
  static constexpr std::string_view quantity = "value";

  /// The records of a file's text; those whose time is not a positive finite number are left
  /// out and kept in `skipped`.
  [[nodiscard]] Result<Contents> parse(std::string bytes, const std::filesystem::path& file,
                                       std::vector<detail::SkippedRecord>& skipped) const;
  /// Another subgraph under the same 64-bit key (a collision) keeps its own line.
  [[nodiscard]] static std::optional<double> stored(const Contents& c, const Record& r) {
    for (const auto& s : c) {
      if (s.repo_key == r.repo_key && s.signature == r.signature) return s.value;
    }
    return std::nullopt;
  }
  static void put(Contents& c, const Record& r) {
    for (auto& s : c) {
      if (s.repo_key == r.repo_key && s.signature == r.signature) {
        s = r;
        return;
      }
    }
    c.push_back(r);
  }
  /// Removes the record whose key() is `k` (GraphBank::restore).
  static void erase(Contents& c, const std::string& k) {
    std::erase_if(c, [&](const Record& r) { return key(r) == k; });
  }
  [[nodiscard]] static double time(const Record& r) { return r.value; }
  [[nodiscard]] static std::string name(const Record& r) { return r.repo_key; }
  [[nodiscard]] static std::string key(const Record& r) { return r.repo_key + "\n" + r.signature; }

  /// A record as its JSON line (without the newline); `where` names it in an error (a number
  /// that is not finite).
  [[nodiscard]] Result<std::string> line(const GraphBankRecord& r, const std::string& where) const {
    boost::json::object o;
    o["repo_key"] = r.repo_key;
    o["modelName"] = r.model_name;
    o["graphID"] = r.graph_id;
    o["feature"] = r.feature;
    o["strategy"] = r.strategy;
    boost::json::object k;
    for (const auto& nv : r.knowledge) k[nv.name] = detail::value_to_json(nv.value);
    o["knowledge"] = std::move(k);
    o["value"] = r.value;
    o["signature"] = r.signature;
    o["provenance"] = detail::provenance_json(r.provenance, tool);
    return detail::serialize_json(o, where);
  }
  /// The file's text: the version line, then `records` with the `skipped` ones in their places.
  [[nodiscard]] Result<std::string> text(const Contents& records,
                                         std::span<const detail::SkippedRecord> skipped,
                                         const std::filesystem::path& file) const {
    std::string text = "{\"version\": \"";
    text += graph_bank_version;
    text += "\"}\n";
    std::optional<ErrorInfo> error;
    std::size_t number = 1;
    const auto add = [&](Result<std::string> l) {
      if (!l && !error) error = l.error();
      if (l) text += *l + "\n";
    };
    detail::in_file_order(
        records.size(), skipped,
        [&](std::size_t i) {
          add(line(records[i], file.string() + ":" + std::to_string(++number)));
        },
        [&](const detail::SkippedRecord& s) {
          add(detail::serialize_json(s.json, file.string() + ":" + std::to_string(++number)));
        });
    if (error) return *error;
    return text;
  }

 private:
  /// The error of a corrupt file: `at` is "<file>:<line>: ", `pointer` the field's JSON pointer.
  [[nodiscard]] static ErrorInfo corrupt(const std::string& at, const std::string& pointer,
                                         const std::string& what) {
    return detail::corrupt_bank_file(bank, at + pointer, what);
  }

  /// The first line, {"version": "2.1"}, at `at`.
  [[nodiscard]] static Result<void> check_version(const boost::json::object& o,
                                                  const std::string& at) {
    const auto* version = o.if_contains("version");
    if (version == nullptr || !version->is_string()) {
      return corrupt(at, "/version", "expected the first line {\"version\": \"2.1\"}");
    }
    if (version->as_string() != graph_bank_version) {
      return detail::bank_file_of_another_version(bank, at + "/version", "\"2.1\"",
                                                  "\"" + std::string(version->as_string()) + "\"");
    }
    return {};
  }

  /// A record line's key, names, knowledge and time (the line at `at`), into `r`.
  [[nodiscard]] static Result<void> read_key(const boost::json::object& o, const std::string& at,
                                             GraphBankRecord& r) {
    const auto text = [&](const char* key, std::string& to) -> Result<void> {
      const auto* f = o.if_contains(key);
      if (f == nullptr || !f->is_string()) {
        return corrupt(at, std::string("/") + key, "expected a string");
      }
      to = std::string(f->as_string());
      return {};
    };
    if (auto ok = text("repo_key", r.repo_key); !ok) return ok.error();
    if (r.repo_key.empty() || r.repo_key.find_first_not_of("0123456789") != std::string::npos) {
      return corrupt(at, "/repo_key", "expected a decimal number in a string");
    }
    if (auto ok = text("signature", r.signature); !ok) return ok.error();
    if (const auto* m = o.if_contains("modelName"); m != nullptr && m->is_string()) {
      r.model_name = std::string(m->as_string());
    }
    if (const auto* id = o.if_contains("graphID"); id != nullptr && id->is_int64()) {
      r.graph_id = id->as_int64();
    }
    const auto* knowledge = o.if_contains("knowledge");
    if (knowledge == nullptr || !knowledge->is_object()) {
      return corrupt(at, "/knowledge", "expected an object of parameter values");
    }
    for (const auto& [name, value] : knowledge->as_object()) {
      auto val = detail::value_from_json(value);
      if (!val)
        return corrupt(at, "/knowledge/" + detail::pointer_token(name), "expected a scalar");
      r.knowledge.push_back({std::string(name), std::move(*val)});
    }
    const auto* value = o.if_contains("value");
    if (value == nullptr || !value->is_number()) {
      return corrupt(at, "/value", "expected the subgraph's time in seconds");
    }
    r.value = value->to_number<double>();
    return {};
  }

  /// A record line's feature, strategy and provenance (the line at `at`), into `r`.
  [[nodiscard]] static Result<void> read_strategy(const boost::json::object& o,
                                                  const std::string& at, GraphBankRecord& r) {
    for (const char* key : {"feature", "strategy"}) {
      const auto* f = o.if_contains(key);
      if (f == nullptr || !f->is_object()) {
        return corrupt(at, std::string("/") + key, "expected an object");
      }
      (std::string_view(key) == "feature" ? r.feature : r.strategy) = f->as_object();
    }
    const auto* end2end = r.strategy.if_contains("end2EndTime");
    if (end2end == nullptr || !end2end->is_number()) {
      return corrupt(at, "/strategy/end2EndTime", "expected a number (microseconds)");
    }
    detail::read_provenance(o, r.provenance);
    return {};
  }
};

/// The graph bank. Thread-safe; lookups share a cache of the files read.
class GraphBank {
 public:
  GraphBank() = default;
  explicit GraphBank(GraphBankOptions options) : options_(std::move(options)) {}

  [[nodiscard]] const GraphBankOptions& options() const noexcept { return options_; }

  /// <root>/<soc_version lower case>_l2cache.json
  [[nodiscard]] static std::filesystem::path file_for(const std::filesystem::path& root,
                                                      std::string_view soc_version) {
    std::string lower;
    for (const char c : soc_version) {
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return root / (lower + "_l2cache.json");
  }
  [[nodiscard]] std::filesystem::path file(std::string_view soc_version) const {
    return file_for(options_.root, soc_version);
  }

  /// The strategy stored for `key` on `soc_version`, if any (a record under the same repo_key
  /// whose signature differs, a 64-bit collision, is not a hit).
  [[nodiscard]] Result<std::optional<GraphBankRecord>> lookup(std::string_view soc_version,
                                                              const SubgraphKey& key) const {
    return store_.with_cached(file(soc_version), format_, [&](const auto& records) {
      for (const auto& r : records) {
        if (r.repo_key == key.repo_key() && r.signature == key.signature) {
          return std::optional<GraphBankRecord>(r);
        }
      }
      return std::optional<GraphBankRecord>();
    });
  }

  /// Stores `record` if its key is new (`added`) or it is faster than the stored strategy
  /// (`updated`); otherwise `kept`, and nothing is written. Under the file lock the file is
  /// re-read, so strategies written meanwhile by another process are kept. A time that is not a
  /// positive finite number is refused (`invalid_argument`). `replace`: the stored strategy is
  /// replaced whatever its time (a stale record, one that no longer fits the subgraph's space).
  Result<StoreOutcome> store(std::string_view soc_version, const GraphBankRecord& record,
                             bool replace = false) {
    return store_.store(file(soc_version), format_, record, replace);
  }

  /// Checks before a job that the bank file of `soc_version` can be locked and read (creating
  /// the root directory): an unwritable root or a corrupt file fails here, before any tuning.
  [[nodiscard]] Result<void> check_writable(std::string_view soc_version) const {
    return store_.check_writable(file(soc_version), format_);
  }

  /// Every record of a SoC's file, in file order.
  [[nodiscard]] Result<std::vector<GraphBankRecord>> entries(std::string_view soc_version) const {
    return store_.load(file(soc_version), format_);
  }

  /// Puts the strategy of `key` on `soc_version` back as it was: `before`, or none (removed),
  /// the other records as they are now (BankStore::restore; SGAT's --reload).
  Result<void> restore(std::string_view soc_version, const SubgraphKey& key,
                       const std::optional<GraphBankRecord>& before) {
    return store_.restore(file(soc_version), format_, key.repo_key() + "\n" + key.signature,
                          before);
  }

  /// Forgets the files read so far.
  void reload() { store_.reload(); }

  /// A record as its JSON line (without the newline), as a bank file holds it; a number that is
  /// not finite is an error.
  [[nodiscard]] Result<std::string> to_line(const GraphBankRecord& r) const {
    return format_.line(r, "graph bank record " + r.repo_key);
  }

  /// The record of a line written by to_line; `where` names it in an error (the file and the
  /// field that holds the line).
  [[nodiscard]] Result<GraphBankRecord> from_line(std::string_view line,
                                                  const std::string& where) const {
    std::string text = "{\"version\": \"";
    text += graph_bank_version;
    text += "\"}\n";
    text += line;
    std::vector<detail::SkippedRecord> skipped;
    auto records = format_.parse(std::move(text), where, skipped);
    if (!records) return records.error();
    if (records->size() != 1) {
      return make_error(Errc::schema_error, where +
                                                ": expected one graph bank record with a "
                                                "positive finite value");
    }
    return std::move(records->front());
  }

 private:
  GraphBankOptions options_;
  GraphBankFile format_{{options_.tool}};
  detail::BankStore<GraphBankFile> store_{options_.access, true, "a graph bank file, docs/sgat.md"};
};

inline Result<std::vector<GraphBankRecord>> GraphBankFile::parse(
    std::string bytes, const std::filesystem::path& file,
    std::vector<detail::SkippedRecord>& skipped) const {
  std::vector<GraphBankRecord> out;
  std::istringstream in(std::move(bytes));
  std::string line;
  std::size_t number = 0;
  bool versioned = false;
  const auto at = [&] { return file.string() + ":" + std::to_string(number) + ": "; };
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto parsed = aoe::detail::parse_json(line, "line " + std::to_string(number));
    if (!parsed) {
      return corrupt(at(), "/",
                     "expected a JSON object on one line (" + parsed.error().message + ")");
    }
    const auto* o = parsed->if_object();
    if (o == nullptr) return corrupt(at(), "/", "expected a JSON object");
    if (!versioned) {
      if (auto ok = check_version(*o, at()); !ok) return ok.error();
      versioned = true;
      continue;
    }
    GraphBankRecord r;
    if (auto ok = read_key(*o, at(), r); !ok) return ok.error();
    if (!detail::storable_time(r.value)) {
      skipped.push_back({"'" + r.repo_key + "'", key(r), out.size() + skipped.size(), *parsed});
      continue;
    }
    if (auto ok = read_strategy(*o, at(), r); !ok) return ok.error();
    out.push_back(std::move(r));
  }
  if (!in.eof()) return make_error(Errc::io_error, "graph bank: cannot read " + file.string());
  if (!versioned && number > 0) {
    return corrupt(file.string() + ":1: ", "/version",
                   "expected the first line {\"version\": \"2.1\"}");
  }
  return out;
}

}  // namespace aoe

#endif  // AOE_JOBS_SGAT_GRAPH_BANK_HPP
