/* Run a command and report its wall time, peak RSS and CPU time.
 *
 *   runstat RESULT_FILE COMMAND [ARG...]
 *
 * Writes "WALL_S MAXRSS_KB USER_S SYS_S STATUS" to RESULT_FILE; the command's
 * own stdin, stdout and stderr are left alone.  Exits 0 when the command
 * could be run (its exit status is in the file), 127 when it could not.
 *
 * Why not rusage from the benchmark's Python: a child's ru_maxrss also counts
 * the memory of the process it was forked from, up to its exec (the kernel
 * keeps the larger of the old and new address space's high-water marks), so
 * every child of a 30 MB Python reports at least 30 MB.  This program is
 * small, so what its child reports is the child's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double secs(struct timeval tv)
{
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: runstat RESULT_FILE COMMAND [ARG...]\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 127;
    }
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("wait4");
        return 127;
    }
    double wall = now() - t0;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(out, "%.6f %ld %.6f %.6f %d\n", wall, ru.ru_maxrss, secs(ru.ru_utime),
            secs(ru.ru_stime), code);
    return fclose(out) == 0 && code != 127 ? 0 : 127;
}
