// Brook: the core of an application in one include: the DSL, the Processor API, the runtime,
// stores, windows, joins and the built-in serdes. What brings nlohmann/json's header (which
// adds about 0.8 s of parsing to every translation unit) is included where it is used:
// brook/json_serde.h (JSON values and keys), brook/avro_serde.h, brook/change_event.h (change
// data capture: Debezium events, StreamsBuilder::table_from_changes) and brook/serve.h (the
// HTTP layer).
#pragma once

#include "brook/error_handling.h"
#include "brook/global_ktable.h"
#include "brook/headers.h"
#include "brook/interactive_query.h"
#include "brook/kgrouped_stream.h"
#include "brook/kstream.h"
#include "brook/ktable.h"
#include "brook/metrics.h"
#include "brook/options.h"
#include "brook/postgres_source.h"
#include "brook/processor.h"
#include "brook/record.h"
#include "brook/restore_listener.h"
#include "brook/serde.h"
#include "brook/state_store.h"
#include "brook/status.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "brook/suppressed.h"
#include "brook/timestamps.h"
#include "brook/topology.h"
#include "brook/types.h"
#include "brook/window_store.h"
#include "brook/windowed.h"
#include "brook/windowed_kstream.h"
#include "brook/windows.h"
