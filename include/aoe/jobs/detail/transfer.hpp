// Transfer into an operator's search (docs/search.md#transfer): what a job already knows is
// given to the search as its first points. The default configuration and the bank's stored one
// were measured before the search starts: `KnownMeasure` hands their measurements back instead
// of measuring them again. `TransferHints` holds the bank's winners as the bank stood when the
// job started, plus the winners of operators tuned earlier in the job (a fixed order), and finds
// the winners of the operators most like a given one: same type, nearest shapes; other SoCs'
// after this SoC's. Nothing in it depends on timing, threads or ranks.
#ifndef AOE_JOBS_DETAIL_TRANSFER_HPP
#define AOE_JOBS_DETAIL_TRANSFER_HPP

#include "aoe/core/error.hpp"
#include "aoe/op/bank_key.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/repo/knowledge_bank.hpp"
#include "aoe/search/transfer_data.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/tuner.hpp"
#include "aoe/vocab/measurement.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe::detail {

/// A measure policy that returns the given measurements of configurations measured before the
/// run (the default configuration, the bank's stored one) and forwards the rest to `Measure`, so
/// that a search that starts from them measures each once.
template <class Measure>
class KnownMeasure {
 public:
  static constexpr bool reports_device_time = detail::reports_device_time<Measure>();

  KnownMeasure(Measure inner, std::vector<std::pair<Configuration, Measurement>> known)
      : inner_(std::move(inner)) {
    for (auto& [c, m] : known) known_.emplace(std::move(c), std::move(m));
  }

  std::vector<Measurement> measure(SpaceView view, std::span<const Configuration> batch) {
    std::vector<Measurement> out(batch.size());
    std::vector<Configuration> rest;
    std::vector<std::size_t> where;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (const auto it = known_.find(batch[i]); it != known_.end()) {
        out[i] = it->second;
      } else {
        rest.push_back(batch[i]);
        where.push_back(i);
      }
    }
    if (!rest.empty()) {
      auto measured = inner_.measure(view, std::span<const Configuration>(rest));
      if (measured.size() != rest.size()) {
        // Said in every build: a short answer would leave default measurements (status
        // correct, value infinity) in `out` for configurations that were never measured.
        throw Error(Errc::invalid_argument,
                    "aoe::detail::KnownMeasure: the inner measure policy returned " +
                        std::to_string(measured.size()) + " measurements for a batch of " +
                        std::to_string(rest.size()) +
                        " configurations; expected one per configuration, in batch order");
      }
      for (std::size_t j = 0; j < measured.size(); ++j) out[where[j]] = std::move(measured[j]);
    }
    return out;
  }

 private:
  Measure inner_;
  std::unordered_map<Configuration, Measurement, ConfigurationHash> known_;
};

/// What of an operator key text (`operator_key_text`) decides similarity: the type, the
/// log2 of every input and output dimension, the dtypes and formats, and the attributes.
struct OperatorShape {
  std::string type;
  std::vector<double> log_dims;
  std::string layout;  ///< ":dtype:format" of every tensor, in order
  std::string attributes;
};

[[nodiscard]] inline std::optional<OperatorShape> parse_operator_shape(std::string_view text) {
  const auto in = text.find(";in=");
  const auto attrs = text.find(";attrs=");
  if (in == std::string_view::npos || attrs == std::string_view::npos || attrs < in) {
    return std::nullopt;
  }
  OperatorShape s;
  s.type = std::string(text.substr(0, in));
  s.attributes = std::string(text.substr(attrs));
  const std::string_view tensors = text.substr(in, attrs - in);
  bool in_brackets = false;
  double number = -1;
  for (const char c : tensors) {
    if (c == '[') {
      in_brackets = true;
      number = -1;
    } else if (in_brackets && c >= '0' && c <= '9') {
      number = (number < 0 ? 0 : number * 10) + (c - '0');
    } else if (in_brackets && (c == ',' || c == ']')) {
      if (number >= 0) s.log_dims.push_back(std::log2(number + 1));
      number = -1;
      if (c == ']') in_brackets = false;
    } else if (!in_brackets) {
      s.layout += c;
    }
  }
  return s;
}

