// The lifecycles' tables of legal changes (the application's states, a stream thread's phases,
// a task's states): each a constexpr array of (from, to) pairs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>

namespace brook::internal {

// Whether (from, to) is one of `legal`.
template <class State, std::size_t N>
constexpr bool is_listed(const std::pair<State, State> (&legal)[N], State from, State to) {
  return std::find(std::begin(legal), std::end(legal), std::pair{from, to}) != std::end(legal);
}

}  // namespace brook::internal
