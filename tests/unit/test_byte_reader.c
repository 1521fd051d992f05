/* The byte reader's mapped files (td_reader_map): windows taken from the
 * mapping hold the same bytes as reading, whatever the caller keeps; the
 * file's end comes through a padded copy; td_mapped_file names the file at
 * an address only while it is mapped. */
#include "harness.h"
#include "read/reader.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *pattern(size_t n)
{
    char *t = malloc(n);
    if (t)
        for (size_t i = 0; i < n; i++)
            t[i] = (char)('a' + (i * 7 + i / 4093) % 26);
    return t;
}

/* Swaps through the whole file keeping a different number of bytes each
 * time (none, some, all of the window, or bytes copied elsewhere first),
 * checking each window against the file's bytes at its offset. */
TEST(test_byte_reader__mapped_windows_hold_the_file)
{
    size_t n = (9u << 20) + 12345;
    char *text = pattern(n);
    REQUIRE(text);
    const char *path = unit_write("mapped.bin", text, n);
    td_reader *r = NULL;
    td_error err = {0};
    REQUIRE(td_reader_open(&r, path, &err) == 0);
    CHECK_INT(td_reader_map(r, 1), 1);
    CHECK_INT(td_reader_file_bytes(r), n);
    char *win = NULL, *elsewhere = malloc(n);
    REQUIRE(elsewhere);
    size_t wlen = 0;   /* bytes in the window */
    uint64_t base = 0; /* file offset of win[0] */
    size_t bad = 0, windows = 0, in_mapping = 0;
    for (int step = 0;; step++) {
        size_t keep = 0;
        const char *left = win;
        switch (step % 4) {
        case 0: /* nothing kept */
            break;
        case 1: /* the window's last bytes */
            keep = wlen < 100 ? wlen : 100;
            break;
        case 2: /* all of it */
            keep = wlen;
            break;
        case 3: /* kept bytes the caller moved elsewhere */
            keep = wlen < 5000 ? wlen : 5000;
            if (keep)
                memcpy(elsewhere, win + wlen - keep, keep);
            left = elsewhere;
            break;
        }
        if (left && step % 4 != 3)
            left = win + wlen - keep;
        long got = td_reader_swap(r, left, keep, &win, &err);
        if (got == 0)
            break;
        REQUIRE(got > 0 && got != TD_READER_NO_SWAP);
        base += wlen - keep;
        wlen = keep + (size_t)got;
        windows++;
        uint64_t off = 0;
        if (td_mapped_file(win, &off)) {
            in_mapping++;
            CHECK_INT(off, base);
        }
        bad += base + wlen > n || memcmp(win, text + base, wlen) != 0;
    }
    CHECK_INT(bad, 0);
    CHECK_INT(base + wlen, n);
    CHECK(windows >= 6);
    CHECK(in_mapping >= 2);      /* most windows are the mapping itself */
    CHECK(in_mapping < windows); /* copied ones too: moved bytes, the end */

    /* The last window is a copy with zero bytes after it (the scanner may
     * look past its end), never the mapping's last page. */
    CHECK(td_mapped_file(win, NULL) == NULL);
    CHECK(win[wlen] == 0 && win[wlen + 63] == 0);

    /* Seeking, and reading with a copy: the bytes at the offset. */
    char buf[1000];
    CHECK_INT(td_reader_seek(r, 5u << 20, &err), 0);
    CHECK_INT(td_reader_read(r, buf, sizeof buf, &err), (long)sizeof buf);
    CHECK(memcmp(buf, text + (5u << 20), sizeof buf) == 0);
    CHECK_INT(td_reader_swap(r, NULL, 0, &win, &err) > 0, 1);
    CHECK(memcmp(win, text + (5u << 20) + sizeof buf, 4096) == 0);
    uint64_t off = 0;
    CHECK_STR(td_mapped_file(win, &off), path);
    CHECK_INT(off, (5u << 20) + sizeof buf);

    /* Kept bytes that are not the file's bytes before the next ones (at
     * the start, after a seek): the window is them, then the file's. */
    for (int k = 0; k < 2; k++) {
        uint64_t at = k ? 3u << 20 : 0;
        CHECK_INT(td_reader_seek(r, at, &err), 0);
        long got = td_reader_swap(r, "HELLO", 5, &win, &err);
        CHECK(got > 4096);
        CHECK(memcmp(win, "HELLO", 5) == 0);
        CHECK(memcmp(win + 5, text + at, 4096) == 0);
    }
    CHECK_INT(td_reader_seek(r, 5u << 20, &err), 0);
    CHECK_INT(td_reader_swap(r, NULL, 0, &win, &err) > 0, 1);
    const char *mapped_at = win;
    td_reader_close(r);
    CHECK(td_mapped_file(mapped_at, NULL) == NULL); /* unmapped: no longer named */
    CHECK(td_mapped_file(buf, NULL) == NULL);
    free(elsewhere);
    free(text);
}

