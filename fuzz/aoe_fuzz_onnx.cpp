// libFuzzer target for the ONNX model loader (aoe::parse_onnx: protobuf, checker, shape
// inference, constant folding, operator mapping; docs/reliability.md#fuzzing). Any input must
// give an error or a graph: a crash, a leak or undefined behaviour is a finding.
#include <aoe/graph/onnx/onnx_loader.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)aoe::parse_onnx(bytes, "fuzz.onnx");
  return 0;
}
