# Public headers: one INTERFACE target that every layer and every user sees.
add_library(brook_headers INTERFACE)
target_include_directories(brook_headers INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:include>)
target_link_libraries(brook_headers INTERFACE nlohmann_json::nlohmann_json)
target_compile_features(brook_headers INTERFACE cxx_std_23)

# brook_layer(<name> SOURCES ... [DEPS ...]): an object library for one layer of src/.
function(brook_layer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} OBJECT ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC brook_headers PRIVATE brook_warnings ${ARG_DEPS})
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
