# AoeUnity.cmake: unity builds of the tests and tools (option AOE_UNITY_BUILD, docs/building.md#tests).
include_guard(GLOBAL)

# With AOE_UNITY_BUILD: all C++ sources of <target> compiled as one translation unit. The files
# of one target must then not define the same name twice at namespace scope (an anonymous
# namespace is shared by the whole unit): docs/building.md#tests ("Unity builds").
function(aoe_unity_build target)
  if(AOE_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE BATCH
                                               UNITY_BUILD_BATCH_SIZE 0)
  endif()
endfunction()

