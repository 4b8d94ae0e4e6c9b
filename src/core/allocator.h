// The process allocator (docs/architecture.md, "The process allocator"): applications that link
// Brook run on jemalloc unless Brook was built with -DBROOK_MALLOC=system. What it gives a
// request, for code that budgets memory by the bytes malloc really hands out (the record cache).
#pragma once

#include <cstddef>
#include <string_view>

namespace brook::internal {

// malloc_usable_size() of the block malloc(requested) returns, for requests below the
// allocator's direct-mapping threshold (128 KiB with glibc): jemalloc's size class, a glibc
// chunk less its 8-byte size field, or exactly `requested` (at least 1) under AddressSanitizer.
std::size_t usable_size(std::size_t requested);

// "jemalloc", "glibc" or "sanitizer": the allocator usable_size() describes.
std::string_view allocator_name();

}  // namespace brook::internal
