// The configuration being measured, by parameter name: what a kernel's launch geometry and a
// runner's objective read. Shared by the OpenCL and CUDA runners.
#ifndef AOE_MEASURE_KERNEL_PARAMS_HPP
#define AOE_MEASURE_KERNEL_PARAMS_HPP

#include "aoe/core/error.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/space/value.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace aoe::kernel {

/// `p["MWG"]` is the parameter's numeric value (flags 0/1, enumerations their index); an
/// unknown name throws `aoe::Error` (the measurement fails with its message).
class Params {
 public:
  Params(const Space& space, const Configuration& c) : space_(&space), c_(&c) {}

  [[nodiscard]] std::int64_t operator[](std::string_view name) const {
    return static_cast<std::int64_t>(real(name));
  }
  [[nodiscard]] double real(std::string_view name) const {
    const std::size_t d = dimension(name);
    return space_->parameter(d).numeric((*c_)[d]);
  }
  [[nodiscard]] const Value& value(std::string_view name) const {
    const std::size_t d = dimension(name);
    return space_->parameter(d).level((*c_)[d]);
  }
  [[nodiscard]] bool contains(std::string_view name) const noexcept {
    for (std::size_t d = 0; d < space_->dimensions(); ++d) {
      if (space_->parameter(d).name() == name) return true;
    }
    return false;
  }
  [[nodiscard]] const Space& space() const noexcept { return *space_; }
  [[nodiscard]] const Configuration& configuration() const noexcept { return *c_; }

 private:
  [[nodiscard]] std::size_t dimension(std::string_view name) const {
    for (std::size_t d = 0; d < space_->dimensions(); ++d) {
      if (space_->parameter(d).name() == name) return d;
    }
    throw Error(Errc::invalid_argument,
                "aoe::kernel::Params: the space has no parameter '" + std::string(name) + "'");
  }

  const Space* space_;
  const Configuration* c_;
};

}  // namespace aoe::kernel

#endif  // AOE_MEASURE_KERNEL_PARAMS_HPP
