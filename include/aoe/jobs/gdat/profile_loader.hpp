// Reads a gradient profile file (docs/gdat.md#gradient-profile):
//   {"format_version": 1, "name": "resnet50", "forward_time_us": 41000, "backward_tail_us": 0,
//    "gradients": [{"name": "fc/weights", "backward_time_us": 310.5, "bytes": 4096000}, ...]}
// Gradients in backward (ready) order; every time a non-negative number of microseconds, every
// size a positive integer of bytes. Errors name the file, the JSON pointer and what was
// expected.
#ifndef AOE_JOBS_GDAT_PROFILE_LOADER_HPP
#define AOE_JOBS_GDAT_PROFILE_LOADER_HPP

#include "aoe/core/error.hpp"
#include "aoe/jobs/gdat/detail/json_input.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"
#include "aoe/op/tensor.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace aoe::gdat {

/// Whether parsed JSON looks like a gradient profile (an object with a "gradients" member)
/// rather than a model graph: how `aoe --job_type=4 --model=FILE` tells them apart.
[[nodiscard]] inline bool looks_like_gradient_profile(const boost::json::value& v) {
  const auto* o = v.if_object();
  return o != nullptr && o->contains("gradients") && !o->contains("nodes");
}

/// Reads a profile from parsed JSON; `source` names it in messages.
[[nodiscard]] inline Result<GradientProfile> read_gradient_profile(const boost::json::value& root,
                                                                   std::string_view source) {
  const detail::InputErrors in{std::string(source)};
  const auto* obj = root.if_object();
  if (obj == nullptr) {
    return in.fail(Errc::schema_error, "",
                   "expected a gradient profile object {\"name\", \"gradients\": [...]}");
  }
  if (auto ok = in.check_version(*obj); !ok) return ok.error();
  GradientProfile p;
  const auto* name = obj->if_contains("name");
  if (name == nullptr || !name->is_string() || name->as_string().empty()) {
    return in.fail(Errc::schema_error, "/name", "expected a non-empty string (the model name)");
  }
  p.name = std::string(name->as_string());
  auto fwd = in.number(*obj, "forward_time_us", "", 0.0, 0.0, false, "microseconds");
  if (!fwd) return fwd.error();
  p.forward_seconds = *fwd * 1e-6;
  auto tail = in.number(*obj, "backward_tail_us", "", 0.0, 0.0, false, "microseconds");
  if (!tail) return tail.error();
  p.backward_tail_seconds = *tail * 1e-6;

  const auto* grads = obj->if_contains("gradients");
  if (grads == nullptr || !grads->is_array() || grads->as_array().empty()) {
    return in.fail(Errc::schema_error, "/gradients",
                   "expected a non-empty array of {\"name\", \"backward_time_us\", \"bytes\"} in "
                   "backward order");
  }
  const auto& arr = grads->as_array();
  p.gradients.reserve(arr.size());
  std::int64_t total_bytes = 0;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string ptr = "/gradients/" + std::to_string(i);
    const auto* g = arr[i].if_object();
    if (g == nullptr) {
      return in.fail(Errc::schema_error, ptr,
                     "expected an object {\"name\", \"backward_time_us\", \"bytes\"}");
    }
    Gradient gr;
    if (const auto* n = g->if_contains("name")) {
      if (!n->is_string() || n->as_string().empty()) {
        return in.fail(Errc::schema_error, ptr + "/name", "expected a non-empty string");
      }
      gr.name = std::string(n->as_string());
    } else {
      gr.name = "gradient_" + std::to_string(i);
    }
    auto t = in.number(*g, "backward_time_us", ptr, std::nullopt, 0.0, false, "microseconds");
    if (!t) return t.error();
    gr.backward_seconds = *t * 1e-6;
    auto b = in.integer(*g, "bytes", ptr, std::nullopt, 1, "the gradient's size in bytes");
    if (!b) return b.error();
    if (*b > max_tensor_bytes) {
      return in.fail(
          Errc::schema_error, ptr + "/bytes",
          "expected at most 2^40 bytes (1 TiB) per gradient, found " + std::to_string(*b));
    }
    gr.bytes = *b;
    if (__builtin_add_overflow(total_bytes, gr.bytes, &total_bytes)) {
      return in.fail(Errc::schema_error, ptr + "/bytes",
                     "the total size of the gradients overflows a 64-bit integer");
    }
    p.gradients.push_back(std::move(gr));
  }
  return p;
}

/// Parses a profile from JSON text; `source` names it in messages (usually the file path).
[[nodiscard]] inline Result<GradientProfile> parse_gradient_profile(std::string_view text,
                                                                    std::string_view source) {
  auto v = detail::parse_json(text, source);
  if (!v) return v.error();
  return read_gradient_profile(*v, source);
}

/// Loads a profile file.
[[nodiscard]] inline Result<GradientProfile> load_gradient_profile(
    const std::filesystem::path& file) {
  auto text = detail::read_text(file, "a gradient profile, docs/gdat.md#gradient-profile");
  if (!text) return text.error();
  return parse_gradient_profile(*text, file.string());
}

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_PROFILE_LOADER_HPP