/// How far apart two operators are for transfer: nullopt when their type or tensor ranks
/// differ; else the sum of |log2| differences of their dimensions, plus 4 when a dtype or
/// format differs and 1 when attributes differ.
[[nodiscard]] inline std::optional<double> operator_distance(const OperatorShape& a,
                                                             const OperatorShape& b) {
  if (a.type != b.type || a.log_dims.size() != b.log_dims.size()) return std::nullopt;
  double d = 0;
  for (std::size_t i = 0; i < a.log_dims.size(); ++i) d += std::fabs(a.log_dims[i] - b.log_dims[i]);
  if (a.layout != b.layout) d += 4;
  if (a.attributes != b.attributes) d += 1;
  return d;
}

/// The configuration of `space` nearest to `values`: each parameter takes the level equal to
/// its named value, else the numerically nearest level, else `fallback`'s level (a parameter
/// missing from `values`, a text value that is not a level). Nullopt when the result breaks a
/// constraint.
[[nodiscard]] inline std::optional<Configuration> project_onto(const Space& space,
                                                               std::span<const NamedValue> values,
                                                               const Configuration& fallback) {
  Configuration c = fallback;
  for (const auto& nv : values) {
    const auto d = space.index_of(nv.name);
    if (!d) continue;
    const Parameter& p = space.parameter(*d);
    if (const auto i = p.find(nv.value)) {
      c[*d] = *i;
      continue;
    }
    if (!nv.value.is_number() || !p.levels().front().is_number()) continue;
    const double x = nv.value.as_real();
    double best = std::numeric_limits<double>::infinity();
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      const double gap = std::fabs(p.numeric(i) - x);
      if (gap < best) {
        best = gap;
        c[*d] = i;
      }
    }
  }
  if (!space.is_valid(c)) return std::nullopt;
  return c;
}

/// The features of an operator for a learned cost model (docs/search.md#cost-model): its type
/// and knowledge kind (one-hot), log2(1 + d) of every input and output dimension, each
/// tensor's dtype and format (one-hot), log2 of its output elements, and the SoC (one-hot, and
/// its AI Core count).
[[nodiscard]] inline std::vector<Feature> operator_features(const OperatorDesc& op,
                                                            KnowledgeKind kind,
                                                            const BankScope& scope) {
  std::vector<Feature> f;
  f.push_back({"op.type=" + op.type, 1});
  f.push_back({"op.kind=" + std::string(to_string(kind)), 1});
  f.push_back({"soc=" + scope.soc_version, 1});
  f.push_back({"soc.cores", static_cast<double>(scope.core_num)});
  const auto tensors = [&](const std::vector<TensorDesc>& ts, const std::string& side) {
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const std::string t = "op." + side + std::to_string(i);
      for (std::size_t d = 0; d < ts[i].shape.size(); ++d) {
        f.push_back(
            {t + ".d" + std::to_string(d),
             std::log2(1.0 + static_cast<double>(std::max<std::int64_t>(0, ts[i].shape[d])))});
      }
      f.push_back({t + ".dtype=" + std::string(to_string(ts[i].dtype)), 1});
      f.push_back({t + ".format=" + std::string(to_string(ts[i].format)), 1});
    }
  };
  tensors(op.inputs, "in");
  tensors(op.outputs, "out");
  double elements = 0;
  for (const auto& t : op.outputs)
    elements += static_cast<double>(std::max<std::int64_t>(0, t.elements()));
  f.push_back({"op.out.elements", std::log2(1.0 + elements)});
  return f;
}

