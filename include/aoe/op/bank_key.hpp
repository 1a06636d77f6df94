// Keys of the operator knowledge bank: what AOE's bank keys on (op type + each input/output's
// shape, dtype and format + attributes + impl mode;
// docs/aoe-facts.md#operator-knowledge-bank-layout-and-key), scoped by SoC version and core
// count and by knowledge kind (Schedule, Format, Impl).
#ifndef AOE_OP_BANK_KEY_HPP
#define AOE_OP_BANK_KEY_HPP

#include "aoe/op/operator_desc.hpp"
#include "aoe/vocab/record.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace aoe {

/// What a bank entry tunes, as AOE's result files name it ("Schedule", "Format", "Impl").
enum class KnowledgeKind : std::uint8_t { schedule, format, impl };

inline constexpr std::array<std::string_view, 3> knowledge_kind_names{"Schedule", "Format", "Impl"};

[[nodiscard]] constexpr std::string_view to_string(KnowledgeKind k) noexcept {
  return knowledge_kind_names[static_cast<std::size_t>(k)];
}

[[nodiscard]] inline std::optional<KnowledgeKind> knowledge_kind_from_string(std::string_view s) {
  for (std::size_t i = 0; i < knowledge_kind_names.size(); ++i) {
    if (knowledge_kind_names[i] == s) return static_cast<KnowledgeKind>(i);
  }
  return std::nullopt;
}

/// Where a bank applies: the SoC version and its AI Core count (AOE's file names carry both).
struct BankScope {
  std::string soc_version = "Ascend910A";
  int core_num = 32;
};

namespace detail {

inline void append_shape(std::string& out, const TensorDesc& t) {
  out += '[';
  for (std::size_t i = 0; i < t.shape.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(t.shape[i]);
  }
  out += "]:";
  out += to_string(t.dtype);
  out += ':';
  out += to_string(t.format);
}

inline void append_attribute(std::string& out, const Attribute& a) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          out += v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          out += std::to_string(v);
        } else if constexpr (std::is_same_v<T, double>) {
          char buffer[32];
          std::snprintf(buffer, sizeof buffer, "%.17g", v);
          out += buffer;
        } else if constexpr (std::is_same_v<T, std::string>) {
          out += '"' + v + '"';
        } else {
          out += '[';
          for (std::size_t i = 0; i < v.size(); ++i) {
            if (i > 0) out += ',';
            out += std::to_string(v[i]);
          }
          out += ']';
        }
      },
      a);
}

/// `attributes` as "name=value,...", by name (the order of std::map), as the key texts of an
/// operator and of a subgraph write them.
inline void append_attributes(std::string& out,
                              const std::map<std::string, Attribute>& attributes) {
  bool first = true;
  for (const auto& [name, value] : attributes) {
    if (!first) out += ',';
    first = false;
    out += name;
    out += '=';
    append_attribute(out, value);
  }
}

}  // namespace detail

/// The canonical text of an operator's bank key: type, inputs, outputs, attributes (sorted by
/// name) and impl mode. Two operators with one text share their tuned knowledge; the name is
/// not part of it (AOE keys on the computation, not on the node).
[[nodiscard]] inline std::string operator_key_text(const OperatorDesc& op,
                                                   std::string_view impl_mode) {
  std::string out = op.type;
  out += ";in=";
  for (std::size_t i = 0; i < op.inputs.size(); ++i) {
    if (i > 0) out += ',';
    detail::append_shape(out, op.inputs[i]);
  }
  out += ";out=";
  for (std::size_t i = 0; i < op.outputs.size(); ++i) {
    if (i > 0) out += ',';
    detail::append_shape(out, op.outputs[i]);
  }
  out += ";attrs=";
  detail::append_attributes(out, op.attributes);
  out += ";impl=";
  out += impl_mode;
  return out;
}

/// The bank key of `op` for knowledge `kind` in `scope`: problem "<Kind>|<operator key text>",
/// device "<soc_version>_<core_num>".
[[nodiscard]] inline TuningKey make_bank_key(const OperatorDesc& op, KnowledgeKind kind,
                                             const BankScope& scope,
                                             std::string_view impl_mode = "high_performance") {
  return TuningKey{std::string(to_string(kind)) + "|" + operator_key_text(op, impl_mode),
                   scope.soc_version + "_" + std::to_string(scope.core_num)};
}

/// A bank key taken apart: the kind, the scope and the operator key text.
struct ParsedBankKey {
  KnowledgeKind kind = KnowledgeKind::schedule;
  BankScope scope;
  std::string op_key;
};

/// Parses a key made by `make_bank_key`; nullopt for any other key.
[[nodiscard]] inline std::optional<ParsedBankKey> parse_bank_key(const TuningKey& key) {
  const auto bar = key.problem.find('|');
  if (bar == std::string::npos) return std::nullopt;
  const auto kind = knowledge_kind_from_string(std::string_view(key.problem).substr(0, bar));
  if (!kind) return std::nullopt;
  const auto under = key.device.rfind('_');
  if (under == std::string::npos || under == 0 || under + 1 >= key.device.size()) {
    return std::nullopt;
  }
  int cores = 0;
  for (std::size_t i = under + 1; i < key.device.size(); ++i) {
    const char c = key.device[i];
    if (c < '0' || c > '9') return std::nullopt;
    cores = cores * 10 + (c - '0');
  }
  return ParsedBankKey{*kind, BankScope{key.device.substr(0, under), cores},
                       key.problem.substr(bar + 1)};
}

}  // namespace aoe

#endif  // AOE_OP_BANK_KEY_HPP
