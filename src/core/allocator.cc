#include "core/allocator.h"

#include <algorithm>

// Built with AddressSanitizer, whose allocator the process then runs on: gcc says so with
// __SANITIZE_ADDRESS__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define BROOK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BROOK_ASAN 1
#endif
#endif

#if defined(BROOK_MALLOC_JEMALLOC) && !defined(BROOK_ASAN)
#include <jemalloc/jemalloc.h>
#endif

namespace brook::internal {

#if defined(BROOK_ASAN)

// malloc(0) gives a 1-byte block.
std::size_t usable_size(std::size_t requested) { return std::max<std::size_t>(requested, 1); }
std::string_view allocator_name() { return "sanitizer"; }

#elif defined(BROOK_MALLOC_JEMALLOC)

std::size_t usable_size(std::size_t requested) {
  return nallocx(std::max<std::size_t>(requested, 1), 0);
}
std::string_view allocator_name() { return "jemalloc"; }

#else

// A glibc chunk: the request and an 8-byte size field, rounded up to 16 bytes, at least 32.
std::size_t usable_size(std::size_t requested) {
  constexpr std::size_t kSizeField = 8, kAlignment = 16, kMinChunk = 32;
  const std::size_t chunk = (requested + kSizeField + kAlignment - 1) & ~(kAlignment - 1);
  return std::max(chunk, kMinChunk) - kSizeField;
}
std::string_view allocator_name() { return "glibc"; }

#endif

}  // namespace brook::internal
