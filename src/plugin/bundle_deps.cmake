# Copies the plugin's shared dependencies that are not part of the C/C++ runtime (or of the
# sanitizer runtimes) next to it, so that `ldd` resolves them through $ORIGIN.
file(GET_RUNTIME_DEPENDENCIES
  LIBRARIES ${PLUGIN}
  RESOLVED_DEPENDENCIES_VAR deps
  UNRESOLVED_DEPENDENCIES_VAR missing
  PRE_EXCLUDE_REGEXES "^(ld-linux|libc|libm|libstdc\\+\\+|libgcc_s|libpthread|libdl|librt|libasan|libubsan|libtsan|liblsan|libclang_rt)[.-]"
  POST_EXCLUDE_REGEXES "^/usr/lib/gcc" "libc\\.so" "libm\\.so" "libstdc\\+\\+" "libgcc_s" "lib[a-z]*san")
foreach(d ${deps})
  get_filename_component(name ${d} NAME)
  if(NOT EXISTS ${DEST}/${name} OR ${d} IS_NEWER_THAN ${DEST}/${name})
    file(COPY ${d} DESTINATION ${DEST} FOLLOW_SYMLINK_CHAIN)
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "unresolved plugin dependencies: ${missing}")
endif()
