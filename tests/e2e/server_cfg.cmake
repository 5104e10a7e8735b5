# dserver hardening: config strictness and log escaping (server_cfg.sh).
foreach(c bad_misspelt bad_section bad_type bad_permkey bad_regex_default bad_regex_user bad_cipher bad_kex_type bad_logformat
          client dtail_only glob_retry log_filename log_user)
  dtail_e2e(server_cfg_${c} server_cfg ${c} TIMEOUT 60)
endforeach()
# sshlogin: one login as a user name given verbatim (tests/support/sshlogin.c).
add_executable(sshlogin ${CMAKE_SOURCE_DIR}/tests/support/sshlogin.c)
target_link_libraries(sshlogin PRIVATE PkgConfig::LIBSSH)
set_target_properties(sshlogin PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
