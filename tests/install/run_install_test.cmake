# Install test, run by CTest as `cmake -P`: installs the Brook build in BUILD_DIR into a
# fresh prefix under WORK_DIR, then configures, builds and runs the external project
# tests/install/consumer against it. Any failing step fails the test with its output.
#
# Inputs (-D): BUILD_DIR, WORK_DIR, CONSUMER_DIR, GENERATOR, CXX_COMPILER, BUILD_TYPE,
#              CONSUMER_FLAGS (extra compile/link flags, e.g. the sanitizers; may be empty).
cmake_minimum_required(VERSION 3.25)

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})

function(step name)
  message(STATUS "install test: ${name}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: step '${name}' failed (${rc})")
  endif()
endfunction()

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
step("configure consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${consumer_build}
     -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
     -DCMAKE_PREFIX_PATH=${prefix} "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}"
     "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}")
step("build consumer" ${CMAKE_COMMAND} --build ${consumer_build})
# The consumer finds libbrook.so through the build RPATH CMake gives it (the prefix's lib/).
step("run consumer" ${consumer_build}/app)
