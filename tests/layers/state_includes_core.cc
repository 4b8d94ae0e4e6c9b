// Compiled with the state layer's include root (cmake/BrookLayer.cmake): a layer below it is
// visible, so this compiles. The control for state_includes_runtime.cc.
#include "core/record_arena.h"
