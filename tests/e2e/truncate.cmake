# Files truncated while they are read (truncate.sh): serverless and through
# a dserver, 20 runs each stopped inside the file.
foreach(c local_dmap local_dgrep local_dgrep_one local_dcat server_dmap server_dgrep server_dcat)
  dtail_e2e(truncate_${c} truncate ${c} TIMEOUT 240)
endforeach()
