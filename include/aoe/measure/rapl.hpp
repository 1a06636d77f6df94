// The host CPU's energy counters: Intel RAPL (and AMD's, which Linux shows the same way)
// through the powercap sysfs tree, read only. docs/energy.md#host.
#ifndef AOE_MEASURE_RAPL_HPP
#define AOE_MEASURE_RAPL_HPP

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace aoe {

/// The package domains of `<root>/intel-rapl:N` (each `name` starting "package"): their
/// `energy_uj` counters, read together, in joules, with each counter's wrap at
/// `max_energy_range_uj`. Sub-domains (`intel-rapl:N:M`: cores, uncore, DRAM) are inside a
/// package's figure and are not added. Since Linux 5.10 `energy_uj` is readable by root only
/// (CVE-2020-8694): elsewhere `available()` is false and `why()` says what was missing.
class Rapl {
 public:
  /// One reading of every package counter, in microjoules.
  using Reading = std::vector<std::uint64_t>;

  explicit Rapl(const std::filesystem::path& root = "/sys/class/powercap") {
    std::error_code ec;
    std::vector<std::filesystem::path> dirs;
    for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
      const std::string name = entry.path().filename().string();
      // intel-rapl:0, intel-rapl:1 ...: one colon; intel-rapl:0:0 is a sub-domain.
      if (name.rfind("intel-rapl:", 0) == 0 && std::count(name.begin(), name.end(), ':') == 1) {
        dirs.push_back(entry.path());
      }
    }
    if (ec) {
      why_ = root.string() + ": " + ec.message();
      return;
    }
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
      const auto name = read_line(d / "name");
      if (!name || name->rfind("package", 0) != 0) continue;
      const auto range = read_number(d / "max_energy_range_uj");
      if (!read_number(d / "energy_uj") || !range || *range == 0) {
        why_ = (d / "energy_uj").string() + " is not readable (root only since Linux 5.10)";
        domains_.clear();
        return;
      }
      domains_.push_back({d / "energy_uj", *range});
    }
    if (domains_.empty() && why_.empty()) why_ = "no RAPL package domain under " + root.string();
  }

  /// Whether every package counter can be read.
  [[nodiscard]] bool available() const noexcept { return !domains_.empty(); }
  /// Why not, for a person; empty when available.
  [[nodiscard]] const std::string& why() const noexcept { return why_; }
  [[nodiscard]] std::size_t packages() const noexcept { return domains_.size(); }

  /// Every package counter now; none when one cannot be read.
  [[nodiscard]] std::optional<Reading> read() const {
    Reading r;
    r.reserve(domains_.size());
    for (const auto& d : domains_) {
      const auto v = read_number(d.counter);
      if (!v) return std::nullopt;
      r.push_back(*v);
    }
    return r;
  }

  /// Joules between two readings, summed over the packages; a counter that wrapped once is
  /// taken past its range.
  [[nodiscard]] double joules_between(const Reading& before, const Reading& after) const {
    double uj = 0;
    for (std::size_t i = 0; i < domains_.size() && i < before.size() && i < after.size(); ++i) {
      const std::uint64_t b = before[i], a = after[i];
      uj += static_cast<double>(a >= b ? a - b : a + domains_[i].range - b);
    }
    return uj * 1e-6;
  }

 private:
  struct Domain {
    std::filesystem::path counter;
    std::uint64_t range = 0;
  };

  static std::optional<std::string> read_line(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::string line;
    if (!in || !std::getline(in, line)) return std::nullopt;
    return line;
  }

  static std::optional<std::uint64_t> read_number(const std::filesystem::path& p) {
    const auto line = read_line(p);
    if (!line || line->empty()) return std::nullopt;
    try {
      std::size_t used = 0;
      const auto v = std::stoull(*line, &used);
      if (used != line->size()) return std::nullopt;
      return static_cast<std::uint64_t>(v);
    } catch (...) {
      return std::nullopt;
    }
  }

  std::vector<Domain> domains_;
  std::string why_;
};

/// The packages' joules as one running total, for a runner that reads an energy meter before
/// and after its runs: each call reads the counters and adds what they moved since the call
/// before (a counter that wrapped once is taken past its range); the first call gives 0. None
/// when a counter cannot be read. Copies share the total.
class RaplMeter {
 public:
  explicit RaplMeter(std::shared_ptr<const Rapl> rapl)
      : state_(std::make_shared<State>(State{std::move(rapl), std::nullopt, 0.0})) {}

  [[nodiscard]] std::optional<double> operator()() const {
    State& s = *state_;
    auto now = s.rapl->read();
    if (!now) return std::nullopt;
    if (s.last) s.total += s.rapl->joules_between(*s.last, *now);
    s.last = std::move(now);
    return s.total;
  }

 private:
  struct State {
    std::shared_ptr<const Rapl> rapl;
    std::optional<Rapl::Reading> last;
    double total = 0;
  };
  std::shared_ptr<State> state_;
};

}  // namespace aoe

#endif  // AOE_MEASURE_RAPL_HPP
