/* Mutation fuzzer of the plugin loader (host/plugin_file.c, host/plugin_probe.c,
 * host/plugins.c), run by the suite for a fixed time budget:
 *
 *   plugin_fuzz SECONDS SEED SEED_PLUGIN.so WORK_DIR RESCUE_DIR [CORPUS_DIR]
 *
 * Mutants of a real plugin (bytes flipped in the ELF, program and section
 * headers and the dynamic section, header fields set to boundary values,
 * truncation) are handed to plugins_load_file, the path every plugin of a
 * folder takes.  The host must refuse or load each one and carry on: a
 * crash is the failure this looks for (the child-process probe takes the
 * ones the static checks let through).  The mutant a crash happens on is
 * kept in RESCUE_DIR as a regression input. */
#include "fuzz_common.h"
#include "host/host.h"
#include "host/plugin_file.h"
#include "host/plugins.h"

#include <dirent.h>
#include <link.h>
#include <sys/stat.h>

static int tried, static_refused, probe_refused, loaded;

static void try_file(const char *path, const unsigned char *data, size_t size)
{
    fuzz_trying(data, size);
    tried++;
    plugin_file_info info;
    host_clear_error();
    if (plugin_file_check(path, &info) != 0) {
        static_refused++;
        return;
    }
    host_clear_error();
    const plugin *p = plugins_load_file(path);
    if (p)
        loaded++;
    else
        probe_refused++;
    plugins_unload_all(); /* each mutant alone */
}

static int write_file(const char *path, const unsigned char *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Offsets worth hitting: the ELF header, program headers, section headers,
 * and the dynamic segment. */
typedef struct hot_spans {
    size_t start[4], length[4];
    int count;
} hot_spans;

static hot_spans find_spans(const unsigned char *data, size_t size)
{
    hot_spans s = {{0}, {0}, 0};
    if (size < sizeof(ElfW(Ehdr)))
        return s;
    const ElfW(Ehdr) *e = (const void *)data;
    s.start[s.count] = 0, s.length[s.count++] = sizeof *e;
    if (e->e_phoff < size)
        s.start[s.count] = e->e_phoff, s.length[s.count++] = (size_t)e->e_phnum * sizeof(ElfW(Phdr));
    if (e->e_shoff < size)
        s.start[s.count] = e->e_shoff, s.length[s.count++] = (size_t)e->e_shnum * sizeof(ElfW(Shdr));
    for (int i = 0; i < e->e_phnum && e->e_phoff + (i + 1) * sizeof(ElfW(Phdr)) <= size; i++) {
        const ElfW(Phdr) *ph = (const void *)(data + e->e_phoff + i * sizeof(ElfW(Phdr)));
        if (ph->p_type == PT_DYNAMIC && ph->p_offset < size)
            s.start[s.count] = ph->p_offset, s.length[s.count++] = ph->p_filesz;
    }
    return s;
}

static size_t mutate(fuzz_rng *r, unsigned char *buf, size_t size, const hot_spans *hot)
{
    static const uint64_t boundary[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff,
                                        0xffffffffu, 0xffffffffffffffffull};
    int rounds = 1 + (int)fuzz_below(r, 4);
    for (int k = 0; k < rounds; k++) {
        size_t at;
        if (hot->count && fuzz_below(r, 4)) {
            int h = (int)fuzz_below(r, (size_t)hot->count);
            at = hot->start[h] + fuzz_below(r, hot->length[h] ? hot->length[h] : 1);
        } else {
            at = fuzz_below(r, size);
        }
        if (at >= size)
            continue;
        switch (fuzz_below(r, 4)) {
        case 0:
            buf[at] ^= (unsigned char)(1u << fuzz_below(r, 8));
            break;
        case 1:
            buf[at] = (unsigned char)fuzz_next(r);
            break;
        case 2: { /* a boundary value over 2, 4 or 8 bytes */
            size_t n = (size_t)1 << (1 + fuzz_below(r, 3));
            uint64_t v = boundary[fuzz_below(r, sizeof boundary / sizeof boundary[0])];
            if (fuzz_below(r, 2))
                v = (uint64_t)size + (fuzz_below(r, 3) - 1);
            if (at + n <= size)
                memcpy(buf + at, &v, n);
            break;
        }
        case 3:
            if (!fuzz_below(r, 8))
                size = at; /* truncate */
            break;
        }
    }
    return size;
}

/* The corpus files tried, or -1 when one could not be copied to WORK. */
static int replay_corpus(const char *dir, const char *work)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int n = 0;
    static unsigned char buf[1 << 22];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096], copy[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        size_t size = fread(buf, 1, sizeof buf, f);
        fclose(f);
        snprintf(copy, sizeof copy, "%s/corpus-%d.so", work, n++);
        if (write_file(copy, buf, size) != 0) {
            perror(copy);
            closedir(d);
            return -1;
        }
        try_file(copy, buf, size);
        unlink(copy);
    }
    closedir(d);
    printf("corpus: %d regression inputs replayed\n", n);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: plugin_fuzz SECONDS SEED SEED_PLUGIN.so WORK_DIR RESCUE_DIR "
                        "[CORPUS_DIR]\n");
        return 2;
    }
    double budget = atof(argv[1]);
    fuzz_rng r = {strtoull(argv[2], NULL, 10) * 2654435761u + 7};
    char rescue[4096];
    snprintf(rescue, sizeof rescue, "%s/crash-%s.so", argv[5], argv[2]);
    fuzz_install_rescue(rescue);
    host_set_log_level(WB_LOG_WARNING + 1); /* the refusals are counted, not printed */
    FILE *f = fopen(argv[3], "rb");
    if (!f) {
        perror(argv[3]);
        return 2;
    }
    static unsigned char seed[1 << 22], buf[1 << 22];
    size_t seed_size = fread(seed, 1, sizeof seed, f);
    fclose(f);
    hot_spans hot = find_spans(seed, seed_size);
    int replayed = argc > 6 ? replay_corpus(argv[6], argv[4]) : 0;
    if (replayed < 0)
        return 2;
    double start = fuzz_seconds();
    long mutants = 0;
    while (fuzz_seconds() - start < budget) {
        memcpy(buf, seed, seed_size);
        size_t size = mutate(&r, buf, seed_size, &hot);
        char path[4096];
        /* a new name each time: the dynamic loader keys what it has open by
         * file, and a refused file must never be mistaken for another */
        snprintf(path, sizeof path, "%s/mutant-%ld.so", argv[4], mutants++);
        if (write_file(path, buf, size) != 0) {
            perror(path);
            return 2;
        }
        try_file(path, buf, size);
        unlink(path);
    }
    printf("plugin files: %d tried (%d from the corpus, %ld mutants), %d refused by the file "
           "checks, %d refused by the probe or validation, %d loaded\n", tried, replayed, mutants,
           static_refused, probe_refused, loaded);
    printf("crashes: 0 (seed %s, %.1f s)\n", argv[2], fuzz_seconds() - start);
    /* every file tried ended one of the three ways, once */
    if (tried != replayed + mutants || static_refused + probe_refused + loaded != tried) {
        fprintf(stderr, "plugin_fuzz: the counts do not add up\n");
        return 1;
    }
    return 0;
}
