// `openpjrt info`: what a PJRT plugin is and offers: path, ABI version, attributes, platform,
// devices and their memories.
#include <cstdio>
#include <string>

#include "src/support/str.h"
#include "tools/openpjrt/plugin_exec.h"
#include "tools/openpjrt/verbs.h"

namespace openpjrt::tools {
namespace {

constexpr char kInfoUsage[] =
    "usage: openpjrt info [--plugin PATH]\n"
    "\n"
    "Loads a PJRT plugin (default: the CPU plugin of this build; a name such as 'cuda' is\n"
    "looked up as pjrt_c_api_<name>_plugin.so in $PJRT_PLUGIN_LIBRARY_PATH) and prints its\n"
    "path, PJRT C API version, attributes, platform, devices and memories.\n";

std::string ValueText(const client::NamedValue& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return StrCat(*i);
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto* d = std::get_if<double>(&v)) return StrCat(*d);
  if (auto* s = std::get_if<std::string>(&v)) return StrCat("\"", *s, "\"");
  const auto& l = std::get<std::vector<int64_t>>(v);
  std::string s = "[";
  for (size_t i = 0; i < l.size(); ++i) StrAppend(&s, i ? ", " : "", l[i]);
  return s + "]";
}

}  // namespace

int InfoMain(int argc, char** argv) {
  std::string plugin;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kInfoUsage, stdout);
      return 0;
    } else if (a == "--plugin" && i + 1 < argc) {
      plugin = argv[++i];
    } else {
      std::fprintf(stderr, "openpjrt info: unknown argument '%s'\n%s", a.c_str(), kInfoUsage);
      return 2;
    }
  }
  auto c = OpenClient(plugin, 0);
  if (!c.ok()) {
    std::fprintf(stderr, "openpjrt info: %s\n", std::string(c.status().message()).c_str());
    return 1;
  }
  const client::Plugin& p = (*c)->plugin();
  std::printf("plugin: %s\n", p.path().c_str());
  std::printf("PJRT C API: %d.%d (this client: %d.%d)\n", p.major_version(), p.minor_version(), PJRT_API_MAJOR,
              PJRT_API_MINOR);
  if (auto attrs = p.Attributes(); attrs.ok()) {
    std::printf("attributes:\n");
    for (const auto& [name, value] : *attrs) std::printf("  %s = %s\n", name.c_str(), ValueText(value).c_str());
  }
  std::printf("platform: %s %s\n", (*c)->platform_name().c_str(), (*c)->platform_version().c_str());
  std::printf("devices: %zu\n", (*c)->devices().size());
  for (const client::Device& d : (*c)->devices()) {
    std::string mems;
    for (const client::Memory& m : d.memories)
      StrAppend(&mems, mems.empty() ? "" : ", ", m.kind, m.handle == d.default_memory.handle ? " (default)" : "");
    std::printf("  %d: %s, process %d, local id %d, %s; memories: %s\n", d.id, d.kind.c_str(), d.process_index,
                d.local_hardware_id, d.debug_string.c_str(), mems.c_str());
  }
  return 0;
}

}  // namespace openpjrt::tools
