/* A minimal model whose shared object does something when it is loaded:
 * one source, one behaviour per build (tests/fuzz/CMakeLists.txt).
 *   CTOR_MARKER  the constructor creates the file $WB_TEST_MARKER
 *   CTOR_CRASH   the constructor dies of SIGSEGV
 *   CTOR_HANG    the constructor never returns
 *   CTOR_EXIT    the constructor exits the process (status 3)
 *   CTOR_SCRIBBLE the constructor overwrites the process's first environment
 *                pointer and returns (what a damaged DT_INIT that jumps into
 *                a function called with (argc, argv, envp) did)
 *   WRONG_ABI    the entry claims the next major ABI version
 * The host must refuse the crashing, hanging and exiting ones without
 * going down, and a wrong-ABI one without ever running its constructor. */
#include <workbench/workbench.h>

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PLUGIN_NAME
#define PLUGIN_NAME "constructor_model"
#endif

__attribute__((constructor)) static void on_load(void)
{
#ifdef CTOR_MARKER
    const char *marker = getenv("WB_TEST_MARKER");
    if (marker) {
        int fd = open(marker, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            (void)!write(fd, "constructor ran\n", 16);
            close(fd);
        }
    }
#endif
#ifdef CTOR_CRASH
    raise(SIGSEGV);
#endif
#ifdef CTOR_HANG
    for (volatile unsigned long i = 0;; i++)
        ;
#endif
#ifdef CTOR_EXIT
    _exit(3);
#endif
#ifdef CTOR_SCRIBBLE
    extern char **environ;
    if (environ && environ[0])
        environ[0] = (char *)(uintptr_t)0xffffffffd2d8u;
#endif
}

static int create(const wb_host *host, const double *values, void **self,
                  wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL;
    info->nq = info->nv = 1;
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    M[0] = 1.0;
}

static double potential(void *self, const double *q)
{
    (void)self;
    return 0.5 * q[0] * q[0];
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
};

static const void *get_extension(const char *id)
{
    return strcmp(id, WB_EXT_MECHANICAL) == 0 ? &mechanical : NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = PLUGIN_NAME,
    .doc = "test: a model with a load-time constructor",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {
#ifdef WRONG_ABI
    .abi_major = WB_ABI_MAJOR + 1,
#else
    .abi_major = WB_ABI_MAJOR,
#endif
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = PLUGIN_NAME,
    .version = "test",
    .description = "test: constructor behaviour " PLUGIN_NAME,
    .descriptor = &model_class,
};
