// The extension chain of PJRT_Api. Empty for now: the Layouts and MemoryDescriptions extensions
// are not offered yet, and clients fall back to the core API without them.
#include "src/plugin/plugin.h"

namespace openpjrt::plugin {

PJRT_Extension_Base* FirstExtension() { return nullptr; }

}  // namespace openpjrt::plugin
