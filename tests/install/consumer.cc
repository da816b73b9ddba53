// Built against an installed openpjrt (find_package): loads the installed CPU plugin, compiles a
// StableHLO program, runs it and checks the result.
#include <cstdio>
#include <cstring>
#include <vector>

#include "src/client/client.h"

int main() {
  using namespace openpjrt::client;
  auto plugin = Plugin::Load(OPENPJRT_CPU_PLUGIN);
  if (!plugin.ok()) return std::printf("load: %s\n", plugin.status().ToString().c_str()), 1;
  auto client = Client::Create(*plugin);
  if (!client.ok()) return std::printf("client: %s\n", client.status().ToString().c_str()), 1;
  auto exe = (*client)->Compile(R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
})");
  if (!exe.ok()) return std::printf("compile: %s\n", exe.status().ToString().c_str()), 1;
  std::vector<float> x = {1, 2, 3};
  auto in = (*client)->Upload(x.data(), PJRT_Buffer_Type_F32, {3});
  if (!in.ok()) return std::printf("upload: %s\n", in.status().ToString().c_str()), 1;
  auto out = exe->Execute({{&*in}});
  if (!out.ok()) return std::printf("execute: %s\n", out.status().ToString().c_str()), 1;
  auto bytes = (*out)[0][0].ToHost();
  if (!bytes.ok() || bytes->size() != 12) return std::printf("to host failed\n"), 1;
  float y[3];
  std::memcpy(y, bytes->data(), 12);
  std::printf("installed openpjrt %d.%d: [%g, %g, %g]\n", (*plugin)->major_version(), (*plugin)->minor_version(),
              y[0], y[1], y[2]);
  return y[0] == 1 && y[1] == 4 && y[2] == 9 ? 0 : 1;
}
