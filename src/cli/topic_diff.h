// `brook topics diff TOPIC_A TOPIC_B`: compares the final value per key of two topics (what a
// compacted topic stands for), e.g. the outputs of two versions of an application run side by
// side, on one log or two.
#pragma once

#include <span>
#include <string>

namespace brook::cli {

// Args after "topics diff". Exit code: 0 equal, 1 different, 2 a usage error or a log that
// refused (as diff(1): a script can tell "different" from "could not compare").
int topics_diff(std::span<const std::string> args);

}  // namespace brook::cli
