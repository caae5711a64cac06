/* A perfectly good shared object that is not a workbench plugin: it
 * exports a function but no `workbench_plugin_entry`. */
#include <workbench/abi.h>

WB_EXPORT int not_a_workbench_plugin(int x);

WB_EXPORT int not_a_workbench_plugin(int x)
{
    return 2 * x;
}
