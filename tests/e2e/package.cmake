# Packaging (docs/packaging.md, package.sh): man pages and bash completion
# from --help, the Debian package's contents, and (opt-in, root,
# DTAIL_TEST_CHROOT=1) its install in a debootstrapped Debian 12 chroot.
foreach(c man completion deb)
  dtail_e2e(package_${c} package ${c} ${CMAKE_BINARY_DIR} ${CMAKE_CPACK_COMMAND} TIMEOUT 120)
endforeach()
dtail_e2e(package_chroot package chroot ${CMAKE_BINARY_DIR} ${CMAKE_CPACK_COMMAND} TIMEOUT 1200)
