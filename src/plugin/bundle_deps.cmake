# Copies the plugin's shared dependencies that are not part of the C/C++ runtime (or of the
# sanitizer runtimes) next to it, so that they resolve through its $ORIGIN run path. Runs after
# every link; copies already beside the plugin are refreshed when the system ones are newer.
file(GET_RUNTIME_DEPENDENCIES
  LIBRARIES ${PLUGIN}
  RESOLVED_DEPENDENCIES_VAR deps
  UNRESOLVED_DEPENDENCIES_VAR missing
  CONFLICTING_DEPENDENCIES_PREFIX conflict
  PRE_EXCLUDE_REGEXES "^(ld-linux|libc|libm|libstdc\\+\\+|libgcc_s|libpthread|libdl|librt|libatomic|libasan|libubsan|libtsan|liblsan|libclang_rt)[.-]"
  POST_EXCLUDE_REGEXES "^/usr/lib/gcc" "libc\\.so" "libm\\.so" "libstdc\\+\\+" "libgcc_s" "lib[a-z]*san")
# A library found both beside the plugin and in the system: the system copy is the source.
foreach(name ${conflict_FILENAMES})
  foreach(path ${conflict_${name}})
    if(NOT path MATCHES "^${DEST}/")
      list(APPEND deps ${path})
    endif()
  endforeach()
endforeach()
foreach(d ${deps})
  get_filename_component(name ${d} NAME)
  get_filename_component(dir ${d} DIRECTORY)
  if(dir STREQUAL DEST)
    continue()
  endif()
  # One regular file under the name the plugin asks for (its soname), not a chain of links:
  # a wheel cannot hold links, and a copy of the folder keeps working.
  if(NOT EXISTS ${DEST}/${name} OR IS_SYMLINK ${DEST}/${name} OR ${d} IS_NEWER_THAN ${DEST}/${name})
    file(REMOVE ${DEST}/${name})
    configure_file(${d} ${DEST}/${name} COPYONLY)
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "unresolved plugin dependencies: ${missing}")
endif()
