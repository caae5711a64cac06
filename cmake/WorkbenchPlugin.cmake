# workbench_add_plugin(<name> MODEL|INTEGRATOR <sources>...)
#
# A plugin is a MODULE library named exactly <name>.so.  It is compiled
# against the public headers only, with hidden visibility so that its entry
# struct is its single export, and linked with --no-undefined (except under
# sanitizers, whose runtime the host provides) so that a plugin can never
# depend on a symbol of the host.
function(workbench_add_plugin name kind)
  add_library(${name} MODULE ${ARGN})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/core/include
                                             ${PROJECT_SOURCE_DIR}/plugins/common
                                             ${PROJECT_SOURCE_DIR}/lib)
  set_target_properties(${name} PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden)
  target_link_libraries(${name} PRIVATE m)
  if(NOT WB_SANITIZE)
    target_link_options(${name} PRIVATE -Wl,--no-undefined)
  endif()
  if(kind STREQUAL "MODEL")
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${WB_MODEL_BUILD_DIR})
  else()
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${WB_PLUGIN_BUILD_DIR})
  endif()
  install(TARGETS ${name} LIBRARY DESTINATION ${WB_PLUGIN_INSTALL_DIR})
endfunction()
