// Where a time came from: a model's prediction (simulated) or a device's clock (measured). One
// value carried from the runner that produced a time into every file a user reads it in: the
// result file, op_summary, the trace, the HTML page, bank entries and the console
// (docs/reports.md#simulated-or-measured).
#ifndef AOE_VOCAB_TIMING_HPP
#define AOE_VOCAB_TIMING_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aoe {

/// Whether a time is a model's or a device's.
enum class TimingKind : std::uint8_t {
  simulated,  ///< predicted by a timing model (the reference simulator)
  measured,   ///< taken on a device (events of an NPU, a host clock)
};

[[nodiscard]] constexpr std::string_view to_string(TimingKind k) noexcept {
  return k == TimingKind::measured ? "measured" : "simulated";
}

/// The kind a text names ("simulated", "measured"); none for any other text.
[[nodiscard]] constexpr std::optional<TimingKind> timing_kind_from(std::string_view s) noexcept {
  if (s == "simulated") return TimingKind::simulated;
  if (s == "measured") return TimingKind::measured;
  return std::nullopt;
}

/// A time's provenance: its kind and what produced it.
struct Timing {
  TimingKind kind = TimingKind::simulated;
  /// simulated: the model's name and version and what it models ("openaoe Ascend AI Core model
  /// 0.1.0, Ascend910A"); measured: the device, and its driver and clocks where known
  /// ("Ascend910B1, device 0, 24 AI Cores, AscendCL").
  std::string source;

  [[nodiscard]] bool measured() const noexcept { return kind == TimingKind::measured; }
  /// "simulated (openaoe Ascend AI Core model 0.1.0, Ascend910A)", "measured (...)".
  [[nodiscard]] std::string label() const {
    std::string out(to_string(kind));
    if (!source.empty()) out += " (" + source + ")";
    return out;
  }
  friend bool operator==(const Timing&, const Timing&) = default;
};

}  // namespace aoe

#endif  // AOE_VOCAB_TIMING_HPP
