/* Shared by the in-suite mutation fuzzers: a seeded generator, a time
 * budget, and the rescue of the input that crashed (written by a signal
 * handler or by the sanitizers' death callback, so that the crash becomes
 * a regression input). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct fuzz_rng {
    uint64_t state;
} fuzz_rng;

static inline uint64_t fuzz_next(fuzz_rng *r)
{
    r->state ^= r->state << 13;
    r->state ^= r->state >> 7;
    r->state ^= r->state << 17;
    return r->state;
}

static inline size_t fuzz_below(fuzz_rng *r, size_t n)
{
    return n ? (size_t)(fuzz_next(r) % n) : 0;
}

static inline double fuzz_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The input being tried, and where it goes if the process dies on it. */
static const unsigned char *fuzz_current;
static size_t fuzz_current_size;
static char fuzz_rescue_path[4096];

static void fuzz_rescue(void)
{
    if (!fuzz_current || !fuzz_rescue_path[0])
        return;
    int fd = open(fuzz_rescue_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        (void)!write(fd, fuzz_current, fuzz_current_size);
        close(fd);
    }
    static const char note[] = "fuzz: the crashing input is saved as a regression input\n";
    (void)!write(2, note, sizeof note - 1);
}

static void fuzz_on_signal(int sig)
{
    fuzz_rescue();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The sanitizers call this before they end the process. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static inline void fuzz_install_rescue(const char *path)
{
    snprintf(fuzz_rescue_path, sizeof fuzz_rescue_path, "%s", path);
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], fuzz_on_signal);
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(fuzz_rescue);
}

static inline void fuzz_trying(const void *data, size_t size)
{
    fuzz_current = data;
    fuzz_current_size = size;
}

#endif
