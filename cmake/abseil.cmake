# Abseil, as our code uses it (Status, StatusOr, strings, InlinedVector), behind one target:
# openpjrt::absl. Every library and program links that target, never absl:: targets directly.
#
# With OPENPJRT_STATIC_ABSL (the default) it names Debian's static archives, so the plugin is one
# self-contained file (a copy of it alone, in any folder or wheel, loads) and each shared object we
# build carries a private copy of the few abseil objects it uses (hidden by -Wl,--exclude-libs,ALL;
# only C API types cross between our shared objects). Otherwise, or where the archives cannot go
# into a shared object, it names Debian's shared libraries, which bundle_deps.cmake then copies
# beside the plugin.
#
# Debian compiles the archives as code for position-independent executables (-fPIE), which
# reaches the C++ runtime's data directly; so a shared object that links them carries its own copy
# of the C++ runtime too (-static-libstdc++ -static-libgcc, hidden like abseil: only the C API and
# plain standard-library types cross its boundary). This target adds those options to every shared
# object or module that links it. Two archive members cannot go into a shared object at all: they
# keep a thread-local variable in the local-exec model. They are cordz_functions.o (Cord sampling
# for the cordz profiler) and sysinfo.o (CPU count, counter rate, thread id); absl_pic_shims.cc
# defines their symbols (sampling off) and is linked ahead of the archives, so neither member is
# pulled in. A configure-time probe links a shared object this way; if that fails (another abseil
# build), the shared libraries are used instead.
find_package(absl REQUIRED)
# Sanitizer and fuzz builds keep the shared libraries: a private static C++ runtime (below) would
# hide operator new and delete from the sanitizers' replacements.
if(OPENPJRT_SANITIZE OR OPENPJRT_FUZZ)
  set(opj_static_default OFF)
else()
  set(opj_static_default ON)
endif()
option(OPENPJRT_STATIC_ABSL "Link Debian's static abseil archives (one self-contained plugin)" ${opj_static_default})

# The archives behind `targets` and everything they link, in dependency order.
function(opj_absl_archives out)
  set(pending ${ARGN})
  set(seen "")
  set(archives "")
  while(pending)
    list(POP_FRONT pending t)
    if(NOT t MATCHES "^absl::" OR t IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${t})
    get_target_property(type ${t} TYPE)
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(loc ${t} IMPORTED_LOCATION_NONE)
      if(NOT loc)
        get_target_property(loc ${t} IMPORTED_LOCATION)
      endif()
      string(REGEX REPLACE "\\.so(\\.[0-9.]+)?$" ".a" archive "${loc}")
      if(NOT EXISTS "${archive}")
        set(${out} "" PARENT_SCOPE)
        return()
      endif()
      list(APPEND archives ${archive})
    endif()
    get_target_property(deps ${t} INTERFACE_LINK_LIBRARIES)
    if(deps)
      list(APPEND pending ${deps})
    endif()
  endwhile()
  set(${out} ${archives} PARENT_SCOPE)
endfunction()

set(OPJ_ABSL_TARGETS absl::status absl::statusor absl::strings absl::inlined_vector)
add_library(opj_absl INTERFACE)
add_library(openpjrt::absl ALIAS opj_absl)
set(OPJ_ABSL_STATIC OFF)
if(OPENPJRT_STATIC_ABSL)
  opj_absl_archives(archives ${OPJ_ABSL_TARGETS})
  if(archives)
    # Can they go into a shared object? Link a tiny one that builds a Status with a Cord payload.
    set(probe ${CMAKE_BINARY_DIR}/absl_probe)
    file(WRITE ${probe}/probe.cc [=[
#include "absl/status/statusor.h"
#include "absl/strings/cord.h"
extern "C" int opj_probe(int n) {
  absl::Status s = absl::InvalidArgumentError("probe");
  s.SetPayload("p", absl::Cord(std::string(static_cast<size_t>(n), 'x')));
  absl::StatusOr<int> r = s;
  return r.ok() ? 0 : static_cast<int>(r.status().GetPayload("p")->size());
}
]=])
    file(WRITE ${probe}/CMakeLists.txt "
cmake_minimum_required(VERSION 3.22)
project(absl_probe CXX)
set(CMAKE_CXX_STANDARD 20)
add_library(probe SHARED probe.cc ${CMAKE_SOURCE_DIR}/cmake/absl_pic_shims.cc)
target_compile_options(probe PRIVATE -fPIC)
target_link_options(probe PRIVATE -Wl,--no-undefined -Wl,--exclude-libs,ALL -static-libstdc++ -static-libgcc)
target_link_libraries(probe PRIVATE -Wl,--start-group ${archives} -Wl,--end-group)
")
    try_compile(ok ${probe}/build ${probe} absl_probe OUTPUT_VARIABLE log)
    if(ok)
      set(OPJ_ABSL_STATIC ON)
    else()
      message(STATUS "Debian's abseil archives do not link into a shared object; using its shared "
                     "libraries (the plugin needs them beside it)")
    endif()
  else()
    message(STATUS "No static abseil archives (libabsl-dev without .a files): using the shared libraries")
  endif()
endif()

if(OPJ_ABSL_STATIC)
  add_library(opj_absl_pic_shims OBJECT ${CMAKE_SOURCE_DIR}/cmake/absl_pic_shims.cc)
  target_link_libraries(opj_absl_pic_shims PRIVATE absl::strings)  # headers only
  # Include directories and definitions come from the imported targets; the libraries themselves
  # from the archives, as one group (their order among themselves then does not matter).
  foreach(t ${OPJ_ABSL_TARGETS})
    target_include_directories(opj_absl SYSTEM INTERFACE $<TARGET_PROPERTY:${t},INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_definitions(opj_absl INTERFACE $<TARGET_PROPERTY:${t},INTERFACE_COMPILE_DEFINITIONS>)
  endforeach()
  string(REPLACE ";" "," group "${archives}")
  find_package(Threads REQUIRED)
  target_link_libraries(opj_absl INTERFACE $<TARGET_OBJECTS:opj_absl_pic_shims>
                        "$<LINK_GROUP:RESCAN,${group}>" Threads::Threads)
  set(opj_so "$<IN_LIST:$<TARGET_PROPERTY:TYPE>,SHARED_LIBRARY;MODULE_LIBRARY>")
  target_link_options(opj_absl INTERFACE
    "$<${opj_so}:-static-libstdc++;-static-libgcc;-Wl,--exclude-libs,ALL>")
  message(STATUS "abseil: Debian's static archives")
else()
  target_link_libraries(opj_absl INTERFACE ${OPJ_ABSL_TARGETS})
endif()
