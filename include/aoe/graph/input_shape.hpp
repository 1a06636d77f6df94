// AOE's --input_shape flag: static shapes for a model's inputs ("x:1,3,640,640;mask:1,128").
#ifndef AOE_GRAPH_INPUT_SHAPE_HPP
#define AOE_GRAPH_INPUT_SHAPE_HPP

#include "aoe/core/error.hpp"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// The shapes given for a model's inputs, in the order given: (input name, dimensions).
using InputShapes = std::vector<std::pair<std::string, std::vector<std::int64_t>>>;

/// A dimension of `--input_shape` that a shape profile fills (ATC's -1 with --dynamic_batch_size,
/// --dynamic_image_size or --dynamic_dims; docs/cli.md#shape-profiles).
inline constexpr std::int64_t dynamic_dimension = -1;

/// Parses `--input_shape` as AOE writes it: `name:d0,d1,...` entries separated by ';'. The
/// name ends at the last ':' (TensorFlow names such as "input:0" keep theirs: "input:0:1,224");
/// `name:` alone is a scalar. Every dimension is a positive integer; a name may appear once.
/// With `profiles` (a shape profile flag was given) a dimension may also be -1
/// (dynamic_dimension), kept for the profile to fill; without, -1 is an error that names those
/// flags.
[[nodiscard]] inline Result<InputShapes> parse_input_shape(std::string_view flag,
                                                           bool profiles = false) {
  InputShapes out;
  const auto bad = [&](const std::string& what) {
    return make_error(Errc::invalid_argument,
                      "--input_shape=\"" + std::string(flag) + "\": " + what);
  };
  std::size_t start = 0;
  while (start <= flag.size()) {
    const std::size_t end = std::min(flag.find(';', start), flag.size());
    const std::string_view entry = flag.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) {
      if (end == flag.size() && !out.empty()) break;  // a trailing ';'
      return bad("expected name:d0,d1,... entries separated by ';' (an entry is empty)");
    }
    const std::size_t colon = entry.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      return bad("entry '" + std::string(entry) +
                 "': expected an input name, ':' and its dimensions (x:1,3,224,224)");
    }
    std::string name(entry.substr(0, colon));
    for (const auto& [seen, dims] : out) {
      if (seen == name) return bad("input '" + name + "' is given twice");
    }
    std::vector<std::int64_t> dims;
    const std::string_view list = entry.substr(colon + 1);
    std::size_t p = 0;
    while (p < list.size()) {
      const std::size_t comma = std::min(list.find(',', p), list.size());
      const std::string_view d = list.substr(p, comma - p);
      std::int64_t v = 0;
      const auto [ptr, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
      if (d == "-1" && !profiles) {
        return bad("input '" + name + "', dimension " + std::to_string(dims.size()) +
                   ": -1 (a dynamic dimension) is valid only with --dynamic_batch_size, "
                   "--dynamic_image_size or --dynamic_dims, which give its sizes");
      }
      if (d.empty() || ec != std::errc() || ptr != d.data() + d.size() || (v <= 0 && d != "-1")) {
        return bad("input '" + name + "', dimension " + std::to_string(dims.size()) + ": '" +
                   std::string(d) + "' is not a positive integer (dynamic dimensions need a size)");
      }
      dims.push_back(v);
      p = comma + 1;
      if (comma + 1 == list.size()) {
        return bad("input '" + name + "': a dimension is missing after the last ','");
      }
    }
    out.emplace_back(std::move(name), std::move(dims));
    if (end == flag.size()) break;
  }
  return out;
}

}  // namespace aoe

#endif  // AOE_GRAPH_INPUT_SHAPE_HPP
