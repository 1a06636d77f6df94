// Reads a cluster file (docs/gdat.md#cluster):
//   {"format_version": 1, "devices": 64, "devices_per_server": 8, "topology": "two_level",
//    "intra_server": {"bandwidth(GB/s)": 30, "latency(us)": 2},
//    "inter_server": {"bandwidth(GB/s)": 12.5, "latency(us)": 10},
//    "allreduce_overhead(us)": 20}
// Every member but "devices" is optional and takes the default of aoe::gdat::Cluster. Errors
// name the file, the JSON pointer and what was expected.
#ifndef AOE_JOBS_GDAT_CLUSTER_LOADER_HPP
#define AOE_JOBS_GDAT_CLUSTER_LOADER_HPP

#include "aoe/core/error.hpp"
#include "aoe/jobs/gdat/cluster.hpp"
#include "aoe/jobs/gdat/detail/json_input.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace aoe::gdat {

/// Reads a cluster from parsed JSON; `source` names it in messages.
[[nodiscard]] inline Result<Cluster> read_cluster(const boost::json::value& root,
                                                  std::string_view source) {
  const detail::InputErrors in{std::string(source)};
  const auto* obj = root.if_object();
  if (obj == nullptr) {
    return in.fail(Errc::schema_error, "", "expected a cluster object {\"devices\", ...}");
  }
  if (auto ok = in.check_version(*obj); !ok) return ok.error();
  Cluster c;
  auto devices = in.integer(*obj, "devices", "", std::nullopt, 1, "the number of devices");
  if (!devices) return devices.error();
  if (*devices > 1'000'000) {
    return in.fail(Errc::schema_error, "/devices", "expected at most 1000000 devices");
  }
  c.devices = static_cast<int>(*devices);
  auto per = in.integer(*obj, "devices_per_server", "", std::int64_t{c.devices_per_server}, 1,
                        "devices in one server");
  if (!per) return per.error();
  if (*per > 1'000'000) {
    return in.fail(Errc::schema_error, "/devices_per_server", "expected at most 1000000 devices");
  }
  c.devices_per_server = static_cast<int>(*per);
  if (const auto* t = obj->if_contains("topology")) {
    const auto topo =
        t->is_string() ? topology_from_string(std::string_view(t->as_string())) : std::nullopt;
    if (!topo)
      return in.fail(Errc::schema_error, "/topology", "expected \"ring\" or \"two_level\"");
    c.topology = *topo;
  }
  for (const auto& [key, link] :
       {std::pair{"intra_server", &c.intra_server}, std::pair{"inter_server", &c.inter_server}}) {
    const auto* l = obj->if_contains(key);
    if (l == nullptr) continue;
    const std::string ptr = std::string("/") + key;
    if (!l->is_object()) {
      return in.fail(Errc::schema_error, ptr,
                     "expected an object {\"bandwidth(GB/s)\": ..., \"latency(us)\": ...}");
    }
    auto bw = in.number(l->as_object(), "bandwidth(GB/s)", ptr, link->bandwidth / 1e9, 0.0, true,
                        "gigabytes per second");
    if (!bw) return bw.error();
    link->bandwidth = *bw * 1e9;
    auto lat = in.number(l->as_object(), "latency(us)", ptr, link->latency * 1e6, 0.0, false,
                         "microseconds");
    if (!lat) return lat.error();
    link->latency = *lat * 1e-6;
  }
  auto overhead = in.number(*obj, "allreduce_overhead(us)", "", c.allreduce_overhead * 1e6, 0.0,
                            false, "microseconds");
  if (!overhead) return overhead.error();
  c.allreduce_overhead = *overhead * 1e-6;
  if (c.devices > c.devices_per_server && c.devices % c.devices_per_server != 0) {
    return in.fail(Errc::schema_error, "/devices",
                   std::to_string(c.devices) + " devices is not a multiple of devices_per_server " +
                       std::to_string(c.devices_per_server) + ": expected whole servers");
  }
  // The ranges the job needs (bandwidths, latencies): checked here too, naming the file.
  if (auto ok = c.validate(); !ok) return in.fail(Errc::schema_error, "", ok.error().message);
  return c;
}

/// Parses a cluster from JSON text; `source` names it in messages (usually the file path).
[[nodiscard]] inline Result<Cluster> parse_cluster(std::string_view text, std::string_view source) {
  auto v = detail::parse_json(text, source);
  if (!v) return v.error();
  return read_cluster(*v, source);
}

/// Loads a cluster file.
[[nodiscard]] inline Result<Cluster> load_cluster(const std::filesystem::path& file) {
  auto text = detail::read_text(file, "a cluster description, docs/gdat.md#cluster");
  if (!text) return text.error();
  return parse_cluster(*text, file.string());
}

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_CLUSTER_LOADER_HPP
