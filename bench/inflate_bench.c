/* Which gzip inflater tracediff should link: times isa-l and zlib streaming
 * through a 1 MiB output buffer (as tracediff reads), and libdeflate, which
 * only inflates a whole file into a whole output buffer, on one .gz file
 * held in memory. Median of 5 runs after one warm-up each.
 *
 *   inflate_bench FILE.gz     prints "LIB OUT_BYTES SECONDS" per library
 *
 * Built only by the bench target (bench/deps.sh installs libdeflate-dev).
 */
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define OUT (1u << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t run_isal(const unsigned char *in, size_t n, unsigned char *out)
{
    struct inflate_state z;
    isal_inflate_init(&z);
    z.crc_flag = ISAL_GZIP;
    z.next_in = (uint8_t *)in;
    z.avail_in = (uint32_t)n;
    size_t total = 0;
    while (z.block_state != ISAL_BLOCK_FINISH) {
        z.next_out = out;
        z.avail_out = OUT;
        if (isal_inflate(&z) < 0)
            return 0;
        total += OUT - z.avail_out;
        if (z.avail_out == OUT && z.avail_in == 0)
            break;
    }
    return total;
}

static size_t run_zlib(const unsigned char *in, size_t n, unsigned char *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return 0;
    z.next_in = (unsigned char *)in;
    z.avail_in = (uInt)n;
    size_t total = 0;
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = out;
        z.avail_out = OUT;
        rc = inflate(&z, Z_NO_FLUSH);
        total += OUT - z.avail_out;
    }
    inflateEnd(&z);
    return rc == Z_STREAM_END ? total : 0;
}

static unsigned char *whole;
static size_t whole_cap;

static size_t run_libdeflate(const unsigned char *in, size_t n, unsigned char *out)
{
    (void)out;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    size_t got = 0;
    enum libdeflate_result rc = libdeflate_gzip_decompress(d, in, n, whole, whole_cap, &got);
    libdeflate_free_decompressor(d);
    return rc == LIBDEFLATE_SUCCESS ? got : 0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: inflate_bench FILE.gz\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *in = malloc(n), *out = malloc(OUT);
    if (!in || !out || fread(in, 1, n, f) != n)
        return 1;
    fclose(f);
    /* The gzip trailer holds the size modulo 2^32; the traces here are
     * under 4 GB. */
    whole_cap = (size_t)(in[n - 4] | in[n - 3] << 8 | in[n - 2] << 16 | (uint32_t)in[n - 1] << 24);
    whole = malloc(whole_cap ? whole_cap : 1);
    static const struct {
        const char *name;
        size_t (*fn)(const unsigned char *, size_t, unsigned char *);
    } libs[] = {{"isa-l", run_isal}, {"zlib", run_zlib}, {"libdeflate", run_libdeflate}};
    for (size_t l = 0; l < sizeof libs / sizeof *libs; l++) {
        double t[5];
        size_t got = libs[l].fn(in, n, out);
        for (int k = 0; k < 5; k++) {
            double t0 = now();
            got = libs[l].fn(in, n, out);
            t[k] = now() - t0;
        }
        qsort(t, 5, sizeof *t, cmp);
        printf("%s %zu %.4f\n", libs[l].name, got, t[2]);
    }
    free(in);
    free(out);
    free(whole);
    return 0;
}
