# dtail following a file that is rotated fast (follow_rotate.sh), serverless
# and through a dserver: logrotor (tests/support) writes numbered lines and
# rotates, follow_check.py checks what dtail printed.
add_executable(logrotor ${CMAKE_SOURCE_DIR}/tests/support/logrotor.c)
set_target_properties(logrotor PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
foreach(c rename20 renamedel regrow copytrunc)
  foreach(where serverless server)
    dtail_e2e(follow_rotate_${c}_${where} follow_rotate ${c} ${where} TIMEOUT 120)
  endforeach()
endforeach()
# follow_check.py's own test: outputs made from rotated files, no dtail.
dtail_e2e(follow_rotate_checker follow_rotate checker self)
