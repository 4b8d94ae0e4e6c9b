// The Processor API is header-only templates (include/brook/processor.h,
// include/brook/internal/node.h); this unit checks that the headers stand alone.
#include "brook/processor.h"

#include "brook/internal/node.h"
