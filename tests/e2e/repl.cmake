# The REPL of dmap, driven through a pseudo-terminal with the real libedit
# (tests/support/ptydrive.c, built here as a test helper).
add_executable(ptydrive ${CMAKE_SOURCE_DIR}/tests/support/ptydrive.c)
target_link_libraries(ptydrive PRIVATE util)
set_target_properties(ptydrive PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)

foreach(m query complete multiline error output output_dest cancel ctrl_d dot pipe)
  dtail_e2e(repl_${m} repl ${m} TIMEOUT 120)
endforeach()
