// Compiled with the state layer's include root (cmake/BrookLayer.cmake): the runtime is above
// the state layer, so this include must not compile.
#include "runtime/stream_task.h"
