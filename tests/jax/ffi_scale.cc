// A typed XLA FFI handler for tests/jax: y = factor * x over f32 buffers of any shape.
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

static ffi::Error Scale(ffi::Buffer<ffi::F32> x, float factor, ffi::ResultBuffer<ffi::F32> y) {
  const size_t n = x.element_count();
  for (size_t i = 0; i < n; ++i) y->typed_data()[i] = factor * x.typed_data()[i];
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleHandler, Scale,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Attr<float>("factor").Ret<ffi::Buffer<ffi::F32>>());
