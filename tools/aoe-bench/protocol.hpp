// aoe-bench --protocol: the recorded spaces split in two, fixed in the repository
// (bench/protocol.json), so that settings are chosen on one part and reported on the other:
// every space of one kernel family and every space of one device are held out, the rest is
// the tuning part (docs/research.md#the-protocol).
#ifndef AOE_TOOLS_AOE_BENCH_PROTOCOL_HPP
#define AOE_TOOLS_AOE_BENCH_PROTOCOL_HPP

#include <aoe/core/error.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace aoe_bench {

/// One recorded space of the protocol: its file (relative to `--datasets`), kernel family and
/// device.
struct ProtocolSpace {
  std::string file;
  std::string family;
  std::string device;
};

/// A protocol file, read.
struct Protocol {
  std::string path;
  std::string held_out_family;
  std::string held_out_device;
  std::vector<ProtocolSpace> spaces;
  /// Whether `s` is in the held-out part: its family or its device is held out.
  [[nodiscard]] bool held_out(const ProtocolSpace& s) const {
    return s.family == held_out_family || s.device == held_out_device;
  }
};

/// Reads a protocol file: `{"held_out_family", "held_out_device", "spaces": [{"file", "family",
/// "device"}, ...]}` (other members, such as a description, are ignored). Errors
/// (`parse_error`) name the file and the JSON pointer of what is wrong: a missing or non-text
/// member, a file listed twice, a held-out family or device no space has, or a part left
/// empty.
[[nodiscard]] aoe::Result<Protocol> read_protocol(const std::string& path);

}  // namespace aoe_bench

#endif  // AOE_TOOLS_AOE_BENCH_PROTOCOL_HPP