/* Files that are read as usual: compressed, under the threshold, tiny,
 * not regular, or a threshold of 0. */
TEST(test_byte_reader__what_is_not_mapped)
{
    static const unsigned char gz[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3,
                                       3,    0,    0, 0, 0, 0, 0, 0, 0, 0};
    size_t n = 100000;
    char *text = pattern(n);
    REQUIRE(text);
    const char *plain = unit_write("plain.bin", text, n);
    const char *tiny = unit_write("tiny.bin", text, 100);
    const char *gzp = unit_write("empty.gz", gz, sizeof gz);
    struct {
        const char *path;
        uint64_t min;
        int mapped;
    } cases[] = {{plain, 1, 1}, {plain, n, 1}, {plain, n + 1, 0},  {plain, 0, 0},
                 {tiny, 1, 0},  {gzp, 1, 0},   {"/dev/zero", 1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        td_reader *r = NULL;
        td_error err = {0};
        REQUIRE(td_reader_open(&r, cases[i].path, &err) == 0);
        CHECK_INT(td_reader_map(r, cases[i].min), cases[i].mapped);
        char buf[64];
        if (cases[i].path == plain || cases[i].path == tiny) {
            CHECK_INT(td_reader_read(r, buf, sizeof buf, &err), (long)sizeof buf);
            CHECK(memcmp(buf, text, sizeof buf) == 0);
        }
        td_reader_close(r);
    }
    free(text);
}

typedef struct maps_seen {
    const char *path;
    int calls, mapped;
} maps_seen;

/* Whether path is in the process's mappings now (/proc/self/maps). */
static bool in_maps(const char *path)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, path) != NULL;
    if (f)
        fclose(f);
    return found;
}

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
    maps_seen *m = ud;
    (void)done;
    (void)total;
    m->calls++;
    m->mapped += in_maps(m->path);
}

/* td_open_opts.map_min_bytes: the file is mapped while it loads when set,
 * never when 0 or when the caller's struct is older than the field (a
 * value past its size is not read), and unmapped once loaded. */
TEST(test_byte_reader__open_opts_map_min_bytes)
{
    size_t cap = 6u << 20, n = 0;
    char *t = malloc(cap);
    REQUIRE(t);
    n += (size_t)snprintf(t + n, cap - n, "{\"traceEvents\": [\n");
    for (int k = 0; n + 200 < cap - 100; k++)
        n +=
            (size_t)snprintf(t + n, cap - n,
                             "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", \"pid\": 1, "
                             "\"tid\": 1, \"ts\": %d, \"dur\": 3},\n",
                             k % 50, k * 10);
    n += (size_t)snprintf(t + n, cap - n, "{\"ph\": \"i\", \"name\": \"end\", \"ts\": 0}]}\n");
    const char *path = unit_write("mapped_trace.json", t, n);
    free(t);
    for (int way = 0; way < 3; way++) {
        maps_seen m = {path, 0, 0};
        td_open_opts oo = TD_OPEN_OPTS_INIT;
        oo.threads = 1;
        oo.progress = on_progress;
        oo.progress_ud = &m;
        oo.map_min_bytes = way == 1 ? 0 : 1;
        if (way == 2)
            oo.size = offsetof(td_open_opts, map_min_bytes); /* built before the field */
        td_set *s = NULL;
        td_error err = {0};
        CHECK_INT(td_set_open(&s, path, &oo, &err), 0);
        CHECK(m.calls >= 3);
        if (way == 0)
            CHECK(m.mapped >= 2);
        else
            CHECK_INT(m.mapped, 0);
        CHECK(!in_maps(path));
        if (s) {
            td_file_info fi;
            td_set_file_info(s, 0, &fi);
            CHECK_INT(fi.json_bytes, n);
            CHECK(fi.events_counted > 20000);
        }
        td_set_free(s);
    }
}

/* Kilobytes of path's mapping in this process (Rss of /proc/self/smaps):
 * pages touched and not given back. */
static long mapped_kb(const char *path)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[4096];
    long kb = 0;
    bool in = false;
    while (f && fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        if (strchr(line, '-') && strchr(line, ' ') && strchr(line, '-') < strchr(line, ' '))
            in = len >= strlen(path) && strcmp(line + len - strlen(path), path) == 0;
        else if (in && strncmp(line, "Rss:", 4) == 0)
            kb += strtol(line + 4, NULL, 10);
    }
    if (f)
        fclose(f);
    return kb;
}

/* A mapped file costs its window and the bytes let stay behind it (a
 * 128th of the file), not what has been read: pages behind the window are
 * given back as it moves. */
