# Builds pinball_fuzz_reader with clang (-fsanitize=fuzzer,address,undefined) when clang and
# libFuzzer work here, and registers pinball.fuzz_reader; otherwise registers the same test
# as SKIPPED (exit 77) with the reason, so a missing fuzzer never passes silently.
set(PINBALL_FUZZ_SECONDS 20 CACHE STRING "How long pinball.fuzz_reader fuzzes")
find_program(FUZZ_CLANG NAMES clang-14 clang)
set(fuzz_flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1)
set(fuzz_reason "")
if(NOT FUZZ_CLANG)
  set(fuzz_reason "clang not found (Debian packages clang and libclang-rt-14-dev)")
else()
  set(probe ${CMAKE_CURRENT_BINARY_DIR}/fuzz_probe.c)
  file(WRITE ${probe} "#include <stddef.h>\n#include <stdint.h>\n"
       "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
  execute_process(COMMAND ${FUZZ_CLANG} ${fuzz_flags} ${probe} -o ${probe}.out
                  RESULT_VARIABLE probe_status OUTPUT_QUIET ERROR_QUIET)
  if(NOT probe_status EQUAL 0)
    set(fuzz_reason "${FUZZ_CLANG} cannot link -fsanitize=fuzzer (Debian package libclang-rt-14-dev)")
  endif()
endif()

if(fuzz_reason STREQUAL "")
  set(fuzz_sources ${PINBALL_FORMAT_SOURCES} ${CMAKE_SOURCE_DIR}/rt/rt_crc32c.c)
  list(FILTER fuzz_sources EXCLUDE REGEX "/feed\\.c$") # the reader needs no feed
  set(fuzz_out ${CMAKE_CURRENT_BINARY_DIR}/pinball_fuzz_reader)
  add_custom_command(
    OUTPUT ${fuzz_out}
    COMMAND ${FUZZ_CLANG} ${fuzz_flags} -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror
            -I${CMAKE_SOURCE_DIR}/pinball-format -I${CMAKE_SOURCE_DIR}/rt -I${PINBALL_GEN_DIR}
            ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_reader.c ${fuzz_sources}
            -llz4 -lzstd -lprotobuf-c -o ${fuzz_out}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_reader.c ${fuzz_sources} pinball_format
    COMMENT "clang: pinball_fuzz_reader"
    VERBATIM)
  add_custom_target(pinball_fuzz_reader ALL DEPENDS ${fuzz_out})
  add_test(NAME pinball.fuzz_reader
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_test.sh ${fuzz_out}
                   $<TARGET_FILE:pinball_fuzz_seeds> ${PINBALL_FUZZ_SECONDS}
                   ${CMAKE_CURRENT_BINARY_DIR}/fuzz-findings)
  set_tests_properties(pinball.fuzz_reader PROPERTIES TIMEOUT 120 LABELS "pinball;fuzz")
else()
  message(STATUS "pinball.fuzz_reader will report SKIPPED: ${fuzz_reason}")
  add_test(NAME pinball.fuzz_reader
           COMMAND sh -c "echo 'SKIPPED: ${fuzz_reason}'; exit 77")
  set_tests_properties(pinball.fuzz_reader PROPERTIES SKIP_RETURN_CODE 77
                       LABELS "pinball;fuzz")
endif()
