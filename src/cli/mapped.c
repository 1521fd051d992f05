/* Big plain trace files are mapped rather than read (td_open_opts.
 * map_min_bytes): the scanner reads the page cache in place. A file that
 * another program truncates while it is mapped raises SIGBUS at the first
 * page past its new end; the handler here turns that into the usual one-line
 * error naming the file, and exit status 1, instead of a crash. Only what is
 * async-signal-safe is called from it. */
#include "cli.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

uint64_t cli_map_min;

/* Appends s to the message in buf (len bytes so far, cap in all). */
static size_t add(char *buf, size_t len, size_t cap, const char *s)
{
    while (*s && len + 1 < cap)
        buf[len++] = *s++;
    buf[len] = '\0';
    return len;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    static atomic_flag reported = ATOMIC_FLAG_INIT;
    (void)uc;
    uint64_t off = 0;
    const char *path = td_mapped_file(si->si_addr, &off);
    if (!path) { /* not ours: the default action, once the handler returns */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    /* Pieces of the file fault on several threads at once: one message. */
    if (atomic_flag_test_and_set(&reported))
        for (;;)
            pause();
    char num[24];
    size_t k = sizeof num;
    num[--k] = '\0';
    do
        num[--k] = (char)('0' + off % 10);
    while ((off /= 10) != 0 && k > 0);
    char msg[4200];
    size_t n = add(msg, 0, sizeof msg, g_prog);
    n = add(msg, n, sizeof msg, ": ");
    n = add(msg, n, sizeof msg, path);
    n = add(msg, n, sizeof msg, ": byte ");
    n = add(msg, n, sizeof msg, num + k);
    n = add(msg, n, sizeof msg, ": the file was truncated while it was read\n");
    for (size_t done = 0; done < n;) {
        ssize_t w = write(STDERR_FILENO, msg + done, n - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    td_temp_remove_all(); /* no half-written output either */
    _exit(EXIT_DATA);
}

void cli_map_files(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, NULL) == 0)
        cli_map_min = CLI_MAP_MIN;
}
