// Brook: everything an application needs, in one include.
#pragma once

#include "brook/avro_serde.h"
#include "brook/error_handling.h"
#include "brook/headers.h"
#include "brook/json_serde.h"
#include "brook/kstream.h"
#include "brook/metrics.h"
#include "brook/options.h"
#include "brook/processor.h"
#include "brook/record.h"
#include "brook/serde.h"
#include "brook/status.h"
#include "brook/streams_builder.h"
#include "brook/topology.h"
#include "brook/types.h"
