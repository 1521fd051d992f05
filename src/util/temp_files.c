/*
 * The temporary files being written, for a signal handler to remove
 * (docs/errors.md: an interrupted command leaves no FILE.tmp.XXXXXX). The
 * names are copied into fixed slots ahead of time, so the handler needs
 * nothing but unlink(); a slot's state is an atomic the handler reads, set
 * to READY only once its name is whole.
 */
#include "util/util.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSLOTS 16
#define PATH_CAP 4096

enum { FREE, BUSY, READY };

static char paths[NSLOTS][PATH_CAP];
static atomic_int state[NSLOTS];

int td_temp_track(const char *path)
{
    size_t n = strlen(path);
    if (n >= PATH_CAP)
        return -1;
    for (int i = 0; i < NSLOTS; i++) {
        int expect = FREE;
        if (atomic_compare_exchange_strong(&state[i], &expect, BUSY)) {
            memcpy(paths[i], path, n + 1);
            atomic_store(&state[i], READY);
            return 0;
        }
    }
    return -1;
}

void td_temp_forget(const char *path)
{
    for (int i = 0; i < NSLOTS; i++) {
        int expect = READY;
        if (atomic_load(&state[i]) == READY && strcmp(paths[i], path) == 0 &&
            atomic_compare_exchange_strong(&state[i], &expect, BUSY)) {
            paths[i][0] = '\0';
            atomic_store(&state[i], FREE);
            return;
        }
    }
}

int td_temp_create(char *tmpl)
{
    /* No signal between the file's creation and its registration. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int fd = mkstemp(tmpl);
    if (fd >= 0)
        td_temp_track(tmpl);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return fd;
}

void td_temp_remove_all(void)
{
    for (int i = 0; i < NSLOTS; i++)
        if (atomic_load(&state[i]) == READY)
            unlink(paths[i]);
}
