# fuzz.control_parse: the parser's own sources compiled by clang with libFuzzer, ASan and
# UBSan (a custom command: the rest of the build stays on gcc), run for a bounded time.
# Without a clang that can link -fsanitize=fuzzer the test reports SKIPPED, never a pass.
set(FUZZ_FLAGS -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
find_program(FUZZ_CLANG NAMES clang clang-14)
set(FUZZ_USABLE FALSE)
if(FUZZ_CLANG)
  set(probe ${CMAKE_CURRENT_BINARY_DIR}/fuzz_probe.c)
  file(WRITE ${probe} "#include <stddef.h>\n#include <stdint.h>\n"
       "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
  execute_process(COMMAND ${FUZZ_CLANG} ${FUZZ_FLAGS} ${probe} -o ${CMAKE_CURRENT_BINARY_DIR}/fuzz_probe
                  RESULT_VARIABLE probe_rc OUTPUT_QUIET ERROR_QUIET)
  if(probe_rc EQUAL 0)
    set(FUZZ_USABLE TRUE)
  else()
    set(FUZZ_WHY "${FUZZ_CLANG} cannot link -fsanitize=fuzzer (install libclang-rt-14-dev)")
  endif()
else()
  set(FUZZ_WHY "no clang at configure time (install clang and libclang-rt-14-dev)")
endif()

if(FUZZ_USABLE)
  set(fuzz_bin ${CMAKE_CURRENT_BINARY_DIR}/fuzz_control_parse)
  set(fuzz_main ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_control_parse.c)
  file(GLOB controller_headers ${CONTROLLER_INCLUDE_DIR}/*.h)
  add_custom_command(
    OUTPUT ${fuzz_bin}
    COMMAND ${FUZZ_CLANG} ${FUZZ_FLAGS} -g -O1 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror
            -I${CONTROLLER_INCLUDE_DIR} ${CONTROLLER_PARSE_SOURCES} ${fuzz_main} -o ${fuzz_bin}
    DEPENDS ${CONTROLLER_PARSE_SOURCES} ${fuzz_main} ${controller_headers}
    COMMENT "Building the -control parser fuzzer with ${FUZZ_CLANG}"
    VERBATIM)
  add_custom_target(fuzz_control_parse ALL DEPENDS ${fuzz_bin})
  add_test(NAME fuzz.control_parse
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_fuzzer.sh ${fuzz_bin}
                   ${CMAKE_CURRENT_BINARY_DIR}/fuzz_work ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_corpus
                   ${CMAKE_CURRENT_SOURCE_DIR}/control.dict)
else()
  add_test(NAME fuzz.control_parse COMMAND sh -c "echo 'SKIPPED: ${FUZZ_WHY}'; exit 77")
endif()
set_tests_properties(fuzz.control_parse PROPERTIES LABELS "fuzz" SKIP_RETURN_CODE 77 TIMEOUT 120)
