// Simulator runners of operators seen before, for jobs that create one runner per operator of a
// model (OPAT: one per fused operator and knowledge kind, a bank hit included). Models repeat
// their layers, so most operators differ from an earlier one only in their names; creating a
// runner (parsing the operator, the heuristic's defaults, the parameters and constraints of its
// space) is then done once per distinct operator, and every other runner shares that work
// (Runner::with_operator): what keeps OPAT's time per node flat in the model's size
// (docs/reliability.md#model-size). The runners handed out are those Runner::create returns.
#ifndef AOE_MEASURE_SIMULATOR_RUNNER_MEMO_HPP
#define AOE_MEASURE_SIMULATOR_RUNNER_MEMO_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/simulator/simulator_options.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/operator_desc.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace aoe::sim {

namespace detail {

template <class T>
  requires std::is_trivially_copyable_v<T>
void append_bytes(std::string& key, const T& v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  key.append(b, sizeof(T));
}

inline void append_text(std::string& key, std::string_view s) {
  append_bytes(key, static_cast<std::uint64_t>(s.size()));
  key.append(s);
}

inline void append_tensors(std::string& key, const std::vector<TensorDesc>& ts) {
  append_bytes(key, static_cast<std::uint64_t>(ts.size()));
  for (const auto& t : ts) {
    append_bytes(key, t.dtype);
    append_bytes(key, t.format);
    append_bytes(key, static_cast<std::uint64_t>(t.shape.size()));
    for (const auto d : t.shape) append_bytes(key, d);
  }
}

}  // namespace detail

/// Appends to `key` everything of `op` but its name, and `knowledge`: two operators with equal
/// keys get runners that differ only in the name they report (every length is written before
/// its bytes, so different operators give different keys).
inline void append_runner_key(std::string& key, const OperatorDesc& op,
                              const std::vector<Knowledge>& knowledge) {
  using detail::append_bytes;
  using detail::append_text;
  append_bytes(key, static_cast<std::uint64_t>(knowledge.size()));
  for (const auto k : knowledge) append_bytes(key, k);
  append_text(key, op.type);
  append_bytes(key, static_cast<std::uint64_t>(op.members.size()));
  for (const auto& m : op.members) append_text(key, m);
  detail::append_tensors(key, op.inputs);
  detail::append_tensors(key, op.outputs);
  append_bytes(key, static_cast<std::uint64_t>(op.attributes.size()));
  for (const auto& [name, value] : op.attributes) {
    append_text(key, name);
    append_bytes(key, static_cast<std::uint8_t>(value.index()));
    std::visit(
        [&key](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>) {
            append_text(key, v);
          } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
            append_bytes(key, static_cast<std::uint64_t>(v.size()));
            for (const auto x : v) append_bytes(key, x);
          } else {
            append_bytes(key, v);  // bool, int64, double (its bits: -0.0 and 0.0 apart)
          }
        },
        value);
  }
}

/// Creates simulator runners on one SoC, each distinct operator (and knowledge list) once.
/// Thread-safe. Holds at most `capacity` distinct operators' runners (a few kilobytes each): when
/// full, it forgets them all and starts again, so its memory stays bounded on a model whose
/// operators are all different, which then costs what creating every runner costs.
class RunnerMemo {
 public:
  explicit RunnerMemo(Soc soc, std::size_t capacity = 4096)
      : soc_(std::move(soc)), capacity_(capacity) {}

  /// Runner<device::Simulator>::create(soc(), op, options), sharing the work with an earlier
  /// operator equal to `op` but for its name. An operator that fails is not remembered (its
  /// error names it).
  [[nodiscard]] Result<SimulatorRunner> create(const OperatorDesc& op, SimulatorOptions options) {
    // One key buffer per thread, reused: no allocation per operator for its key.
    thread_local std::string key;
    key.clear();
    append_runner_key(key, op, options.knowledge);
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = runners_.find(key); it != runners_.end()) {
        ++hits_;
        return it->second.with_operator(op, std::move(options));
      }
    }
    auto made = SimulatorRunner::create(soc_, op, std::move(options));
    if (!made) return made;
    const std::lock_guard lock(mutex_);
    if (runners_.size() >= capacity_) runners_.clear();
    runners_.emplace(key, *made);
    return made;
  }

  [[nodiscard]] const Soc& soc() const noexcept { return soc_; }
  /// Runners handed out from a remembered operator (for tests).
  [[nodiscard]] std::size_t hits() const {
    const std::lock_guard lock(mutex_);
    return hits_;
  }
  /// Distinct operators remembered now.
  [[nodiscard]] std::size_t size() const {
    const std::lock_guard lock(mutex_);
    return runners_.size();
  }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };

  Soc soc_;
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, SimulatorRunner, Hash, std::equal_to<>> runners_;
  std::size_t hits_ = 0;
};

}  // namespace aoe::sim

#endif  // AOE_MEASURE_SIMULATOR_RUNNER_MEMO_HPP
