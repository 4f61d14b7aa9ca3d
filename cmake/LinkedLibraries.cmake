# The libraries the programs link, as targets deps::NAME. An executable takes the static
# archive where Debian's -dev package ships one: the logger starts again at every exec it
# follows, and the dynamic loader's work for five more libraries cost about 0.2 ms of
# each such start (docs/performance.md). A shared library (the replay library) takes the
# shared one: Debian's archives are not built as position-independent code.
function(linked_library name module archive)
  pkg_check_modules(${name} REQUIRED IMPORTED_TARGET ${module})
  find_library(${name}_ARCHIVE NAMES ${archive} HINTS ${${name}_LIBRARY_DIRS})
  add_library(deps::${name} INTERFACE IMPORTED GLOBAL)
  if(${name}_ARCHIVE)
    set(is_executable "$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>")
    set_target_properties(deps::${name} PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${${name}_INCLUDE_DIRS}"
      INTERFACE_LINK_LIBRARIES
        "$<IF:${is_executable},${${name}_ARCHIVE},PkgConfig::${name}>")
  else()
    set_target_properties(deps::${name} PROPERTIES INTERFACE_LINK_LIBRARIES PkgConfig::${name})
  endif()
endfunction()
