// What one process sends to the others in a cross-process exchange, and where what they send
// lands: shared by the collective hub (collectives.h) and the transports that carry it
// (src/distributed). Standard-library types only: libopenpjrt_gloo.so includes it too.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace openpjrt::cpu {

// A small header (any bytes) and segments sent as they lie in memory, without a copy.
struct Outgoing {
  std::vector<char> header;
  std::vector<std::pair<const void*, size_t>> segments;
  std::shared_ptr<const void> keep_alive;  // owns what the segments point at
};

// Where another process's segments go, decided once its header has arrived.
struct Placement {
  std::vector<std::pair<void*, size_t>> segments;  // in its order, with the sizes it sends
  std::shared_ptr<void> keep_alive;                // owns what the segments point at
  std::string error;                               // not empty: the header was malformed
};

// Called once per other process (by its position), on the exchanging thread.
using PlaceFn = std::function<Placement(int position, const std::vector<char>& header)>;

}  // namespace openpjrt::cpu
