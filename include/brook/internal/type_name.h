// type_name<T>(): a readable C++ type name for error messages.
#pragma once

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <typeinfo>

namespace brook::internal {

template <class T>
std::string type_name() {
  const char* mangled = typeid(T).name();
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), &std::free);
  return status == 0 && demangled ? demangled.get() : mangled;
}

}  // namespace brook::internal
