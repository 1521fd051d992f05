/*
 * Small helpers shared by the fuzz targets: a deterministic random stream
 * derived from the input, a check that aborts with a message, and files in
 * memory (memfd) that the library opens by path like any other file.
 */
#ifndef TD_FUZZ_UTIL_H
#define TD_FUZZ_UTIL_H

/* memfd_create; include this header first. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A failed property: print it and abort, which libFuzzer records as a crash
 * and the replay driver as a failure. */
#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s: ", __FILE__, __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static inline uint64_t fuzz_hash(const uint8_t *d, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= d[i];
        h *= 1099511628211ull;
    }
    return h ^ (uint64_t)n;
}

/* splitmix64: a good stream from any seed, including 0. */
static inline uint64_t fuzz_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* An in-memory file and a path the library can open() it by. */
typedef struct fuzz_file {
    int fd;
    char path[64];
} fuzz_file;

static inline void fuzz_file_init(fuzz_file *f, const char *name)
{
    f->fd = memfd_create(name, MFD_CLOEXEC);
    if (f->fd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
}

/* Replaces the file's content with d[0..n). */
static inline void fuzz_file_put(fuzz_file *f, const void *d, size_t n)
{
    if (ftruncate(f->fd, 0) != 0) {
        perror("ftruncate");
        abort();
    }
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(f->fd, (const char *)d + done, n - done, (off_t)done);
        if (w <= 0) {
            perror("pwrite");
            abort();
        }
        done += (size_t)w;
    }
}

#endif
