// Room exec/: the CPU executor's core. What every other room of src/cpu builds on.
//
// Contract:
//   * array.h     runtime values: dense row-major arrays in 64-byte aligned memory (immutable once
//                 produced, copies share storage), tokens and tuples; small storage kept for
//                 reuse by one execution (SmallBlocks);
//   * block_pool.h freed large blocks kept for the next arrays of their size (the most recently
//                 freed GiB, longest-idle released first);
//   * elem_traits.h, strided.h
//                 element kinds as C++ types, strided walks over arrays;
//   * program.h   a compiled program (a flat list of kernel launches over numbered slots, regions
//                 as nested programs), its state (dead slots keep small storage for the next value
//                 their step makes: ExecState::Output/Release), and running it once or as R x P
//                 instances that meet in collectives (the rendezvous hub lives in comm/);
//   * ffi.h       the XLA FFI registry and call frames behind custom_call targets;
//   * isa.h       the instruction-set probe that picks vector clones at run time;
//   * float_env.h the floating-point mode executions run in (subnormals flushed or kept).
// Depends on: src/ir (element kinds), src/support, and comm/ for the instances' hub. Nothing in
// exec/ knows an op's semantics: those are the kernels' (kernels/, lapack/, fft/, comm/).
#pragma once

#include "src/cpu/exec/array.h"
#include "src/cpu/exec/program.h"
