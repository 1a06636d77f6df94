// One NPU per rank of a distributed job: the device of a rank is ASCEND_DEVICE_ID plus its
// node-local rank (docs/distributed.md#devices-per-rank).
#ifndef AOE_MEASURE_ASCEND_RANK_DEVICE_HPP
#define AOE_MEASURE_ASCEND_RANK_DEVICE_HPP

#include "aoe/config/environment.hpp"
#include "aoe/core/error.hpp"
#include "aoe/measure/ascend/ascend_options.hpp"

#include <string>
#include <utility>

namespace aoe::ascend {

/// `options` for the rank with node-local rank `local_rank` (aoe::mpi::node_rank): its device
/// is the base device (`options.device_id`, or else ASCEND_DEVICE_ID read through
/// `options.getenv`, default 0) plus `local_rank`, and `device_origin` says so, so that opening
/// a device the machine does not have fails with "ASCEND_DEVICE_ID=1 + node-local rank 2 =
/// device 3: this machine has 2 Ascend device(s), numbered 0 to 1". Whether the device exists
/// is checked when it is opened (Runner<device::Ascend>::open: the ACL device count). Errors:
/// an ASCEND_DEVICE_ID that is not a device id (as read_environment), a negative base or
/// local rank (invalid_argument).
[[nodiscard]] inline Result<AscendOptions> rank_device_options(AscendOptions options,
                                                               int local_rank) {
  int base = 0;
  std::string name;
  if (options.device_id) {
    base = *options.device_id;
    name = "AscendOptions::device_id";
  } else {
    auto env = read_environment(options.getenv);
    if (!env) return env.error();
    base = env->ascend_device_id;
    name = "ASCEND_DEVICE_ID";
  }
  if (base < 0) {
    return make_error(Errc::invalid_argument,
                      name + "=" + std::to_string(base) + ": expected a device id >= 0");
  }
  if (local_rank < 0 || local_rank > 1 << 20) {
    return make_error(Errc::invalid_argument,
                      "node-local rank " + std::to_string(local_rank) + ": expected >= 0");
  }
  options.device_id = base + local_rank;
  options.device_origin =
      name + "=" + std::to_string(base) + " + node-local rank " + std::to_string(local_rank);
  return options;
}

}  // namespace aoe::ascend

#endif  // AOE_MEASURE_ASCEND_RANK_DEVICE_HPP
