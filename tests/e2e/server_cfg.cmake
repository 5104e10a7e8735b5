# dserver hardening: config strictness (server_cfg.sh).
foreach(c bad_misspelt bad_section bad_type bad_permkey bad_regex_default bad_regex_user
          client dtail_only)
  dtail_e2e(server_cfg_${c} server_cfg ${c} TIMEOUT 60)
endforeach()