/// `operator_features` of the operator whose key text (`operator_key_text`) is `text`: the
/// features a bank record's operator had when it was tuned (same names, same values). Tensors
/// are read from the ";in=" and ";out=" parts ("[d,...]:dtype:format", comma separated).
[[nodiscard]] inline std::vector<Feature> operator_features_from_key(std::string_view text,
                                                                     KnowledgeKind kind,
                                                                     const BankScope& scope) {
  std::vector<Feature> f;
  const auto in = text.find(";in=");
  const auto out = text.find(";out=");
  const auto attrs = text.find(";attrs=");
  if (in == std::string_view::npos || out == std::string_view::npos ||
      attrs == std::string_view::npos || !(in < out && out < attrs)) {
    return f;
  }
  f.push_back({"op.type=" + std::string(text.substr(0, in)), 1});
  f.push_back({"op.kind=" + std::string(to_string(kind)), 1});
  f.push_back({"soc=" + scope.soc_version, 1});
  f.push_back({"soc.cores", static_cast<double>(scope.core_num)});
  double elements = 0;
  const auto tensors = [&](std::string_view part, const std::string& side) {
    std::size_t index = 0;
    std::size_t pos = 0;
    while (pos < part.size() && part[pos] == '[') {
      const auto close = part.find(']', pos);
      if (close == std::string_view::npos) return;
      const std::string t = "op." + side + std::to_string(index);
      double count = 1;
      std::size_t d = 0;
      const std::string_view dims = part.substr(pos + 1, close - pos - 1);
      for (std::size_t a = 0; a < dims.size();) {
        auto b = dims.find(',', a);
        if (b == std::string_view::npos) b = dims.size();
        const std::string number(dims.substr(a, b - a));
        const double x = std::max(0.0, std::strtod(number.c_str(), nullptr));
        f.push_back({t + ".d" + std::to_string(d++), std::log2(1.0 + x)});
        count *= x;
        a = b + 1;
      }
      // ":dtype:format" up to the next tensor or the end of the part
      auto next = part.find(",[", close);
      if (next == std::string_view::npos) next = part.size();
      const std::string_view tail = part.substr(close + 1, next - close - 1);
      const auto colon = tail.find(':', 1);
      if (tail.size() > 1 && colon != std::string_view::npos) {
        f.push_back({t + ".dtype=" + std::string(tail.substr(1, colon - 1)), 1});
        f.push_back({t + ".format=" + std::string(tail.substr(colon + 1)), 1});
      }
      if (side == "out") elements += count;
      ++index;
      pos = next == part.size() ? next : next + 1;
    }
  };
  tensors(text.substr(in + 4, out - in - 4), "in");
  tensors(text.substr(out + 5, attrs - out - 5), "out");
  f.push_back({"op.out.elements", std::log2(1.0 + elements)});
  return f;
}

/// `configuration_features` of a configuration given as named values (a bank record's): a
/// number's feature is log2 of it when positive, else the number; a text value's is its level
/// index in `space`'s parameter of that name, and it has none (missing) when `space` has no
/// such parameter or level.
[[nodiscard]] inline std::vector<Feature> named_value_features(const Space& space,
                                                               std::span<const NamedValue> values) {
  std::vector<Feature> out;
  for (const auto& nv : values) {
    if (nv.value.is_number()) {
      const double x = nv.value.as_real();
      out.push_back({"p." + nv.name, x > 0 ? std::log2(x) : x});
    } else if (const auto d = space.index_of(nv.name)) {
      if (const auto i = space.parameter(*d).find(nv.value)) {
        out.push_back({"p." + nv.name, static_cast<double>(*i)});
      }
    }
  }
  return out;
}

/// Whether search policy `name` reads the transfer rows (`SearchStart::prior`): only the
/// learned cost model's policies do, so a job builds them (`TransferHints::prior`,
/// `append_trials`: milliseconds per operator with thousands of rows) only for those.
[[nodiscard]] inline bool uses_transfer_rows(std::string_view name) noexcept {
  return name == "xgboost" || name == "evolutionary-xgboost";
}

