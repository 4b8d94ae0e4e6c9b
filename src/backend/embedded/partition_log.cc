// Placeholder so the layer links before the storage engine lands.
#include "backend/embedded/partition_log.h"
