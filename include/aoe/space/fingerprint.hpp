// A space's fingerprint: what tells a repository that trials and records were made on the same
// space (parameter names, kinds, levels and constraints), so that a changed space is a miss.
#ifndef AOE_SPACE_FINGERPRINT_HPP
#define AOE_SPACE_FINGERPRINT_HPP

#include "aoe/space/space.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace aoe {

namespace detail {

/// FNV-1a, 64 bits, fed field by field with a separator so that ("ab","c") != ("a","bc").
class Fnv1a {
 public:
  void add(std::string_view text) noexcept {
    for (const char ch : text) step(static_cast<unsigned char>(ch));
    step(0x1F);
  }
  [[nodiscard]] std::uint64_t value() const noexcept { return h_; }

 private:
  void step(unsigned char byte) noexcept {
    h_ ^= byte;
    h_ *= 0x100000001B3ULL;
  }
  std::uint64_t h_ = 0xCBF29CE484222325ULL;
};

}  // namespace detail

/// 16 hexadecimal digits identifying the space: the parameters in order (name, kind, every level
/// with its type) and the constraints (kind, parameters, bound, description). A predicate
/// constraint is identified by its description only: changing its function without changing
/// its description keeps the fingerprint.
[[nodiscard]] inline std::string space_fingerprint(const Space& space) {
  detail::Fnv1a h;
  h.add("aoe-space-1");
  for (const auto& p : space.parameters()) {
    h.add(p.name());
    h.add(std::to_string(static_cast<int>(p.kind())));
    h.add(std::to_string(p.size()));
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      const Value& v = p.level(i);
      h.add(v.is_integer() ? "i" : v.is_real() ? "r" : "t");
      h.add(v.to_string());
    }
  }
  for (const auto& c : space.constraints()) {
    h.add(std::to_string(static_cast<int>(c.kind())));
    for (const auto& name : c.names()) h.add(name);
    h.add(Value(c.bound()).to_string());
    h.add(c.description());
  }
  static constexpr std::string_view digits = "0123456789abcdef";
  std::string out(16, '0');
  std::uint64_t x = h.value();
  for (std::size_t i = 16; i-- > 0; x >>= 4U) out[i] = digits[x & 0xFU];
  return out;
}

}  // namespace aoe

#endif  // AOE_SPACE_FINGERPRINT_HPP
