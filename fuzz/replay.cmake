# Included from tests/CMakeLists.txt: the fuzzers' seed corpora and saved crashers, fed through
# each harness by a plain main() (fuzz_replay.c), as ctest tests fuzz_replay_<reader> in every
# build; and the program that made the seeds (make_corpus.c), built so it keeps compiling.
foreach(_reader png jpeg pfm model image sidecar sequence)
  add_executable(fuzz_replay_${_reader} ${PROJECT_SOURCE_DIR}/fuzz/fuzz_replay.c
                                        ${PROJECT_SOURCE_DIR}/fuzz/fuzz_${_reader}.c)
  target_link_libraries(fuzz_replay_${_reader} PRIVATE upframe_tools_common upf_warnings)
  set(_extra "")
  if(_reader STREQUAL "image") # the front door also gets every image reader's seeds
    foreach(_other png jpeg pfm)
      list(APPEND _extra ${PROJECT_SOURCE_DIR}/fuzz/corpus/${_other})
    endforeach()
  endif()
  add_test(NAME fuzz_replay_${_reader} COMMAND fuzz_replay_${_reader}
           ${PROJECT_SOURCE_DIR}/fuzz/corpus/${_reader} ${_extra}
           ${PROJECT_SOURCE_DIR}/fuzz/crashers/${_reader})
  set_tests_properties(fuzz_replay_${_reader} PROPERTIES LABELS unit)
endforeach()
add_executable(fuzz_make_corpus ${PROJECT_SOURCE_DIR}/fuzz/make_corpus.c)
target_link_libraries(fuzz_make_corpus PRIVATE upframe_tools_common upf_warnings)
set_target_properties(fuzz_make_corpus PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
