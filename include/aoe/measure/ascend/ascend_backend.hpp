// Runs OPAT's operators on a real NPU: one Runner<device::Ascend> per operator and knowledge
// kind, bound to that kind's space. Schedule: the tiling (block dim and tiling struct) of the
// operator's Ascend C kernel from a KernelCatalog; Format: the storage format of the
// operator's tensors (ND or FRACTAL_NZ) in its single-operator descriptors; Impl: the
// implementation mode it is compiled with (ACL_OP_SELECT_IMPL_MODE). docs/ascend.md.
#ifndef AOE_MEASURE_ASCEND_ASCEND_BACKEND_HPP
#define AOE_MEASURE_ASCEND_ASCEND_BACKEND_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/ascend/ascend_runner.hpp"
#include "aoe/measure/ascend/kernel_catalog.hpp"
#include "aoe/measure/ascend/op_call.hpp"
#include "aoe/op/bank_key.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// Options of AscendBackend. Aggregate: `aoe::AscendBackendOptions{.impl_mode = "..."}`.
struct AscendBackendOptions {
  /// The implementation mode single-operator candidates are compiled with when Impl is not
  /// the kind being tuned, and the Impl default (OpatOptions::impl_mode).
  std::string impl_mode = "high_performance";
};

/// The backend `run_opat` takes for a real NPU (the simulator's is SimulatorBackend).
/// Parameter names and levels are the simulator's where they mean the same ("format":
/// ND / FRACTAL_NZ, "impl_mode": high_performance / high_precision), so knowledge stored by
/// one is found by the other. A kind that does not apply to an operator gives an empty space,
/// which run_opat skips.
class AscendBackend {
 public:
  explicit AscendBackend(Runner<device::Ascend> runner, ascend::KernelCatalog kernels = {},
                         AscendBackendOptions options = {})
      : runner_(std::move(runner)),
        kernels_(std::move(kernels)),
        options_(std::move(options)),
        cache_(std::make_shared<Cache>()) {}

  /// The runner for `op` and `kind`. Errors: the operator's kernel cannot be loaded, or its
  /// catalogue entry does not fit the operator (a shape reference out of range).
  [[nodiscard]] Result<Runner<device::Ascend>> create(const OperatorDesc& op,
                                                      KnowledgeKind kind) const {
    switch (kind) {
      case KnowledgeKind::schedule: return schedule(op);
      case KnowledgeKind::format: return format(op);
      case KnowledgeKind::impl: return impl(op);
    }
    return unsupported();
  }

  /// The bank scope of the device: its SoC name and AI Core count.
  [[nodiscard]] BankScope scope() const {
    return BankScope{runner_.soc_name(), runner_.ai_core_count()};
  }
  [[nodiscard]] const Runner<device::Ascend>& runner() const noexcept { return runner_; }
  /// The provenance of the job's times: measured on the device (Runner<device::Ascend>::timing).
  [[nodiscard]] Timing timing() const { return runner_.timing(); }
  [[nodiscard]] const ascend::KernelCatalog& kernels() const noexcept { return kernels_; }

  /// The operator types whose Format a single-operator call can tune (the simulator's list:
  /// the MatMul family and SoftmaxV2).
  [[nodiscard]] static bool format_tunable(std::string_view type) noexcept {
    return type == "MatMul" || type == "MatMulV2" || type == "BatchMatMul" ||
           type == "BatchMatMulV2" || type == "SoftmaxV2";
  }

