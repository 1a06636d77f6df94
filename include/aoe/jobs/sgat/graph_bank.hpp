// SGAT's graph bank (AOE's subgraph "model bank"; ascend-aoe-facts.md §2.5(c)): one file per
// SoC, <root>/<soc_version in lower case>_l2cache.json, in JSON lines. The first line is
// {"version": "2.1"}; each other line is one subgraph's strategy:
//   {"repo_key": "<decimal 64-bit key>", "modelName", "graphID",
//    "feature": {"feature": [{"struct": [{"op", "in": [shapes], "dsize": [bytes per element]}]}]},
//    "strategy": {"end2EndTime": <us>, "group": [{"cut", "fusionType", "scopeId", "ubPass", ...}]},
//    "knowledge": {<parameter>: <value>}, "value": <seconds>, "signature": "<structure text>",
//    "provenance": {"policy", "evaluations", "timestamp", "tool"}}
// `feature` and `strategy` are AOE's fields; `knowledge` restores the configuration, `signature`
// tells a 64-bit key collision from a hit. The root is Environment::graph_bank_root()
// (TUNE_BANK_PATH, ${ASCEND_CACHE_PATH}/aoe_data, ${HOME}/Ascend/latest/data/aoe/custom/graph).
// Writes take a file lock, re-read the file, merge and rename a complete new file into place; a
// corrupt file or one of another version is an error naming the file and line, left as it is.
#ifndef AOE_JOBS_SGAT_GRAPH_BANK_HPP
#define AOE_JOBS_SGAT_GRAPH_BANK_HPP

#include "aoe/core/error.hpp"
#include "aoe/detail/parse_json.hpp"
#include "aoe/detail/read_input.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/jobs/sgat/subgraph_key.hpp"
#include "aoe/repo/bank_access.hpp"
#include "aoe/repo/detail/bank_file.hpp"
#include "aoe/repo/knowledge_bank.hpp"
#include "aoe/repo/record.hpp"
#include "aoe/space/value.hpp"
#include "aoe/version.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
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

