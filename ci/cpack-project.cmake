# Read by cpack for each package it makes (CPACK_PROJECT_CONFIG_FILE).
# CMake 3.25's RPM generator asks `${RPM_EXECUTABLE} --suggests` whether
# rpmbuild knows weak dependencies, but never sets RPM_EXECUTABLE, so it
# drops Suggests: for every rpmbuild.
if(CPACK_GENERATOR STREQUAL "RPM" AND NOT RPM_EXECUTABLE)
  find_program(RPM_EXECUTABLE rpm)
endif()
