// Builds small ONNX models in the tests (the protobuf messages of libonnx), so that every
// fixture is written here and read back through the loader's real path (serialised bytes).
#ifndef AOE_TESTS_ONNX_ONNX_MODEL_BUILDER_HPP
#define AOE_TESTS_ONNX_ONNX_MODEL_BUILDER_HPP

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

namespace aoe::test {

/// A dimension: a size, or a symbol (a dynamic dimension, as exporters write them).
using Dim = std::variant<std::int64_t, std::string>;

class OnnxModel {
 public:
  explicit OnnxModel(std::int64_t opset = 13, std::int64_t ir_version = 8) {
    model_.set_ir_version(ir_version);
    model_.set_producer_name("aoe tests");
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("test_graph");
  }

  OnnxModel& input(const std::string& name, std::vector<Dim> dims,
                   int type = onnx::TensorProto_DataType_FLOAT) {
    set_type(model_.mutable_graph()->add_input(), name, dims, type);
    return *this;
  }
  OnnxModel& output(const std::string& name, int type = onnx::TensorProto_DataType_FLOAT) {
    auto* vi = model_.mutable_graph()->add_output();
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    // The checker wants a shape on graph outputs; a symbol of unknown rank 1 will do (the
    // loader infers the real one).
    vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("out");
    return *this;
  }
  /// A float weight of `dims` (zeros).
  OnnxModel& weight(const std::string& name, std::vector<std::int64_t> dims) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    std::int64_t n = 1;
    for (const auto d : dims) {
      t->add_dims(d);
      n *= d;
    }
    for (std::int64_t i = 0; i < n; ++i) t->add_float_data(0.5F);
    return *this;
  }
  /// An int64 constant initializer.
  OnnxModel& ints(const std::string& name, std::vector<std::int64_t> values,
                  bool as_vector = true) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    if (as_vector) t->add_dims(static_cast<std::int64_t>(values.size()));
    for (const auto v : values) t->add_int64_data(v);
    return *this;
  }
  /// A float scalar initializer.
  OnnxModel& scalar(const std::string& name, float value) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    t->add_float_data(value);
    return *this;
  }
  /// A weight whose data is in an external file (that need not exist).
  OnnxModel& external_weight(const std::string& name, std::vector<std::int64_t> dims) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    for (const auto d : dims) t->add_dims(d);
    t->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
    auto* e = t->add_external_data();
    e->set_key("location");
    e->set_value("weights.bin");
    return *this;
  }

  /// Adds a node; returns it for attributes.
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> inputs,
                        std::vector<std::string> outputs, const std::string& name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    if (!name.empty()) n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }

  [[nodiscard]] std::string bytes() const { return model_.SerializeAsString(); }
  [[nodiscard]] onnx::ModelProto& proto() noexcept { return model_; }

 private:
  static void set_type(onnx::ValueInfoProto* vi, const std::string& name,
                       const std::vector<Dim>& dims, int type) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto* shape = tt->mutable_shape();
    for (const auto& d : dims) {
      auto* dim = shape->add_dim();
      if (const auto* v = std::get_if<std::int64_t>(&d)) {
        dim->set_dim_value(*v);
      } else {
        dim->set_dim_param(std::get<std::string>(d));
      }
    }
  }

  onnx::ModelProto model_;
};

inline void set_int(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  a->set_i(v);
}
inline void set_float(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  a->set_f(v);
}
inline void set_ints(onnx::NodeProto& n, const std::string& name,
                     std::vector<std::int64_t> values) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INTS);
  for (const auto v : values) a->add_ints(v);
}
inline void set_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_STRING);
  a->set_s(v);
}

}  // namespace aoe::test

#endif  // AOE_TESTS_ONNX_ONNX_MODEL_BUILDER_HPP
