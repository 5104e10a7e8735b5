# dcat, dgrep, dmap and tail through a real dserver (remote.sh, harness
# server_lib.sh), and wireclient: a bare wire-protocol client over the real
# SSH transport for what the real clients never send (tests/support).
add_executable(wireclient ${CMAKE_SOURCE_DIR}/tests/support/wireclient.c)
target_link_libraries(wireclient PRIVATE dtail_all)
set_target_properties(wireclient PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
foreach(c dcat1 addresses dcat2 dcat3 dcatcolors dgrep icase max dmap dmap_oracle append denied malformed disconnect tail nonfinite order_text fields)
  dtail_e2e(remote_${c} remote ${c} TIMEOUT 60)
endforeach()
dtail_e2e(remote_tail_rotate remote tail_rotate TIMEOUT 240)
dtail_e2e(remote_tail_copy_refused remote tail_copy_refused TIMEOUT 60)
