# Writes OUT: portable.h then every kernel file, pasted together in order --
# the one text hiprtc compiles on the user's machine and NVRTC at build time
# (each file's include of portable.h is skipped by its guard).
# cmake -DOUT=probes_source.hip -DSOURCES="portable.h;gemm.hip;..." -P paste_sources.cmake
set(src "")
foreach(f ${SOURCES})
  file(READ "${f}" t)
  string(APPEND src "${t}\n")
endforeach()
file(WRITE "${OUT}.tmp" "${src}")
file(RENAME "${OUT}.tmp" "${OUT}")
