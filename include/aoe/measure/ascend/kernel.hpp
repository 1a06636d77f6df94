// A loaded Ascend C kernel: the binary (built with ascendc_fatbin_library) loaded on one
// device with aclrtBinaryLoadFromFile and the kernel function found by name.
#ifndef AOE_MEASURE_ASCEND_KERNEL_HPP
#define AOE_MEASURE_ASCEND_KERNEL_HPP

#include "aoe/measure/ascend/acl_resources.hpp"
#include "aoe/measure/ascend/detail/session.hpp"
#include "aoe/measure/runner.hpp"

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace aoe::ascend {

/// Made by Runner<device::Ascend>::load_kernel; shared by the KernelCalls that launch it. Keeps
/// its device open; the binary is unloaded (aclrtBinaryUnLoad) when the last owner goes.
class Kernel {
 public:
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  Kernel(Kernel&&) = delete;
  Kernel& operator=(Kernel&&) = delete;
  ~Kernel() {
    std::lock_guard lock(session_->mutex());
    static_cast<void>(session_->make_current());
    binary_.reset();
  }

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::filesystem::path& binary() const noexcept { return path_; }

 private:
  template <class Device>
  friend class aoe::Runner;

  Kernel(std::shared_ptr<const detail::Session> session, BinaryHandle binary,
         aclrtFuncHandle function, std::filesystem::path path, std::string name)
      : session_(std::move(session)),
        binary_(std::move(binary)),
        function_(function),
        path_(std::move(path)),
        name_(std::move(name)) {}

  std::shared_ptr<const detail::Session> session_;
  BinaryHandle binary_;
  aclrtFuncHandle function_ = nullptr;
  std::filesystem::path path_;
  std::string name_;
};

}  // namespace aoe::ascend

#endif  // AOE_MEASURE_ASCEND_KERNEL_HPP
