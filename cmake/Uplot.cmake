# uPlot (https://github.com/leeoniya/uPlot, MIT), the dashboard's chart library: the npm registry's
# tarball of a pinned version, verified against a pinned SHA-256 (the same sum as the registry's
# sha512 "integrity" names the same bytes), fetched at configure time and cached beside DuckDB's in
# ${PREDLAKE_CACHE:-$HOME/.cache/predlake}. Only dist/uPlot.iife.min.js, dist/uPlot.min.css and the
# LICENSE are unpacked, into <build>/_deps/uplot; src/web embeds the first two into the binary.
# To update: change the version and the sum below (docs/web.md says how to get the sum).
set(PREDLAKE_UPLOT_VERSION 1.6.32)
set(PREDLAKE_UPLOT_SHA256 4b8a8191e425658e3ea8c8c1314b0fc679c861ee3a1af2b20c7b16ba50b5133d)
set(PREDLAKE_UPLOT_URL https://registry.npmjs.org/uplot/-/uplot-${PREDLAKE_UPLOT_VERSION}.tgz)

if(DEFINED ENV{PREDLAKE_CACHE} AND NOT "$ENV{PREDLAKE_CACHE}" STREQUAL "")
  set(uplot_cache "$ENV{PREDLAKE_CACHE}")
else()
  set(uplot_cache "$ENV{HOME}/.cache/predlake")
endif()
set(uplot_tgz "${uplot_cache}/uplot-${PREDLAKE_UPLOT_VERSION}.tgz")
set(PREDLAKE_UPLOT_DIR "${PROJECT_BINARY_DIR}/_deps/uplot")
set(PREDLAKE_UPLOT_JS "${PREDLAKE_UPLOT_DIR}/uPlot.iife.min.js")
set(PREDLAKE_UPLOT_CSS "${PREDLAKE_UPLOT_DIR}/uPlot.min.css")
set(uplot_stamp "${PREDLAKE_UPLOT_DIR}/.verified")

# Already unpacked from the pinned tarball: nothing to do.
set(uplot_have "")
if(EXISTS "${uplot_stamp}" AND EXISTS "${PREDLAKE_UPLOT_JS}" AND EXISTS "${PREDLAKE_UPLOT_CSS}")
  file(READ "${uplot_stamp}" uplot_have)
  string(STRIP "${uplot_have}" uplot_have)
endif()
if(NOT uplot_have STREQUAL "${PREDLAKE_UPLOT_VERSION} ${PREDLAKE_UPLOT_SHA256}")
  set(uplot_sum "")
  if(EXISTS "${uplot_tgz}")
    file(SHA256 "${uplot_tgz}" uplot_sum)
  endif()
  if(NOT uplot_sum STREQUAL PREDLAKE_UPLOT_SHA256)
    message(STATUS "Fetching uPlot ${PREDLAKE_UPLOT_VERSION} from ${PREDLAKE_UPLOT_URL}")
    file(MAKE_DIRECTORY "${uplot_cache}")
    file(DOWNLOAD "${PREDLAKE_UPLOT_URL}" "${uplot_tgz}.part" STATUS uplot_status TIMEOUT 120
      TLS_VERIFY ON)
    list(GET uplot_status 0 uplot_code)
    if(NOT uplot_code EQUAL 0)
      list(GET uplot_status 1 uplot_error)
      file(REMOVE "${uplot_tgz}.part")
      message(FATAL_ERROR "uPlot: downloading ${PREDLAKE_UPLOT_URL} failed (${uplot_error}); "
        "the dashboard's chart library is fetched at configure time: check the network, or put the "
        "tarball at ${uplot_tgz}")
    endif()
    file(SHA256 "${uplot_tgz}.part" uplot_sum)
    if(NOT uplot_sum STREQUAL PREDLAKE_UPLOT_SHA256)
      file(REMOVE "${uplot_tgz}.part")
      message(FATAL_ERROR "uPlot: sha256 mismatch for ${PREDLAKE_UPLOT_URL}: got ${uplot_sum}, "
        "pinned ${PREDLAKE_UPLOT_SHA256} (cmake/Uplot.cmake); refusing to use it")
    endif()
    file(RENAME "${uplot_tgz}.part" "${uplot_tgz}")
  endif()
  set(uplot_tmp "${PROJECT_BINARY_DIR}/_deps/uplot-unpack")
  file(REMOVE_RECURSE "${uplot_tmp}" "${PREDLAKE_UPLOT_DIR}")
  file(ARCHIVE_EXTRACT INPUT "${uplot_tgz}" DESTINATION "${uplot_tmp}"
    PATTERNS package/dist/uPlot.iife.min.js package/dist/uPlot.min.css package/LICENSE)
  file(MAKE_DIRECTORY "${PREDLAKE_UPLOT_DIR}")
  foreach(f dist/uPlot.iife.min.js dist/uPlot.min.css LICENSE)
    if(NOT EXISTS "${uplot_tmp}/package/${f}")
      message(FATAL_ERROR "uPlot: ${uplot_tgz} has no package/${f}")
    endif()
    file(COPY "${uplot_tmp}/package/${f}" DESTINATION "${PREDLAKE_UPLOT_DIR}")
  endforeach()
  file(REMOVE_RECURSE "${uplot_tmp}")
  file(WRITE "${uplot_stamp}" "${PREDLAKE_UPLOT_VERSION} ${PREDLAKE_UPLOT_SHA256}\n")
  message(STATUS "uPlot ${PREDLAKE_UPLOT_VERSION} ready in ${PREDLAKE_UPLOT_DIR}")
endif()
file(SIZE "${PREDLAKE_UPLOT_JS}" PREDLAKE_UPLOT_JS_SIZE)
