# Installs the build into a scratch prefix, then builds and runs install_consumer.c with
# nothing but the installed header, library and `pkg-config --cflags --libs upframe`: the
# install target and upframe.pc work for a program outside the tree. Run by ctest ("install").
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed:\n${out}")
endif()
set(ENV{PKG_CONFIG_PATH} ${WORK_DIR}/prefix/${LIBDIR}/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs upframe
                RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE out
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not find the installed upframe.pc:\n${out}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
separate_arguments(extra UNIX_COMMAND "${EXTRA_FLAGS}")
execute_process(COMMAND ${C_COMPILER} -std=c99 -Wall -Wextra -Werror ${extra}
                        -DUPF_VERSION_STRING_EXPECTED="${VERSION}"
                        ${SOURCE} -o ${WORK_DIR}/consumer ${flags}
                RESULT_VARIABLE rc ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building a program against the installed upframe failed:\n${out}")
endif()
set(ENV{LD_LIBRARY_PATH} ${WORK_DIR}/prefix/${LIBDIR})
execute_process(COMMAND ${WORK_DIR}/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the program built against the installed upframe failed (${rc})")
endif()