  /// `op` as a single-operator call: tensors as the graph gives them (a FRACTAL_NZ tensor is an
  /// ND origin stored as FRACTAL_NZ), all attributes, `impl_mode`; the tensors that Format
  /// tunes stored as `storage` when given.
  [[nodiscard]] static Result<ascend::OpCall> single_op(const OperatorDesc& op,
                                                        const std::string& impl_mode,
                                                        std::optional<Format> storage = {}) {
    ascend::OpCall call{.type = op.type, .attributes = op.attributes, .impl_mode = impl_mode};
    const auto convert = [&](const TensorDesc& t, bool tuned) -> Result<ascend::OpTensor> {
      TensorDesc origin = t;
      Format stored = t.format;
      if (t.format == Format::FRACTAL_NZ) origin.format = Format::ND;
      if (tuned && storage) stored = *storage;
      return ascend::stored_as(origin, stored);
    };
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      auto t = convert(op.inputs[i], format_tensor(op, false, i));
      if (!t) return t.error();
      call.inputs.push_back(std::move(*t));
    }
    for (std::size_t i = 0; i < op.outputs.size(); ++i) {
      auto t = convert(op.outputs[i], format_tensor(op, true, i));
      if (!t) return t.error();
      call.outputs.push_back(std::move(*t));
    }
    return call;
  }

 private:
  struct Cache {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<const ascend::Kernel>> kernels;  // by op type
  };

  [[nodiscard]] static bool fused(const OperatorDesc& op) {
    return !op.members.empty() || op.type.find('+') != std::string::npos;
  }

  /// Whether Format changes tensor `i` (an input, or an output if `output`) of `op`.
  [[nodiscard]] static bool format_tensor(const OperatorDesc& op, bool output, std::size_t i) {
    if (!format_tunable(op.type)) return false;
    const auto& list = output ? op.outputs : op.inputs;
    if (i >= list.size() || list[i].shape.size() < 2) return false;
    if (op.type == "SoftmaxV2") return i == 0;
    return output ? i == 0 : i <= 1;  // x1, x2 -> y; a bias stays ND
  }

  [[nodiscard]] Runner<device::Ascend> unsupported() const {
    return runner_.bind(Space{},
                        [](const Configuration&) -> Result<Runner<device::Ascend>::Call> {
                          return make_error(Errc::unsupported, "nothing to tune");
                        },
                        {});
  }

  [[nodiscard]] Result<Runner<device::Ascend>> schedule(const OperatorDesc& op) const {
    const ascend::KernelEntry* entry = kernels_.find(op.type);
    if (entry == nullptr) return unsupported();
    const std::string who = "operator '" + op.name + "' (" + op.type + ")";
    std::shared_ptr<const ascend::Kernel> kernel;
    {
      std::lock_guard lock(cache_->mutex);
      auto& slot = cache_->kernels[op.type];
      if (!slot) {
        auto loaded = runner_.load_kernel(entry->binary, entry->kernel);
        if (!loaded) {
          return make_error(Errc::not_found, who + ": " + kernels_.file.string() + entry->pointer +
                                                 ": " + loaded.error().message);
        }
        slot = std::move(*loaded);
      }
      kernel = slot;
    }
    auto space = std::make_shared<const Space>(entry->space());
    const Configuration def = entry->default_configuration(*space);
    // A catalogue entry that does not fit the operator fails here, not on every candidate.
    if (auto probe = entry->launch(op, *space, def); !probe) {
      return make_error(Errc::invalid_argument,
                        who + ": " + kernels_.file.string() + ": " + probe.error().message);
    }
    return runner_.bind(
        *space,
        [entry = *entry, kernel, op,
         space](const Configuration& c) -> Result<Runner<device::Ascend>::Call> {
          auto call = entry.launch(op, *space, c);
          if (!call) return call.error();
          call->kernel = kernel;
          return Runner<device::Ascend>::Call{std::move(*call)};
        },
        def);
  }

  [[nodiscard]] Result<Runner<device::Ascend>> format(const OperatorDesc& op) const {
    if (fused(op) || !format_tensor(op, false, 0)) return unsupported();
    const Configuration def{op.inputs[0].format == Format::FRACTAL_NZ ? 1U : 0U};
    if (auto probe = single_op(op, options_.impl_mode, Format::FRACTAL_NZ); !probe) {
      return make_error(Errc::invalid_argument,
                        "operator '" + op.name + "' (" + op.type + "): " + probe.error().message);
    }
    return runner_.bind(
        Space({enumeration("format", {"ND", "FRACTAL_NZ"})}),
        [op, mode = options_.impl_mode](
            const Configuration& c) -> Result<Runner<device::Ascend>::Call> {
          auto call = single_op(op, mode, c[0] == 1 ? Format::FRACTAL_NZ : Format::ND);
          if (!call) return call.error();
          return Runner<device::Ascend>::Call{std::move(*call)};
        },
        def);
  }

  [[nodiscard]] Result<Runner<device::Ascend>> impl(const OperatorDesc& op) const {
    if (fused(op) || op.inputs.empty()) return unsupported();
    const DataType t = op.inputs[0].dtype;
    if (t != DataType::float16 && t != DataType::bfloat16 && t != DataType::float32) {
      return unsupported();
    }
    static const std::vector<std::string> modes{"high_performance", "high_precision"};
    const Configuration def{options_.impl_mode == modes[1] ? 1U : 0U};
    if (auto probe = single_op(op, modes[0]); !probe) {
      return make_error(Errc::invalid_argument,
                        "operator '" + op.name + "' (" + op.type + "): " + probe.error().message);
    }
    return runner_.bind(
        Space({enumeration("impl_mode", modes)}),
        [op](const Configuration& c) -> Result<Runner<device::Ascend>::Call> {
          auto call = single_op(op, modes[c[0]]);
          if (!call) return call.error();
          return Runner<device::Ascend>::Call{std::move(*call)};
        },
        def);
  }

  Runner<device::Ascend> runner_;
  ascend::KernelCatalog kernels_;
  AscendBackendOptions options_;
  std::shared_ptr<Cache> cache_;
};

}  // namespace aoe

#endif  // AOE_MEASURE_ASCEND_ASCEND_BACKEND_HPP
