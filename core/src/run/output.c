/* The output root for relative output paths. */
#include "run/output.h"

#include <limits.h>
#include <stdio.h>

static char root[PATH_MAX];
static char joined[2 * PATH_MAX];

void output_set_root(const char *dir)
{
    snprintf(root, sizeof root, "%s", dir ? dir : "");
}

const char *output_root(void)
{
    return root[0] ? root : ".";
}

const char *output_path(const char *path)
{
    if (path[0] == '/' || !root[0])
        snprintf(joined, sizeof joined, "%s", path);
    else
        snprintf(joined, sizeof joined, "%s/%s", root, path);
    return joined;
}
