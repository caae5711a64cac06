/* libFuzzer harness of the plugin file checks (host/plugin_file.c: ELF
 * headers, bounds, the entry's header read from the bytes), built with
 * -DWB_LIBFUZZER=ON and clang:
 *   build-fuzz/tests/fuzz/fuzz_plugin_validator -max_total_time=60 CORPUS_DIR
 * Every input is a candidate plugin file; the checks read it with pread
 * alone, so nothing of it is mapped or run.  (What they let through is
 * loaded in a child process by the host; tests/fuzz/plugin_fuzz.c covers
 * that path.) */
#define _GNU_SOURCE
#include "host/host.h"
#include "host/plugin_file.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("plugin", 0);
        if (fd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    plugin_file_info info;
    host_clear_error();
    if (plugin_file_check(path, &info) != 0 && !host_has_error())
        abort(); /* a refusal always says why */
    return 0;
}
