# The build line that an example host documents (its "Build:" comment: examples/vk_host.c,
# examples/vk_interpolate_host.c) works as written: its pkg-config part replaced by the build
# tree's include folder and library, the rest (-lvulkan, -lm, ...) taken from the comment.
# Issue 35 item 12: vk_host's lacked -lm.
# Inputs: C_COMPILER, SOURCE, INCLUDE_DIR, LIB_DIR, WORK_DIR, EXTRA_FLAGS (the sanitizers).
get_filename_component(name ${SOURCE} NAME_WE)
file(READ ${SOURCE} text)
string(REGEX MATCH "Build: cc ${name}\\.c \\$\\(pkg-config --cflags --libs upframe\\)([^*\n]*)"
       line "${text}")
if(NOT line)
  message(FATAL_ERROR "${SOURCE}: no 'Build: cc ${name}.c $(pkg-config ...) ...' line")
endif()
string(STRIP "${CMAKE_MATCH_1}" rest)
separate_arguments(rest UNIX_COMMAND "${rest}")
file(MAKE_DIRECTORY ${WORK_DIR})
separate_arguments(extra UNIX_COMMAND "${EXTRA_FLAGS}")
execute_process(COMMAND ${C_COMPILER} ${extra} ${SOURCE} -I${INCLUDE_DIR} -L${LIB_DIR} -lupframe ${rest}
                        -o ${WORK_DIR}/${name}_line
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the documented build line fails (cc ${name}.c <upframe> ${rest}):\n${err}")
endif()
