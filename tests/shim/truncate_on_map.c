/* LD_PRELOAD shim for tests/truncate_test.sh: when the program maps the
 * file named by TRUNCATE_ON_MAP (an absolute, resolved path), the file is
 * cut to TRUNCATE_TO bytes right after it is mapped, as another program
 * rewriting it would, so that reading past that point raises SIGBUS. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*real)(void *, size_t, int, int, int, off_t);
    if (!real)
        real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    void *m = real(addr, len, prot, flags, fd, off);
    const char *target = getenv("TRUNCATE_ON_MAP");
    const char *to = getenv("TRUNCATE_TO");
    if (m != MAP_FAILED && fd >= 0 && target && to) {
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        if (n > 0) {
            path[n] = '\0';
            if (strcmp(path, target) == 0 && truncate(target, atol(to)) != 0)
                perror("truncate_on_map");
        }
    }
    return m;
}