TEST(test_byte_reader__pages_behind_the_window_given_back)
{
    size_t n = 32u << 20;
    char *text = pattern(n);
    REQUIRE(text);
    const char *path = unit_write("given_back.bin", text, n);
    free(text);
    td_reader *r = NULL;
    td_error err = {0};
    REQUIRE(td_reader_open(&r, path, &err) == 0);
    CHECK_INT(td_reader_map(r, 1), 1);
    char *win = NULL;
    uint64_t read = 0, sum = 0;
    long most = 0;
    for (;;) {
        long got = td_reader_swap(r, NULL, 0, &win, &err);
        if (got <= 0)
            break;
        for (long i = 0; i < got; i += 4096) /* every page touched */
            sum += (unsigned char)win[i];
        read += (uint64_t)got;
        long kb = mapped_kb(path);
        if (read > (8u << 20) && kb > most)
            most = kb;
    }
    CHECK(read == n && sum > 0);
    /* 1 MB window, 256 KB behind it, a page or so around: never 8 MB */
    CHECK(most > 0 && most <= 2048);
    if (most > 2048)
        fprintf(stderr, "    %ld KB of the mapping kept\n", most);
    td_reader_close(r);
}

/* A file that another program truncates while it is read (not mapped):
 * the end comes early, and the reader says so, with the offset where
 * reading stopped, instead of handing the scanner a short file (whose
 * error would then name an offset past the file's new end). */
TEST(test_byte_reader__truncated_while_read)
{
    size_t n = 4u << 20;
    char *text = pattern(n);
    REQUIRE(text);
    const char *path = unit_write("shrinks.bin", text, n);
    free(text);
    td_reader *r = NULL;
    td_error err = {0};
    REQUIRE(td_reader_open(&r, path, &err) == 0);
    char *buf = malloc(64u << 10);
    REQUIRE(buf);
    uint64_t got = 0;
    long k = 0;
    while (got < (256u << 10) && (k = td_reader_read(r, buf, 64u << 10, &err)) > 0)
        got += (uint64_t)k;
    CHECK(got >= (256u << 10));
    FILE *f = fopen(path, "r+");
    REQUIRE(f);
    CHECK_INT(ftruncate(fileno(f), 100000), 0);
    fclose(f);
    while ((k = td_reader_read(r, buf, 64u << 10, &err)) > 0)
        got += (uint64_t)k;
    CHECK_INT(k, TD_EIO);
    CHECK(strstr(err.msg, "truncated while it was read") != NULL);
    CHECK(strstr(err.msg, "4194304 bytes when opened, 100000 now") != NULL);
    CHECK(err.has_offset && err.offset >= got && err.offset < n);
    CHECK(strcmp(err.path, path) == 0);
    free(buf);
    td_reader_close(r);
}

/* The threads of this process (/proc/self/status), or -1. */
static int threads_now(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int n = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    if (f)
        fclose(f);
    return n;
}

/* n bytes that compress no smaller than they are (xorshift). */
static char *noise(size_t n)
{
    char *t = malloc(n);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; t && i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t[i] = (char)(x >> 56);
    }
    return t;
}

/* A compressed file read in the caller's thread gives the same bytes as the
 * reading thread does, and starts no thread: asked with td_reader_inline
 * (the first look at a file, td_prof_sniff, reads 4 KiB of it), or a file
 * of fewer compressed bytes than the thread and its buffers are worth. */
TEST(test_byte_reader__inline_reads_without_a_thread)
{
    struct {
        size_t n;
        bool inl, threads;
    } cases[] = {{1u << 20, false, true}, {1u << 20, true, false}, {16u << 10, false, false}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t n = cases[c].n, gzlen = 0;
        char *text = noise(n);
        REQUIRE(text);
        unsigned char *gz = unit_gzip(text, n, &gzlen);
        REQUIRE(gz);
        CHECK(gzlen >= n);
        const char *path = unit_write("inline.json.gz", gz, gzlen);
        free(gz);
        char *buf = malloc(n + 1);
        REQUIRE(buf);
        td_reader *r = NULL;
        td_error err = {0};
        REQUIRE(td_reader_open(&r, path, &err) == 0);
        CHECK_INT(td_reader_compression(r), TD_COMP_GZIP);
        if (cases[c].inl)
            td_reader_inline(r);
        int before = threads_now();
        size_t got = 0;
        long k = 0;
        while (got < 4096 && (k = td_reader_read(r, buf + got, 4096 - got, &err)) > 0)
            got += (size_t)k;
        CHECK_INT((long)got, 4096);
        CHECK_INT(threads_now() - before, cases[c].threads ? 1 : 0);
        while ((k = td_reader_read(r, buf + got, n + 1 - got, &err)) > 0)
            got += (size_t)k;
        CHECK_INT(k, 0);
        CHECK_INT((long)got, (long)n);
        CHECK(memcmp(buf, text, n) == 0);
        td_reader_close(r);
        free(buf);
        free(text);
    }
}
