// Options of Runner<device::Ascend>.
#ifndef AOE_MEASURE_ASCEND_ASCEND_OPTIONS_HPP
#define AOE_MEASURE_ASCEND_ASCEND_OPTIONS_HPP

#include "aoe/config/environment.hpp"
#include "aoe/measure/statistics.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace aoe {

/// How the Ascend runner opens its device and measures. Aggregate:
/// `aoe::AscendOptions{.warmup = 2, .repetitions = 20}`. The measurement options mean what
/// HostOptions' mean; times come from device events, not the host clock.
struct AscendOptions {
  /// The logical device; unset: ASCEND_DEVICE_ID (read through `getenv`, default 0).
  std::optional<int> device_id = std::nullopt;
  /// Where `device_id` came from, for error messages (for instance "ASCEND_DEVICE_ID=1 +
  /// node-local rank 2", set by aoe::ascend::rank_device_options); empty: the option itself.
  std::string device_origin{};
  std::size_t warmup = 1;                   ///< untimed runs before the timed ones
  std::size_t repetitions = 5;              ///< timed runs, one event pair each (at least one)
  Statistic statistic = Statistic::median;  ///< how the samples become the value
  /// A run longer than this many times the best value so far (of a runner bound to a space)
  /// ends the candidate with status `timeout`; 0 turns the adaptive timeout off.
  double timeout_factor = 10;
  double min_timeout = 0.05;  ///< seconds below which nothing times out adaptively
  /// Hard limit of one wait for the device (aclrtSynchronize*WithTimeout), in milliseconds; a
  /// candidate still running after it is `timeout`. -1 waits forever.
  std::int32_t sync_timeout_ms = 60000;
  /// After a timed-out candidate the runner waits this long (ms) for the stream to drain; if
  /// it does not, the device is unusable and every later measurement fails with the reason.
  std::int32_t recover_timeout_ms = 300000;
  /// Where the per-device lock files go (one tuner per device, across processes).
  std::filesystem::path lock_directory = "/tmp";
  /// Passed to aclInit (an AscendCL JSON configuration file); empty: none.
  std::string acl_config{};
  /// Reads ASCEND_DEVICE_ID when `device_id` is unset; injectable for tests.
  GetEnv getenv = process_getenv();
};

}  // namespace aoe

#endif  // AOE_MEASURE_ASCEND_ASCEND_OPTIONS_HPP
