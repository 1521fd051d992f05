/* The unit-test runner: see harness.h. */
#include "harness.h"
#include "read/json_index.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

typedef struct unit_test {
    const char *name, *file;
    unit_fn fn;
} unit_test;

static unit_test *tests;
static size_t ntests, cap;
static int failed_now;
static const char *running;

void unit_register(const char *name, unit_fn fn, const char *file)
{
    if (ntests == cap) {
        cap = cap ? cap * 2 : 64;
        unit_test *n = realloc(tests, cap * sizeof *n);
        if (!n)
            abort();
        tests = n;
    }
    tests[ntests++] = (unit_test){name, file, fn};
}

int unit_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: %s:%d: ", running ? running : "?", file, line);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    failed_now = 1;
    return 0;
}

/* Scratch files, removed in reverse order of creation. */
static char tmpdir[64];
static char **made;
static size_t nmade, madecap;

static void remember(const char *path)
{
    if (nmade == madecap) {
        madecap = madecap ? madecap * 2 : 32;
        char **n = realloc(made, madecap * sizeof *n);
        if (!n)
            abort();
        made = n;
    }
    made[nmade] = strdup(path);
    if (!made[nmade])
        abort();
    nmade++;
}

static void cleanup(void)
{
    while (nmade > 0) {
        nmade--;
        remove(made[nmade]);
        free(made[nmade]);
    }
    free(made);
    if (tmpdir[0])
        rmdir(tmpdir);
}

const char *unit_tmpdir(void)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/td-unit.XXXXXX");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            abort();
        }
    }
    return tmpdir;
}

const char *unit_write(const char *name, const void *data, size_t len)
{
    char path[512];
    const char *slash = strchr(name, '/');
    if (slash) {
        snprintf(path, sizeof path, "%s/%.*s", unit_tmpdir(), (int)(slash - name), name);
        struct stat st;
        if (stat(path, &st) != 0) {
            if (mkdir(path, 0700) != 0) {
                perror(path);
                abort();
            }
            remember(path);
        }
    }
    snprintf(path, sizeof path, "%s/%s", unit_tmpdir(), name);
    size_t k = 0;
    while (k < nmade && strcmp(made[k], path) != 0)
        k++;
    if (k == nmade)
        remember(path);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return made[k];
}

int unit_rounds(int n)
{
    static int scale;
    if (!scale) {
        const char *s = getenv("TD_UNIT_SCALE");
        scale = s && atoi(s) > 1 ? atoi(s) : 1;
    }
    return n / scale > 0 ? n / scale : 1;
}

static int by_file_then_name(const void *a, const void *b)
{
    const unit_test *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
    /* The level of the scanner's block index that TD_SIMD resolves to on
     * this CPU (tests/simd_levels_test.sh runs each distinct one once). */
    if (argc > 1 && strcmp(argv[1], "--simd-level") == 0) {
        printf("%s\n", td_json_simd_name(td_json_simd_level()));
        free(tests);
        return 0;
    }
    const char *only = argc > 1 ? argv[1] : NULL;
    /* TD_UNIT_TIMES=S: name each test that takes S seconds or more. */
    const char *times = getenv("TD_UNIT_TIMES");
    double slow = times ? atof(times) : -1;
    int passed = 0, failed = 0;
    qsort(tests, ntests, sizeof *tests, by_file_then_name);
    for (size_t i = 0; i < ntests; i++) {
        if (only && !strstr(tests[i].name, only))
            continue;
        running = tests[i].name;
        failed_now = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        tests[i].fn();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        if (slow >= 0 && took >= slow)
            printf("time %s: %.2f s\n", tests[i].name, took);
        fflush(stdout);
        if (failed_now)
            failed++;
        else
            passed++;
    }
    running = NULL;
    cleanup();
    free(tests);
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

unsigned char *unit_gzip(const char *text, size_t n, size_t *len)
{
    size_t room = n + n / 10 + 1024;
    unsigned char *gz = malloc(room);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (!gz || deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(gz);
        return NULL;
    }
    z.next_in = (Bytef *)(uintptr_t)text;
    z.avail_in = (uInt)n;
    z.next_out = gz;
    z.avail_out = (uInt)room;
    int rc = deflate(&z, Z_FINISH);
    *len = room - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(gz);
        return NULL;
    }
    return gz;
}
