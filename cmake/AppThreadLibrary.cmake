# Libraries whose code runs on application threads must not reach glibc's thread-local
# state (DESIGN.md, "Process model"). Declaring a library here registers a CTest that
# lists its undefined symbols and fails on any that is not in tests/allowlist/allowed.txt.
set(APP_THREAD_ALLOWLIST ${CMAKE_SOURCE_DIR}/tests/allowlist/allowed.txt)
set(APP_THREAD_CHECKER ${CMAKE_SOURCE_DIR}/tests/allowlist/check_symbols.sh)

# declare_app_thread_library(TARGET [DEPENDS LIB...]): LIBs are app-thread libraries that
# TARGET calls into; their symbols count as allowed.
function(declare_app_thread_library target)
  cmake_parse_arguments(ARG "" "" "DEPENDS" ${ARGN})
  set(deps "")
  foreach(dep ${ARG_DEPENDS})
    list(APPEND deps $<TARGET_FILE:${dep}>)
  endforeach()
  add_test(NAME allowlist.${target}
           COMMAND ${APP_THREAD_CHECKER} $<TARGET_FILE:${target}> ${APP_THREAD_ALLOWLIST} ${deps})
  set_tests_properties(allowlist.${target} PROPERTIES LABELS "allowlist")
endfunction()
