/* Floors for the benchmark: the time to read (and decompress) a trace file,
 * the time of a trivial pass over its bytes, and the time to validate it
 * with the JSON scanner alone (no trace logic).
 *
 *   scan_floor MODE FILE     MODE: read | count | skip
 * Prints "MODE BYTES SECONDS".
 */
#include "read/reader.h"
#include "read/json_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long rd(void *ud, char *buf, size_t cap, td_error *err)
{
    return td_reader_read(ud, buf, cap, err);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: scan_floor read|count|skip FILE\n");
        return 2;
    }
    td_error err = {0};
    td_reader *r;
    if (td_reader_open(&r, argv[2], &err) < 0) {
        fprintf(stderr, "%s: %s\n", err.path, err.msg);
        return 1;
    }
    double t0 = now();
    uint64_t bytes = 0, sum = 0;
    if (strcmp(argv[1], "skip") == 0) {
        td_json j;
        td_json_init(&j, rd, r, argv[2], &err);
        if (td_json_skip(&j) < 0) {
            fprintf(stderr, "%s: byte %llu: %s\n", err.path, (unsigned long long)err.offset,
                    err.msg);
            return 1;
        }
        bytes = td_json_offset(&j);
        td_json_free(&j);
    } else {
        size_t cap = 1u << 20;
        char *buf = malloc(cap);
        long n;
        while ((n = td_reader_read(r, buf, cap, &err)) > 0) {
            bytes += (uint64_t)n;
            if (argv[1][0] == 'c') /* count newlines: a trivial pass over every byte */
                for (long i = 0; i < n; i++)
                    sum += buf[i] == '\n';
        }
        free(buf);
    }
    double t = now() - t0;
    td_reader_close(r);
    printf("%s %llu %.4f %llu\n", argv[1], (unsigned long long)bytes, t, (unsigned long long)sum);
    return 0;
}
