# AoeCuda.cmake: the CUDA dependency of the CUDA runner (include/aoe/measure/cuda/).
# Included by the top-level CMakeLists.txt unless AOE_WITH_CUDA=OFF.
#
# AOE_WITH_CUDA: AUTO (default) enables the component when the CUDA toolkit (FindCUDAToolkit:
# nvcc on PATH, CUDAToolkit_ROOT, or /usr/local/cuda) with NVRTC and the driver API's header is
# found; ON requires it (configuring stops with the packages to install); OFF never looks.
#
# Defines the INTERFACE target aoe_cuda (alias aoe::cuda, exported as aoe::cuda): aoe::aoe plus
# NVRTC (aoe::nvrtc, linked), the toolkit's headers (cuda.h, nvrtc.h) and libdl. The driver
# (libcuda.so.1) is NOT linked: the runner loads it at run time (measure/cuda/driver_library.hpp)
# so that programs built with it start on machines without an NVIDIA driver and say so, and
# NVML (libnvidia-ml.so.1) likewise. Sets AOE_CUDA_FOUND. docs/cuda.md.
#
# aoe::nvrtc is libnvrtc alone. FindCUDAToolkit's CUDA::nvrtc is not used because it carries
# CUDA::cuda_driver (the toolkit's link-only stub libcuda.so): a linker without --as-needed (the
# sanitizers' link line turns it off) then records libcuda.so.1, and the program cannot start
# where no driver is installed. aoeConfig.cmake defines the same target for users.
include_guard(GLOBAL)

set(AOE_CUDA_FOUND FALSE)
if(NOT DEFINED CUDAToolkit_ROOT AND NOT DEFINED ENV{CUDAToolkit_ROOT} AND EXISTS "/usr/local/cuda")
  set(CUDAToolkit_ROOT "/usr/local/cuda")
endif()
find_package(CUDAToolkit QUIET)
find_package(Threads REQUIRED)

set(_aoe_cuda_missing "")
if(NOT CUDAToolkit_FOUND)
  set(_aoe_cuda_missing "the CUDA toolkit (FindCUDAToolkit found no nvcc)")
elseif(NOT CUDA_nvrtc_LIBRARY)
  set(_aoe_cuda_missing "NVRTC (libnvrtc) in the CUDA toolkit at ${CUDAToolkit_LIBRARY_DIR}")
elseif(NOT EXISTS "${CUDAToolkit_INCLUDE_DIRS}/cuda.h")
  set(_aoe_cuda_missing "cuda.h in ${CUDAToolkit_INCLUDE_DIRS}")
endif()

if(_aoe_cuda_missing)
  if(AOE_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR
      "AOE_WITH_CUDA=ON but ${_aoe_cuda_missing} was not found.\n"
      "Install the CUDA toolkit (13; NVIDIA's packages put it in /usr/local/cuda), set "
      "CUDAToolkit_ROOT to it, or configure with -DAOE_WITH_CUDA=OFF.")
  endif()
  message(STATUS "aoe: ${_aoe_cuda_missing} not found: the CUDA runner is off")
  return()
endif()

if(NOT TARGET aoe::nvrtc)
  add_library(aoe::nvrtc UNKNOWN IMPORTED)
  set_target_properties(aoe::nvrtc PROPERTIES IMPORTED_LOCATION "${CUDA_nvrtc_LIBRARY}")
endif()

add_library(aoe_cuda INTERFACE)
add_library(aoe::cuda ALIAS aoe_cuda)
set_target_properties(aoe_cuda PROPERTIES EXPORT_NAME cuda)  # aoe::cuda when installed
target_include_directories(aoe_cuda SYSTEM INTERFACE "${CUDAToolkit_INCLUDE_DIRS}")
target_link_libraries(aoe_cuda INTERFACE aoe aoe::nvrtc ${CMAKE_DL_LIBS} Threads::Threads)
target_compile_definitions(aoe_cuda INTERFACE AOE_WITH_CUDA=1)
set(AOE_CUDA_FOUND TRUE)
message(STATUS "aoe: CUDA ${CUDAToolkit_VERSION} (${CUDAToolkit_LIBRARY_DIR}): NVRTC linked, "
               "the driver loaded at run time")
