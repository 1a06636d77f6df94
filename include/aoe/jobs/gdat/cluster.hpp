// The data-parallel cluster gradient tuning (GDAT) plans for: how many devices, how they are
// grouped into servers, which all-reduce algorithm runs over them and the links' α–β figures
// (docs/gdat.md#cluster). The defaults are assumptions, not measured Ascend figures: 8 devices
// per server as in an Atlas 800 training server, 100 Gb/s (12.5 GB/s) per device between
// servers (the 100G Ethernet port per Ascend 910 device of Huawei's training-card documentation),
// and an assumed 30 GB/s, 2 us link inside a server; replace them with your cluster's.
#ifndef AOE_JOBS_GDAT_CLUSTER_HPP
#define AOE_JOBS_GDAT_CLUSTER_HPP

#include "aoe/core/error.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

namespace aoe::gdat {

/// The all-reduce algorithm over the devices (allreduce_cost.hpp has the formulas).
enum class Topology : std::uint8_t {
  ring,       ///< one ring through every device (its slowest link bounds each step)
  two_level,  ///< reduce-scatter in each server, all-reduce across servers, all-gather in each
};

[[nodiscard]] constexpr std::string_view to_string(Topology t) noexcept {
  return t == Topology::ring ? "ring" : "two_level";
}

[[nodiscard]] inline std::optional<Topology> topology_from_string(std::string_view s) {
  if (s == "ring") return Topology::ring;
  if (s == "two_level" || s == "two-level" || s == "hierarchical") return Topology::two_level;
  return std::nullopt;
}

/// One level of links: the bandwidth one device sends at and the latency of one message
/// (the β = 1/bandwidth and α of the α–β model).
struct Link {
  double bandwidth = 0;  ///< bytes per second
  double latency = 0;    ///< seconds per message
};

/// A homogeneous data-parallel cluster. Aggregate: `aoe::gdat::Cluster{.devices = 64}`.
struct Cluster {
  int devices = 8;
  int devices_per_server = 8;  ///< a value above `devices` means one server of `devices`
  Topology topology = Topology::two_level;
  Link intra_server{.bandwidth = 30e9, .latency = 2e-6};     ///< assumed (see the file comment)
  Link inter_server{.bandwidth = 12.5e9, .latency = 10e-6};  ///< 100 Gb/s per device
  /// Fixed cost of each all-reduce (launch, synchronisation); assumed.
  double allreduce_overhead = 20e-6;

  /// Devices in one server (at most `devices`).
  [[nodiscard]] int server_size() const noexcept {
    return devices < devices_per_server ? devices : devices_per_server;
  }
  /// Servers used.
  [[nodiscard]] int servers() const noexcept {
    const int g = server_size();
    return g > 0 ? devices / g : 0;
  }

  /// Checks the values; messages name the field and its flag (docs/gdat.md#cluster).
  [[nodiscard]] Result<void> validate() const {
    const auto bad = [](const std::string& what) {
      return make_error(Errc::invalid_argument, "cluster: " + what);
    };
    if (devices < 1) {
      return bad("devices (--devices) = " + std::to_string(devices) +
                 ": expected at least 1 device");
    }
    if (devices_per_server < 1) {
      return bad("devices_per_server (--devices_per_server) = " +
                 std::to_string(devices_per_server) + ": expected at least 1 device per server");
    }
    if (devices > devices_per_server && devices % devices_per_server != 0) {
      return bad("devices (--devices) = " + std::to_string(devices) +
                 " is not a multiple of devices_per_server (--devices_per_server) = " +
                 std::to_string(devices_per_server) + ": expected whole servers");
    }
    for (const auto& [link, name, flag] : {std::tuple{&intra_server, "intra_server", "intra"},
                                           std::tuple{&inter_server, "inter_server", "inter"}}) {
      // The bounds keep every all-reduce time finite (no infinity in a result file).
      if (!std::isfinite(link->bandwidth) || link->bandwidth < 1 || link->bandwidth > 1e18) {
        return bad(std::string(name) + ".bandwidth (--" + flag +
                   "_bandwidth) = " + number(link->bandwidth / 1e9) +
                   " GB/s: expected a positive bandwidth from 1e-9 to 1e9 GB/s");
      }
      if (!std::isfinite(link->latency) || link->latency < 0 || link->latency > 1e9) {
        return bad(std::string(name) + ".latency (--" + flag +
                   "_latency) = " + number(link->latency * 1e6) +
                   " us: expected a non-negative latency up to 1e15 us");
      }
    }
    if (!std::isfinite(allreduce_overhead) || allreduce_overhead < 0 || allreduce_overhead > 1e9) {
      return bad("allreduce_overhead (--allreduce_overhead) = " + number(allreduce_overhead * 1e6) +
                 " us: expected a non-negative time up to 1e15 us");
    }
    return {};
  }

  /// A text naming every value, the cluster part of a gradient-fusion bank key:
  /// "devices=64;per_server=8;topology=two_level;intra=30GB/s,2us;inter=12.5GB/s,10us;
  /// overhead=20us".
  [[nodiscard]] std::string signature() const {
    return "devices=" + std::to_string(devices) + ";per_server=" + std::to_string(server_size()) +
           ";topology=" + std::string(to_string(topology)) +
           ";intra=" + number(intra_server.bandwidth / 1e9) + "GB/s," +
           number(intra_server.latency * 1e6) + "us" +
           ";inter=" + number(inter_server.bandwidth / 1e9) + "GB/s," +
           number(inter_server.latency * 1e6) + "us" +
           ";overhead=" + number(allreduce_overhead * 1e6) + "us";
  }

  /// `v` with up to 9 significant digits ("12.5", "30").
  [[nodiscard]] static std::string number(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", v);
    return buffer;
  }
};

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_CLUSTER_HPP