/// The graph bank. Thread-safe; lookups share a cache of the files read.
class GraphBank {
 public:
  GraphBank() = default;
  explicit GraphBank(GraphBankOptions options)
      : options_(std::move(options)), state_(std::make_unique<State>()) {}
  GraphBank(GraphBank&&) noexcept = default;
  GraphBank& operator=(GraphBank&&) noexcept = default;

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
    std::lock_guard lock(state_->mutex);
    const auto path = file(soc_version);
    auto it = state_->cache.find(path);
    if (it == state_->cache.end()) {
      auto records = load(path);
      if (!records) return records.error();
      it = state_->cache.emplace(path, std::move(*records)).first;
    }
    for (const auto& r : it->second) {
      if (r.repo_key == key.repo_key() && r.signature == key.signature) {
        return std::optional<GraphBankRecord>(r);
      }
    }
    return std::optional<GraphBankRecord>();
  }

  /// Stores `record` if its key is new (`added`) or it is faster than the stored strategy
  /// (`updated`); otherwise `kept`, and nothing is written. Under the file lock the file is
  /// re-read, so strategies written meanwhile by another process are kept. A time that is not a
  /// positive finite number is refused (`invalid_argument`).
  Result<StoreOutcome> store(std::string_view soc_version, const GraphBankRecord& record) {
    if (!detail::storable_time(record.value)) {
      return detail::unstorable_time("graph bank", record.repo_key, record.value);
    }
    const auto path = file(soc_version);
    std::lock_guard guard(state_->mutex);
    auto lock = lock_file(path);
    if (!lock) return lock.error();
    auto records = load(path);
    if (!records) return records.error();
    StoreOutcome outcome = StoreOutcome::added;
    bool placed = false;
    for (auto& r : *records) {
      // Another subgraph under the same 64-bit key (a collision) keeps its own line.
      if (r.repo_key != record.repo_key || r.signature != record.signature) continue;
      if (!(record.value < r.value)) {
        state_->cache[path] = std::move(*records);
        return StoreOutcome::kept;
      }
      outcome = StoreOutcome::updated;
      r = record;
      placed = true;
      break;
    }
    if (!placed) records->push_back(record);
    if (auto ok = write_file(path, *records); !ok) return ok.error();
    state_->cache[path] = std::move(*records);
    return outcome;
  }

  /// Checks before a job that the bank file of `soc_version` can be locked and read (creating
  /// the root directory): an unwritable root or a corrupt file fails here, before any tuning.
  [[nodiscard]] Result<void> check_writable(std::string_view soc_version) const {
    const auto path = file(soc_version);
    auto lock = lock_file(path);
    if (!lock) return lock.error();
    auto records = load(path);
    if (!records) return records.error();
    return {};
  }

  /// Every record of a SoC's file, in file order.
  [[nodiscard]] Result<std::vector<GraphBankRecord>> entries(std::string_view soc_version) const {
    return load(file(soc_version));
  }

  /// Forgets the files read so far.
  void reload() {
    std::lock_guard lock(state_->mutex);
    state_->cache.clear();
  }

  /// A record as its JSON line (without the newline).
  [[nodiscard]] std::string to_line(const GraphBankRecord& r) const {
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
    boost::json::object p;
    p["policy"] = r.provenance.policy;
    p["evaluations"] = static_cast<std::int64_t>(r.provenance.evaluations);
    p["timestamp"] = r.provenance.timestamp;
    p["tool"] = options_.tool;
    o["provenance"] = std::move(p);
    return boost::json::serialize(o);
  }

 private:
  struct State {
    std::mutex mutex;
    std::map<std::filesystem::path, std::vector<GraphBankRecord>> cache;
    std::mutex warn_mutex;
    std::set<std::string> warned;  ///< file and key of each record warned about
  };

  [[nodiscard]] Result<std::unique_ptr<detail::FileDescriptor>> lock_file(
      const std::filesystem::path& file) const {
    return detail::lock_bank_file(file, "graph bank", options_.access);
  }

  /// `read_file`, warning once about each record skipped for its time.
  [[nodiscard]] Result<std::vector<GraphBankRecord>> load(const std::filesystem::path& file) const {
    std::vector<std::string> skipped;
    auto records = read_file(file, skipped);
    std::lock_guard lock(state_->warn_mutex);
    for (const auto& key : skipped) {
      if (!state_->warned.insert(file.string() + "\n" + key).second) continue;
      if (options_.access.on_warning) {
        options_.access.on_warning("graph bank: " + file.string() + ": skipping the record of '" +
                                   key +
                                   "': its value is not a positive finite time (it will be "
                                   "tuned again)");
      }
    }
    return records;
  }

  /// The records of `file` (none when it does not exist). Records whose time is not a positive
  /// finite number are left out and "<line>: <repo_key>" added to `skipped`.
  [[nodiscard]] static Result<std::vector<GraphBankRecord>> read_file(
      const std::filesystem::path& file, std::vector<std::string>& skipped) {
    std::vector<GraphBankRecord> out;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
      if (!ec) return out;
      return make_error(Errc::io_error,
                        "graph bank: cannot read " + file.string() + ": " + ec.message());
    }
    auto content = aoe::detail::read_input_file(file, "a graph bank file, docs/sgat.md");
    if (!content) return ErrorInfo(content.error().code, "graph bank: " + content.error().message);
    std::istringstream in(std::move(*content));
    std::string line;
    std::size_t number = 0;
    bool versioned = false;
    const auto corrupt = [&](const std::string& pointer, const std::string& what) {
      return make_error(Errc::parse_error,
                        "graph bank: " + file.string() + ":" + std::to_string(number) + ": " +
                            pointer + ": " + what +
                            "; the file is corrupt and was left as it is (repair it or move it "
                            "away to start a new bank)");
    };
    while (std::getline(in, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto parsed = aoe::detail::parse_json(line, "line " + std::to_string(number));
      if (!parsed) {
        return corrupt("/", "expected a JSON object on one line (" + parsed.error().message + ")");
      }
      const boost::json::value& v = *parsed;
      const auto* o = v.if_object();
      if (o == nullptr) return corrupt("/", "expected a JSON object");
      if (!versioned) {
        const auto* version = o->if_contains("version");
        if (version == nullptr || !version->is_string()) {
          return corrupt("/version", "expected the first line {\"version\": \"2.1\"}");
        }
        if (version->as_string() != graph_bank_version) {
          return make_error(Errc::unsupported_version,
                            "graph bank: " + file.string() + ":" + std::to_string(number) +
                                ": /version: expected \"2.1\", found \"" +
                                std::string(version->as_string()) +
                                "\"; written by another version, left as it is");
        }
        versioned = true;
        continue;
      }
      GraphBankRecord r;
      const auto text = [&](const char* key, std::string& to) -> Result<void> {
        const auto* f = o->if_contains(key);
        if (f == nullptr || !f->is_string()) {
          return corrupt(std::string("/") + key, "expected a string");
        }
        to = std::string(f->as_string());
        return {};
      };
      if (auto ok = text("repo_key", r.repo_key); !ok) return ok.error();
      if (r.repo_key.empty() || r.repo_key.find_first_not_of("0123456789") != std::string::npos) {
        return corrupt("/repo_key", "expected a decimal number in a string");
      }
      if (auto ok = text("signature", r.signature); !ok) return ok.error();
      if (const auto* m = o->if_contains("modelName"); m != nullptr && m->is_string()) {
        r.model_name = std::string(m->as_string());
      }
      if (const auto* id = o->if_contains("graphID"); id != nullptr && id->is_int64()) {
        r.graph_id = id->as_int64();
      }
      const auto* knowledge = o->if_contains("knowledge");
      if (knowledge == nullptr || !knowledge->is_object()) {
        return corrupt("/knowledge", "expected an object of parameter values");
      }
      for (const auto& [name, value] : knowledge->as_object()) {
        auto val = detail::value_from_json(value);
        if (!val) return corrupt("/knowledge/" + std::string(name), "expected a scalar");
        r.knowledge.push_back({std::string(name), std::move(*val)});
      }
      const auto* value = o->if_contains("value");
      if (value == nullptr || !value->is_number()) {
        return corrupt("/value", "expected the subgraph's time in seconds");
      }
      r.value = value->to_number<double>();
      if (!detail::storable_time(r.value)) {
        skipped.push_back(r.repo_key);
        continue;
      }
      for (const char* key : {"feature", "strategy"}) {
        const auto* f = o->if_contains(key);
        if (f == nullptr || !f->is_object()) {
          return corrupt(std::string("/") + key, "expected an object");
        }
        (std::string_view(key) == "feature" ? r.feature : r.strategy) = f->as_object();
      }
      const auto* end2end = r.strategy.if_contains("end2EndTime");
      if (end2end == nullptr || !end2end->is_number()) {
        return corrupt("/strategy/end2EndTime", "expected a number (microseconds)");
      }
      if (const auto* p = o->if_contains("provenance"); p != nullptr && p->is_object()) {
        const auto& po = p->as_object();
        if (const auto* s = po.if_contains("policy"); s && s->is_string()) {
          r.provenance.policy = std::string(s->as_string());
        }
        if (const auto* s = po.if_contains("evaluations"); s && s->is_int64()) {
          r.provenance.evaluations = static_cast<std::size_t>(s->as_int64());
        }
        if (const auto* s = po.if_contains("timestamp"); s && s->is_string()) {
          r.provenance.timestamp = std::string(s->as_string());
        }
      }
      out.push_back(std::move(r));
    }
    if (!in.eof()) return make_error(Errc::io_error, "graph bank: cannot read " + file.string());
    if (!versioned && number > 0) {
      number = 1;
      return corrupt("/version", "expected the first line {\"version\": \"2.1\"}");
    }
    return out;
  }

  [[nodiscard]] Result<void> write_file(const std::filesystem::path& file,
                                        const std::vector<GraphBankRecord>& records) const {
    std::string text = "{\"version\": \"";
    text += graph_bank_version;
    text += "\"}\n";
    for (const auto& r : records) text += to_line(r) + "\n";
    return write_file_atomically(file, text);
  }

  GraphBankOptions options_;
  std::unique_ptr<State> state_ = std::make_unique<State>();
};

}  // namespace aoe

#endif  // AOE_JOBS_SGAT_GRAPH_BANK_HPP