/// The bank's winners by operator, for the nearest-operator hints of `run_opat`.
class TransferHints {
 public:
  /// Reads the custom bank's records of `kinds` for every SoC it holds (this job's `scope`
  /// and, as weaker hints, the others): the bank as it stands when the job starts. A file of
  /// another SoC that cannot be read gives no hints (it is that SoC's, not this job's).
  /// Whether a bank entry is one of an objective other than plain time (its name ends in
  /// Objective::key_suffix): its operator text is not an operator's, and it is left out.
  [[nodiscard]] static bool objective_entry(std::string_view text) {
    return text.find("#objective=") != std::string_view::npos;
  }

  [[nodiscard]] static Result<TransferHints> from_bank(const KnowledgeBank& bank,
                                                       const BankScope& scope,
                                                       std::span<const KnowledgeKind> kinds) {
    TransferHints hints;
    for (const KnowledgeKind kind : kinds) {
      auto own = bank.entries(scope, kind);
      if (!own) return own.error();
      for (const auto& [text, r] : *own) {
        if (objective_entry(text)) continue;
        hints.add(kind, text, r.configuration, true);
        hints.records_.push_back({kind, text, scope, r.configuration});
      }
    }
    std::error_code ec;
    const auto& root = bank.options().custom_root;
    std::vector<BankScope> others;
    for (const auto& dir : std::filesystem::directory_iterator(root, ec)) {
      const auto unified = dir.path() / "unified_bank";
      if (!std::filesystem::is_directory(unified, ec)) continue;
      for (const auto& f : std::filesystem::directory_iterator(unified, ec)) {
        const std::string name = f.path().filename().string();
        const std::string soc = dir.path().filename().string();
        const auto tail = name.find("_AiCore_");
        if (name.rfind(soc + "_", 0) != 0 || tail == std::string::npos) continue;
        const std::string cores = name.substr(soc.size() + 1, tail - soc.size() - 1);
        if (cores.empty() || cores.find_first_not_of("0123456789") != std::string::npos ||
            cores.size() > 6) {
          continue;
        }
        BankScope s{soc, std::stoi(cores)};
        if (s.soc_version == scope.soc_version && s.core_num == scope.core_num) continue;
        if (std::find_if(others.begin(), others.end(), [&](const BankScope& o) {
              return o.soc_version == s.soc_version && o.core_num == s.core_num;
            }) == others.end()) {
          others.push_back(std::move(s));
        }
      }
    }
    std::sort(others.begin(), others.end(), [](const BankScope& a, const BankScope& b) {
      return std::tie(a.soc_version, a.core_num) < std::tie(b.soc_version, b.core_num);
    });
    for (const auto& s : others) {
      for (const KnowledgeKind kind : kinds) {
        auto theirs = bank.entries(s, kind);
        if (!theirs) continue;
        for (const auto& [text, r] : *theirs) {
          if (objective_entry(text)) continue;
          hints.add(kind, text, r.configuration, false);
          hints.records_.push_back({kind, text, s, r.configuration});
        }
      }
    }
    return hints;
  }

  /// Adds a winner of this job's SoC (`same_soc`) or another's; a later one for the same
  /// operator and SoC replaces the earlier.
  void add(KnowledgeKind kind, const std::string& op_key_text, std::vector<NamedValue> values,
           bool same_soc) {
    auto shape = parse_operator_shape(op_key_text);
    if (!shape) return;
    const auto [it, added] =
        index_.try_emplace(std::make_tuple(kind, same_soc, op_key_text), entries_.size());
    if (!added) {
      entries_[it->second].values = std::move(values);
      return;
    }
    entries_.push_back({kind, op_key_text, std::move(*shape), std::move(values), same_soc});
  }

