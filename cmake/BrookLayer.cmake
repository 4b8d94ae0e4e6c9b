# Public headers: one INTERFACE target that every layer and every user sees.
add_library(brook_headers INTERFACE)
target_include_directories(brook_headers INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:include>)
target_link_libraries(brook_headers INTERFACE nlohmann_json::nlohmann_json)
target_compile_features(brook_headers INTERFACE cxx_std_23)
# libstdc++ 12 offers std::expected (brook::Result) only where __cpp_concepts >= 202002L, which
# clang announces from version 19; older clangs compile libstdc++'s <expected> as it is. Evaluated
# for each user's compiler, so an application built with clang 16 gets it too.
target_compile_options(brook_headers INTERFACE
  "$<$<AND:$<COMPILE_LANG_AND_ID:CXX,Clang>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,19>>:-D__cpp_concepts=202002L;-Wno-macro-redefined>")

# brook_layer_includes(<target> <layer> [BELOW <layers>...]): `target` sees, of src/, only
# `layer` and the layers below it (transitively: a header of a layer below may include the
# layers below that one), through an include root of symbolic links made for `layer`; an
# #include of any other layer does not compile. scripts/check_layers.py checks the exact rule
# (the direct dependencies only).
function(brook_layer_includes target layer)
  cmake_parse_arguments(ARG "" "" "BELOW" ${ARGN})
  set(visible ${layer})
  foreach(below IN LISTS ARG_BELOW)
    get_property(below_visible GLOBAL PROPERTY BROOK_LAYER_VISIBLE_${below})
    if(NOT below_visible)
      message(FATAL_ERROR "layer ${layer}: layer ${below} below it is not defined (yet)")
    endif()
    list(APPEND visible ${below_visible})
  endforeach()
  list(REMOVE_DUPLICATES visible)
  set_property(GLOBAL PROPERTY BROOK_LAYER_VISIBLE_${layer} ${visible})
  set(root ${CMAKE_BINARY_DIR}/layer_includes/${layer})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root})
  foreach(name IN LISTS visible)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${name} ${root}/${name} SYMBOLIC)
  endforeach()
  target_include_directories(${target} PRIVATE ${root})
endfunction()

# brook_layer(<layer> SOURCES ... [BELOW <layers>...] [DEPS ...]): the object library
# brook_<layer> of src/<layer>, which may include the layers BELOW it (brook_layer_includes)
# and links them and the libraries DEPS.
function(brook_layer layer)
  cmake_parse_arguments(ARG "" "" "SOURCES;BELOW;DEPS" ${ARGN})
  set(name brook_${layer})
  add_library(${name} OBJECT ${ARG_SOURCES})
  brook_layer_includes(${name} ${layer} BELOW ${ARG_BELOW})
  list(TRANSFORM ARG_BELOW PREPEND brook_ OUTPUT_VARIABLE below_targets)
  target_link_libraries(${name} PUBLIC brook_headers
                                PRIVATE brook_warnings ${below_targets} ${ARG_DEPS})
  brook_unity_build(${name})
endfunction()

# brook_unity_build(<target>): compiles the target's sources in batches of up to 8 (a unity
# build): each batch parses the standard library's and Brook's headers once. A clean Release
# build of the demo, its examples aside, took 144 s of compile steps instead of 276 s
# (2026-12-07). The sources of a batch share one translation unit, so names in their anonymous
# namespaces must differ. GCC's -Wsubobject-linkage, meant for types of a header's anonymous
# namespace, would flag every batched file's own (as included files): off for these targets.
function(brook_unity_build target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  target_compile_options(${target} PRIVATE
    "$<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-subobject-linkage>")
endfunction()

# brook_test(<name> <sources...> [RESOURCE_LOCK <lock>]): a GoogleTest binary linked against
# libbrook. Its tests run in parallel with others, but not with tests holding the same lock.
function(brook_test name)
  cmake_parse_arguments(ARG "" "RESOURCE_LOCK" "" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE brook brook_warnings GTest::gtest_main GTest::gmock fmt::fmt)
  # Compiled in batches of a few sources (a unity build): each batch parses Brook's and
  # GoogleTest's headers and instantiates the templates its tests share once, which cuts a
  # clean build of the tests by about a third.
  set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 4)
  if(ARG_RESOURCE_LOCK)
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES RESOURCE_LOCK ${ARG_RESOURCE_LOCK})
  else()
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
  endif()
endfunction()
