#include "core/allocator.h"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <string>

namespace brook::internal {
namespace {

using ::testing::AnyOf;
using ::testing::Eq;
using ::testing::HasSubstr;

// The file of the executable or shared library that holds `address`.
std::string object_of(const void* address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

// The file whose malloc the process calls.
std::string malloc_provider() { return object_of(dlsym(RTLD_DEFAULT, "malloc")); }

TEST(Allocator, UsableSizeIsWhatMallocMakesUsable) {
  for (std::size_t size : {0, 1, 8, 15, 16, 24, 25, 40, 57, 100, 129, 300, 1000, 4097, 60000}) {
    void* block = std::malloc(size);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(usable_size(size), malloc_usable_size(block)) << size << " bytes";
    std::free(block);
  }
}

// Applications that link Brook run on the allocator it was built for (BROOK_MALLOC).
TEST(Allocator, TheProcessRunsOnTheAllocatorBrookWasBuiltFor) {
  const std::string configured = BROOK_MALLOC_OF_THIS_BUILD;
  const std::string_view name = allocator_name();
  if (name == "sanitizer") {  // which the build forces to BROOK_MALLOC=system
    EXPECT_EQ(configured, "system");
    // gcc links the sanitizer runtime as libasan.so, clang into the executable.
    EXPECT_THAT(malloc_provider(),
                AnyOf(HasSubstr("libasan"), Eq(object_of(reinterpret_cast<void*>(&object_of)))));
    return;
  }
  EXPECT_EQ(name, configured == "jemalloc" ? "jemalloc" : "glibc");
  EXPECT_THAT(malloc_provider(), HasSubstr(name == "jemalloc" ? "libjemalloc" : "libc.so"));
}

}  // namespace
}  // namespace brook::internal