  /// The winners of up to `count` operators most like `op_key_text` for `kind`, nearest
  /// first: this SoC's before other SoCs', by `operator_distance`, ties by key text. The
  /// operator itself (this SoC's record of the same key) is not among them.
  [[nodiscard]] std::vector<std::vector<NamedValue>> nearest(KnowledgeKind kind,
                                                             const std::string& op_key_text,
                                                             std::size_t count) const {
    const auto shape = parse_operator_shape(op_key_text);
    if (!shape || count == 0) return {};
    std::vector<std::tuple<bool, double, const Entry*>> ranked;
    for (const auto& e : entries_) {
      if (e.kind != kind || (e.same_soc && e.text == op_key_text)) continue;
      if (const auto d = operator_distance(*shape, e.shape))
        ranked.emplace_back(!e.same_soc, *d, &e);
    }
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
      if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) < std::get<1>(b);
      return std::get<2>(a)->text < std::get<2>(b)->text;
    });
    std::vector<std::vector<NamedValue>> out;
    for (const auto& r : ranked) {
      if (out.size() == count) break;
      out.push_back(std::get<2>(r)->values);
    }
    return out;
  }

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

  /// The training rows of a learned cost model for an operator of `kind` tuned on `space`:
  /// the latest rows of `job` (every trial of the operators tuned so far in this job), then one
  /// row per record of `kind` the bank held when the job started (`from_bank`; records stored
  /// during the job are not among them: their operators' trials are in `job`), at most
  /// `transfer_rows_used / 2` of them, this SoC's first. A record's row is its operator's
  /// features (`operator_features_from_key`) and its winner's (`named_value_features`), with
  /// the target `bank_winner_target`: a winner is taken to run in half its operator's
  /// geometric-mean time. The rows are in the order of the bank's files, so the result
  /// depends only on the bank at the start and the job's fixed task order. Returns `job`
  /// itself when the bank gave no row of `kind`, and null when there is nothing at all.
  [[nodiscard]] std::shared_ptr<const TransferData> prior(
      const std::shared_ptr<const TransferData>& job, KnowledgeKind kind,
      const Space& space) const {
    std::size_t bank_rows = 0;
    for (const auto& r : records_) bank_rows += r.kind == kind ? 1 : 0;
    bank_rows = std::min(bank_rows, transfer_rows_used / 2);
    const std::size_t job_rows = job ? job->rows.size() : 0;
    if (bank_rows == 0) return job_rows ? job : nullptr;
    auto out = std::make_shared<TransferData>();
    const std::size_t keep = std::min(job_rows, transfer_rows_used - bank_rows);
    out->rows.reserve(keep + bank_rows);
    if (keep)
      out->rows.assign(job->rows.end() - static_cast<std::ptrdiff_t>(keep), job->rows.end());
    for (const auto& r : records_) {
      if (r.kind != kind) continue;
      if (out->rows.size() == keep + bank_rows) break;
      TransferData::Row row;
      row.features = operator_features_from_key(r.text, kind, r.scope);
      for (auto& f : named_value_features(space, r.values)) row.features.push_back(std::move(f));
      row.target = bank_winner_target;
      out->rows.push_back(std::move(row));
      ++out->winner_rows;
    }
    return out;
  }

  /// The normalised target (`TransferData`) of a bank record's row: log(1/2).
  static constexpr double bank_winner_target = -0.69314718055994531;

 private:
  struct BankRecord {
    KnowledgeKind kind;
    std::string text;
    BankScope scope;
    std::vector<NamedValue> values;
  };
  std::vector<BankRecord> records_;
  struct Entry {
    KnowledgeKind kind;
    std::string text;
    OperatorShape shape;
    std::vector<NamedValue> values;
    bool same_soc;
  };
  std::vector<Entry> entries_;
  std::map<std::tuple<KnowledgeKind, bool, std::string>, std::size_t> index_;
};

}  // namespace aoe::detail

#endif  // AOE_JOBS_DETAIL_TRANSFER_HPP
