/*
 * Replay driver: runs a fuzz target's LLVMFuzzerTestOneInput over every file
 * of the directories (or files) given, without libFuzzer, so that any
 * compiler builds it and the ordinary test run replays the seed corpus and
 * every crash ever found.
 *
 *     replay NAME DIR_OR_FILE...
 *
 * The inputs run one after another in a child process, as libFuzzer runs
 * them in one, each with a time limit; the child names each input to the
 * parent (a pipe) before it starts it, so a crash or a hang is reported
 * against its file, and a new child goes on with the next one. A child that
 * ends with an error status after its last input (a sanitizer's leak check
 * at exit) has each of its inputs run again alone, each in a child of its
 * own, to name the one at fault. A child per input, for every input, cost a
 * sanitizer build most of its time: the fork of an instrumented process and
 * the leak check at each exit. Prints one line per failure and closes with
 * "NAME: N passed, N failed".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

#define TIME_LIMIT 20 /* seconds per input; the fuzzers' inputs take milliseconds */

static int npassed, nfailed;

static int read_file(const char *path, uint8_t **out, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, len = 0;
    uint8_t *b = malloc(cap);
    while (b) {
        size_t k = fread(b + len, 1, cap - len, f);
        len += k;
        if (len < cap)
            break;
        uint8_t *nb = realloc(b, cap * 2);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f) || !b;
    fclose(f);
    if (bad) {
        free(b);
        return -1;
    }
    *out = b;
    *n = len;
    return 0;
}

static void fail_signal(const char *path, int sig)
{
    printf("FAIL %s: %s\n", path, sig == SIGALRM ? "timed out" : strsignal(sig));
    nfailed++;
}

/* Runs names[from..n) in one child, which writes each input's index to the
 * pipe before starting it, and n - from once through them all: the last
 * number it wrote plus one (n - from + 1: every input ran, whatever the
 * exit), *st its wait status; -1 when it could not run. */
static long run_child(char **names, size_t from, size_t n, int *st)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        for (size_t i = from; i < n; i++) {
            uint8_t *data;
            size_t len;
            uint32_t k = (uint32_t)(i - from);
            if (write(fd[1], &k, sizeof k) != (ssize_t)sizeof k)
                _exit(125);
            if (read_file(names[i], &data, &len) < 0)
                _exit(126);
            alarm(TIME_LIMIT);
            LLVMFuzzerTestOneInput(data, len);
            alarm(0);
            free(data);
        }
        uint32_t all_ran = (uint32_t)(n - from);
        if (write(fd[1], &all_ran, sizeof all_ran) != (ssize_t)sizeof all_ran)
            _exit(125);
        close(fd[1]);
        exit(0); /* not _exit: a sanitizer build checks for leaks at exit */
    }
    close(fd[1]);
    long started = 0;
    uint32_t k;
    while (pid > 0 && read(fd[0], &k, sizeof k) == (ssize_t)sizeof k)
        started = (long)k + 1;
    close(fd[0]);
    if (pid < 0 || waitpid(pid, st, 0) < 0)
        return -1;
    return started;
}

/* names[i] alone, in a child of its own: its signal or exit status named. */
static void run_one(char **names, size_t i)
{
    uint8_t *data;
    size_t n;
    if (read_file(names[i], &data, &n) < 0) { /* said here: the child can only exit */
        printf("FAIL %s: cannot read: %s\n", names[i], strerror(errno));
        nfailed++;
        return;
    }
    free(data);
    int st = 0;
    if (run_child(names, i, i + 1, &st) < 0) {
        printf("FAIL %s: cannot run: %s\n", names[i], strerror(errno));
        nfailed++;
    } else if (WIFSIGNALED(st)) {
        fail_signal(names[i], WTERMSIG(st));
    } else if (WEXITSTATUS(st) != 0) {
        printf("FAIL %s: exit status %d\n", names[i], WEXITSTATUS(st));
        nfailed++;
    } else {
        npassed++;
    }
}

static void run_all(char **names, size_t n)
{
    size_t i = 0;
    while (i < n) {
        int st = 0;
        long started = run_child(names, i, n, &st);
        bool ok = started >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (started <= 0) {
            printf("FAIL %s: cannot run: %s\n", names[i], strerror(errno));
            nfailed++;
            i++;
        } else if ((size_t)started == n - i + 1) {
            if (ok) {
                npassed += (int)(n - i);
            } else {
                /* Every input ran, the exit failed (a sanitizer's leak
                 * check): each again alone, to name the one at fault. */
                for (size_t j = i; j < n; j++)
                    run_one(names, j);
            }
            i = n;
        } else {
            size_t bad = i + (size_t)started - 1; /* in progress when it ended */
            npassed += (int)(bad - i);
            if (WIFSIGNALED(st))
                fail_signal(names[bad], WTERMSIG(st));
            else
                run_one(names, bad); /* alone, it names its exit status */
            i = bad + 1;
        }
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **all;
static size_t nall, capall;

static void add(char *name)
{
    if (!name) {
        fprintf(stderr, "replay: out of memory\n");
        exit(2);
    }
    if (nall == capall) {
        capall = capall ? capall * 2 : 256;
        char **nn = realloc(all, capall * sizeof *nn);
        if (!nn) {
            fprintf(stderr, "replay: out of memory\n");
            exit(2);
        }
        all = nn;
    }
    all[nall++] = name;
}

/* Adds the file, or the directory's files in name order, to the list. */
static void run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return; /* a target with no crashes yet has no crash directory */
    if (!S_ISDIR(st.st_mode)) {
        add(strdup(path));
        return;
    }
    DIR *d = opendir(path);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        size_t len = strlen(path) + strlen(de->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n])
            break;
        snprintf(names[n], len, "%s/%s", path, de->d_name);
        n++;
    }
    closedir(d);
    if (n > 0)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++)
        add(names[i]);
    free(names);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NAME DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 2; i < argc; i++)
        run_path(argv[i]);
    run_all(all, nall);
    for (size_t i = 0; i < nall; i++)
        free(all[i]);
    free(all);
    printf("%s: %d passed, %d failed\n", argv[1], npassed, nfailed);
    return nfailed ? 1 : 0;
}
