# AoeOnnx.cmake: the ONNX model import component (docs/model_format.md#onnx-models).
#
# AOE_WITH_ONNX = AUTO (default: on when found), ON (stop with a message when not found) or OFF.
# When on, defines the INTERFACE target aoe_onnx (alias aoe::onnx, exported as aoe::onnx):
# aoe::aoe plus the ONNX project's libraries as Debian's libonnx-dev packages them (onnx: the
# checker and shape inference; onnx_proto: the protobuf messages, compiled there) and protobuf,
# and the compile definition AOE_WITH_ONNX=1. Code that includes <aoe/onnx.hpp> links
# aoe::onnx; the header-only core never needs it. Sets AOE_HAVE_ONNX to ON or OFF.
include_guard(GLOBAL)

set(AOE_WITH_ONNX "AUTO" CACHE STRING "ONNX model import: AUTO (on when libonnx-dev is found), ON or OFF")
set_property(CACHE AOE_WITH_ONNX PROPERTY STRINGS AUTO ON OFF)

set(AOE_HAVE_ONNX OFF)
if(NOT AOE_WITH_ONNX STREQUAL "OFF")
  # ONNX's exported targets link protobuf::libprotobuf: find protobuf first.
  find_package(Protobuf QUIET)
  if(Protobuf_FOUND)
    find_package(ONNX CONFIG QUIET)
  endif()
  if(Protobuf_FOUND AND ONNX_FOUND AND TARGET onnx AND TARGET onnx_proto)
    add_library(aoe_onnx INTERFACE)
    add_library(aoe::onnx ALIAS aoe_onnx)
    set_target_properties(aoe_onnx PROPERTIES EXPORT_NAME onnx)
    target_link_libraries(aoe_onnx INTERFACE aoe onnx onnx_proto protobuf::libprotobuf)
    target_compile_definitions(aoe_onnx INTERFACE AOE_WITH_ONNX=1)
    set(AOE_HAVE_ONNX ON)
    if(PROJECT_IS_TOP_LEVEL)
      message(STATUS "aoe: ONNX import on: ONNX ${ONNX_VERSION} (${ONNX_DIR}), protobuf "
                     "${Protobuf_VERSION}")
    endif()
  elseif(AOE_WITH_ONNX STREQUAL "ON")
    message(FATAL_ERROR
            "aoe: AOE_WITH_ONNX=ON but the ONNX library was not found (ONNXConfig.cmake and "
            "protobuf). On Debian 12: apt-get install libonnx-dev libprotobuf-dev "
            "protobuf-compiler; or configure with -DAOE_WITH_ONNX=OFF.")
  elseif(PROJECT_IS_TOP_LEVEL)
    message(STATUS "aoe: ONNX import off (libonnx-dev not found); `aoe --framework=5` will "
                   "say how to get it")
  endif()
endif()
