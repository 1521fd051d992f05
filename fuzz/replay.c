/*
 * Replay driver: runs a fuzz target's LLVMFuzzerTestOneInput over every file
 * of the directories (or files) given, without libFuzzer, so that any
 * compiler builds it and the ordinary test run replays the seed corpus and
 * every crash ever found.
 *
 *     replay NAME DIR_OR_FILE...
 *
 * Each input runs in a child process with a time limit, so a crash or a hang
 * is reported against its file and the others still run. Prints one line per
 * failure and closes with "NAME: N passed, N failed".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
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

static void run_one(const char *path)
{
    uint8_t *data;
    size_t n;
    if (read_file(path, &data, &n) < 0) {
        printf("FAIL %s: cannot read: %s\n", path, strerror(errno));
        nfailed++;
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(TIME_LIMIT);
        LLVMFuzzerTestOneInput(data, n);
        free(data);
        exit(0); /* not _exit: a sanitizer build checks for leaks at exit */
    }
    free(data);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) {
        printf("FAIL %s: cannot run: %s\n", path, strerror(errno));
        nfailed++;
    } else if (WIFSIGNALED(st)) {
        printf("FAIL %s: %s\n", path,
               WTERMSIG(st) == SIGALRM ? "timed out" : strsignal(WTERMSIG(st)));
        nfailed++;
    } else if (WEXITSTATUS(st) != 0) {
        printf("FAIL %s: exit status %d\n", path, WEXITSTATUS(st));
        nfailed++;
    } else {
        npassed++;
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return; /* a target with no crashes yet has no crash directory */
    if (!S_ISDIR(st.st_mode)) {
        run_one(path);
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
    for (size_t i = 0; i < n; i++) {
        run_one(names[i]);
        free(names[i]);
    }
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
    printf("%s: %d passed, %d failed\n", argv[1], npassed, nfailed);
    return nfailed ? 1 : 0;
}
