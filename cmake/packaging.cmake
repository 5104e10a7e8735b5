# Install rules, man pages, bash completion and the Debian package
# (docs/packaging.md). `cpack -G DEB` in the build directory writes
# dtail_<version>_<arch>.deb.
#
# The man pages and the completion are generated from the built binaries'
# own --help (and the query parser's keyword tables), so they list exactly
# the flags the binaries accept.
include(GNUInstallDirs)

set(DTAIL_TOOLS dcat dgrep dmap dtail dtailhealth)
set(DTAIL_PKG_DIR ${CMAKE_SOURCE_DIR}/packaging)
set(DTAIL_MAN_DIR ${CMAKE_BINARY_DIR}/man)
set(help2roff ${DTAIL_PKG_DIR}/help2roff.sh)

# dtail's --help has no summary line of its own.
set(summary_dtail "follow log files, locally or on many dservers")

# man_page(BINARY SECTION): DTAIL_MAN_DIR/BINARY.SECTION and its .gz, which
# is what gets installed (Debian's man pages are gzipped).
function(man_page bin section)
  set(page ${DTAIL_MAN_DIR}/${bin}.${section})
  add_custom_command(OUTPUT ${page} ${page}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${DTAIL_MAN_DIR}
    COMMAND bash ${help2roff} $<TARGET_FILE:${bin}> ${section} ${page} "${summary_${bin}}"
    COMMAND sh -c "gzip -9n < '${page}' > '${page}.gz'"
    DEPENDS ${bin} ${help2roff}
    COMMENT "Man page ${bin}(${section}) from ${bin} --help" VERBATIM)
  set_property(GLOBAL APPEND PROPERTY DTAIL_MAN_PAGES ${page} ${page}.gz)
  install(FILES ${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endfunction()

foreach(bin ${DTAIL_TOOLS})
  man_page(${bin} 1)
endforeach()
man_page(dserver 8)
get_property(man_pages GLOBAL PROPERTY DTAIL_MAN_PAGES)
add_custom_target(man_pages ALL DEPENDS ${man_pages})

# One completion script serves every binary; bash-completion loads it by the
# command's name, so it is installed once under each name.
set(completion ${CMAKE_BINARY_DIR}/completion/dtail)
set(gen_completion ${DTAIL_PKG_DIR}/gen-completion.sh)
add_custom_command(OUTPUT ${completion}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/completion
  COMMAND bash ${gen_completion} $<TARGET_FILE_DIR:dcat> ${CMAKE_SOURCE_DIR}/parser/tokenize.c
          ${CMAKE_SOURCE_DIR}/parser/resolve.c ${completion}
  DEPENDS ${DTAIL_TOOLS} dserver ${gen_completion}
          ${CMAKE_SOURCE_DIR}/parser/tokenize.c ${CMAKE_SOURCE_DIR}/parser/resolve.c
  COMMENT "bash completion from --help and the query keywords" VERBATIM)
add_custom_target(bash_completion ALL DEPENDS ${completion})
foreach(bin ${DTAIL_TOOLS} dserver)
  install(FILES ${completion} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME ${bin})
endforeach()

install(TARGETS ${DTAIL_TOOLS} dserver RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The system files have the paths the package and its units use, whatever
# the prefix: the config dserver.service names, the units where Debian 12's
# systemd looks, the key-cache script where the unit runs it.
install(FILES ${DTAIL_PKG_DIR}/dtail.json DESTINATION /etc/dserver)
install(FILES ${DTAIL_PKG_DIR}/systemd/dserver.service
              ${DTAIL_PKG_DIR}/systemd/dtail-keycache.service
              ${DTAIL_PKG_DIR}/systemd/dtail-keycache.timer
        DESTINATION /lib/systemd/system)
install(PROGRAMS ${DTAIL_PKG_DIR}/dtail-update-keycache.sh
        DESTINATION /usr/libexec/dtail RENAME dtail-update-keycache)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/docs/packaging.md
              ${CMAKE_SOURCE_DIR}/docs/dserver.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(DTAIL_PACKAGE_MAINTAINER "DTail in C maintainers <root@localhost>"
    CACHE STRING "Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME dtail)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${DTAIL_PACKAGE_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "distributed log tools: follow, cat, grep and mapreduce over SSH")
set(CPACK_PACKAGE_DESCRIPTION
  "DTail rebuilt in C: dtail, dcat, dgrep and dmap read log files on one machine or, through dserver over SSH, on many; dtailhealth checks a dserver. The package runs dserver as the system user dtail in a hardened systemd unit and refreshes its authorized_keys cache with a timer.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The linked libraries from dpkg-shlibdeps; libedit2 and libsystemd0 by
# hand, because the clients dlopen libedit (client/tools/lazy_lib.c) and
# every binary libsystemd (exec/scan/journal_api.c), which shlibdeps cannot
# see (libssh-4 the clients dlopen too, but dserver links it); adduser for
# postinst.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser, libedit2, libsystemd0")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${DTAIL_PKG_DIR}/debian/conffiles ${DTAIL_PKG_DIR}/debian/postinst
  ${DTAIL_PKG_DIR}/debian/prerm ${DTAIL_PKG_DIR}/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
