/*
 * Fuzz target: loading a trace file and everything downstream of it
 * (byte_reader.c, json_*.c, trace_load.c, iterations.c, trace_set.c,
 * diff.c, view.c and the writers).
 *
 * The first input byte picks the file's form; the file lives in memory
 * (memfd) and the library opens it by its /proc/self/fd path, as any file:
 *
 *   'G'  the rest, gzip-compressed with zlib     'g'  the same, cut short
 *   'Z'  the rest, zstd-compressed                'z'  the same, cut short
 *   'M'  the rest in two gzip members, one after the other (as cat a.gz b.gz)
 *   else the whole input as it is (so plain JSON seeds work unchanged; raw
 *        gzip or zstd bytes in the input reach the decoders' error paths)
 *
 * The set is compared with itself and written in every format. Properties:
 * a compressed file loads exactly as its plain content does; a set compared
 * with itself has no count differences; rows are sorted and distinct; the
 * JSON outputs are valid JSON, and the names read back from them are the
 * names of the rows, byte for byte.
 */
#include "fuzz_util.h"
#include "util/util.h"
#include "read/json_scan.h"

#include <math.h>
#include <zlib.h>
#include <zstd.h>

static fuzz_file plain_file, comp_file;
static FILE *devnull;

static void setup(void)
{
    if (devnull)
        return;
    fuzz_file_init(&plain_file, "plain.json");
    fuzz_file_init(&comp_file, "comp.json");
    devnull = fopen("/dev/null", "w");
    if (!devnull)
        abort();
}

static size_t gzip(uint8_t **out, const uint8_t *d, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    size_t cap = deflateBound(&z, (uLong)n) + 32;
    *out = malloc(cap);
    if (!*out)
        abort();
    z.next_in = (Bytef *)(uintptr_t)d;
    z.avail_in = (uInt)n;
    z.next_out = *out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    size_t len = cap - z.avail_out;
    deflateEnd(&z);
    return len;
}

static size_t zstd(uint8_t **out, const uint8_t *d, size_t n)
{
    size_t cap = ZSTD_compressBound(n);
    *out = malloc(cap + 1);
    if (!*out)
        abort();
    size_t len = ZSTD_compress(*out, cap, d, n, 1);
    if (ZSTD_isError(len))
        abort();
    return len;
}

/* A whole-buffer reader for checking the JSON the writers produce. */
typedef struct membuf {
    const char *p;
    size_t n, pos;
} membuf;

static long mem_read(void *ud, char *buf, size_t cap, td_error *err)
{
    (void)err;
    membuf *m = ud;
    size_t k = m->n - m->pos < cap ? m->n - m->pos : cap;
    memcpy(buf, m->p + m->pos, k);
    m->pos += k;
    return (long)k;
}

/* The output of td_write_json: an array of row objects. Checks it parses
 * and that each "name" (or "short_name") is the row's name exactly. */
static void check_rows_json(const char *text, size_t len, const td_diff *d, const size_t *view,
                            size_t nview)
{
    td_error err = {0};
    membuf m = {text, len, 0};
    td_json j;
    if (td_json_init(&j, mem_read, &m, "out.json", &err) < 0)
        return;
    const td_row *rows = td_diff_rows(d);
    int rc = td_json_arr_begin(&j);
    bool first = true;
    size_t i = 0;
    while (rc >= 0 && (rc = td_json_arr_next(&j, &first)) > 0) {
        FUZZ_CHECK(i < nview, "more rows in the JSON than in the view");
        bool f2 = true;
        const char *k;
        size_t kl;
        rc = td_json_obj_begin(&j);
        while (rc >= 0 && (rc = td_json_obj_next(&j, &f2, &k, &kl)) > 0) {
            if (td_json_peek(&j) == '"' && ((kl == 4 && memcmp(k, "name", 4) == 0) ||
                                            (kl == 10 && memcmp(k, "short_name", 10) == 0))) {
                const char *s;
                size_t sl;
                rc = td_json_string(&j, &s, &sl);
                const td_row *r = &rows[view[i]];
                FUZZ_CHECK(rc < 0 || (sl == r->name_len && memcmp(s, r->name, sl) == 0),
                           "row %zu: the name does not read back from the JSON output", i);
            } else {
                rc = td_json_skip(&j);
            }
        }
        i++;
    }
    if (rc >= 0)
        rc = td_json_end(&j);
    FUZZ_CHECK(rc >= 0, "td_write_json wrote invalid JSON: byte %llu: %s",
               (unsigned long long)err.offset, err.msg);
    FUZZ_CHECK(i == nview, "%zu rows in the JSON, %zu in the view", i, nview);
    td_json_free(&j);
}

static void check_valid_json(const char *text, size_t len, const char *what)
{
    td_error err = {0};
    membuf m = {text, len, 0};
    td_json j;
    if (td_json_init(&j, mem_read, &m, what, &err) < 0)
        return;
    int rc = td_json_skip(&j);
    if (rc >= 0)
        rc = td_json_end(&j);
    FUZZ_CHECK(rc >= 0, "%s is not valid JSON: byte %llu: %s", what, (unsigned long long)err.offset,
               err.msg);
    td_json_free(&j);
}

static void check_diff(const td_diff *d)
{
    size_t n = td_diff_nrows(d);
    const td_row *rows = td_diff_rows(d);
    uint64_t total[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const td_row *r = &rows[i];
        FUZZ_CHECK(r->counts[0] == r->counts[1], "a set differs from itself in counts");
        FUZZ_CHECK(r->diff_counts == 0 && r->category == '=', "diff_counts of a set with itself");
        FUZZ_CHECK(!(r->diff_duration != 0) || isnan(r->diff_duration),
                   "diff_duration %g of a set with itself", r->diff_duration);
        total[0] += r->counts[0];
        total[1] += r->counts[1];
        if (i > 0) {
            const td_row *p = &rows[i - 1];
            size_t m = p->name_len < r->name_len ? p->name_len : r->name_len;
            int c = memcmp(p->name, r->name, m);
            FUZZ_CHECK(c < 0 || (c == 0 && p->name_len < r->name_len),
                       "rows %zu and %zu not strictly in name order", i - 1, i);
        }
    }
    FUZZ_CHECK(total[0] == td_diff_notes(d, 0)->events, "counts do not add up to the events");
}

static void exercise(const td_set *s, uint64_t bits)
{
    td_file_info fi;
    FUZZ_CHECK(td_set_file_info(s, 0, &fi) == 0, "no file info");
    FUZZ_CHECK(fi.events_counted + fi.events_skipped <= fi.events_total || fi.events_total == 0,
               "%llu counted + %llu skipped > %llu entries", (unsigned long long)fi.events_counted,
               (unsigned long long)fi.events_skipped, (unsigned long long)fi.events_total);
    int64_t ranks[4], iters[4];
    td_set_ranks(s, ranks, 4);
    td_set_iterations(s, iters, 4);

    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    co.device = (td_device)(bits % 3);
    co.short_names = (bits >> 2) & 1;
    if ((bits >> 3) & 1)
        co.control_iters.all = co.test_iters.all = true;
    td_diff *d = NULL;
    td_error err = {0};
    if (td_diff_compute(&d, s, s, &co, &err) < 0) {
        FUZZ_CHECK(err.code != TD_EUSAGE, "default selection refused: %s", err.msg);
        return;
    }
    check_diff(d);

    td_view_opts vo = TD_VIEW_OPTS_INIT;
    vo.has_sort = (bits >> 4) & 1;
    vo.sort = (td_column)((bits >> 5) % TD_NCOLUMNS);
    vo.ascending = (bits >> 9) & 1;
    vo.top = (bits >> 10) % 4;
    vo.exclude_steps = (bits >> 12) & 1;
    size_t *view = NULL;
    long nv = td_view_make(&view, d, &vo, &err);
    FUZZ_CHECK(nv >= 0, "td_view_make: %s", err.msg);

    td_write_opts wo = TD_WRITE_OPTS_INIT;
    wo.rows = view;
    wo.nrows = (size_t)nv;
    wo.width = (int)((bits >> 13) % 200);
    wo.color = (bits >> 21) & 1;
    wo.ascii = (bits >> 22) & 1;
    FUZZ_CHECK(td_write_csv(devnull, d, &wo, &err) == 0, "csv: %s", err.msg);
    FUZZ_CHECK(td_write_markdown(devnull, d, &wo, &err) == 0, "markdown: %s", err.msg);
    FUZZ_CHECK(td_write_table(devnull, d, &wo, &err) == 0, "table: %s", err.msg);

    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    if (mf) {
        td_write_json(mf, d, &wo, NULL);
        fclose(mf);
        check_rows_json(buf, len, d, view, (size_t)nv);
        free(buf);
    }
    buf = NULL;
    mf = open_memstream(&buf, &len);
    if (mf) {
        td_write_ops_json(mf, d, NULL);
        fclose(mf);
        check_valid_json(buf, len, "ops json");
        free(buf);
    }
    free(view);
    td_diff_free(d);
}

static int load(td_set **s, const char *path, td_error *err)
{
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.threads = 1;
    memset(err, 0, sizeof *err);
    int rc = td_set_open(s, path, &oo, err);
    if (rc < 0) {
        FUZZ_CHECK(*s == NULL, "a set returned with an error");
        FUZZ_CHECK(err->code == rc && err->msg[0], "error %d without a message", rc);
        FUZZ_CHECK(rc != TD_ENOMEM, "out of memory on a small input: %s", err->msg);
    }
    return rc;
}

/* A compressed file must load exactly as the plain text it holds. */
static void compare_loads(const td_set *a, int rca, const td_error *ea, const td_set *b, int rcb,
                          const td_error *eb)
{
    FUZZ_CHECK(rca == rcb, "plain %d (%s) vs compressed %d (%s)", rca, ea->msg, rcb, eb->msg);
    if (rca < 0) {
        FUZZ_CHECK(strcmp(ea->msg, eb->msg) == 0, "'%s' vs '%s'", ea->msg, eb->msg);
        FUZZ_CHECK(ea->offset == eb->offset, "error offsets differ");
        return;
    }
    td_file_info x, y;
    td_set_file_info(a, 0, &x);
    td_set_file_info(b, 0, &y);
    FUZZ_CHECK(x.json_bytes == y.json_bytes && x.events_total == y.events_total &&
                   x.events_counted == y.events_counted && x.events_skipped == y.events_skipped &&
                   x.steps == y.steps && x.rank == y.rank,
               "plain and compressed files load differently");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    uint64_t bits = fuzz_hash(data, size);
    int mode = size > 0 ? data[0] : 0;
    td_set *s = NULL;
    td_error err;
    if (mode == 'G' || mode == 'g' || mode == 'Z' || mode == 'z' || mode == 'M') {
        const uint8_t *rest = data + 1;
        size_t n = size - 1;
        uint8_t *c = NULL;
        size_t clen;
        if (mode == 'M') {
            uint8_t *c2 = NULL;
            size_t half = n ? (size_t)(bits % (n + 1)) : 0;
            clen = gzip(&c, rest, half);
            size_t clen2 = gzip(&c2, rest + half, n - half);
            uint8_t *both = realloc(c, clen + clen2);
            if (!both)
                abort();
            memcpy(both + clen, c2, clen2);
            free(c2);
            c = both;
            clen += clen2;
        } else {
            clen = (mode == 'G' || mode == 'g') ? gzip(&c, rest, n) : zstd(&c, rest, n);
        }
        if (mode == 'g' || mode == 'z')
            clen = clen ? (size_t)(bits % clen) : 0; /* cut short */
        fuzz_file_put(&comp_file, c, clen);
        free(c);
        int rc = load(&s, comp_file.path, &err);
        /* Plain bytes that are compressed already, or a summary (SQLite is
         * read from the file itself, never through a decompressor), are
         * not what the compressed file holds as text. */
        bool magic = n >= 2 && ((rest[0] == 0x1f && rest[1] == 0x8b) ||
                                (rest[0] == 0x28 && rest[1] == 0xb5) ||
                                (n >= 16 && memcmp(rest, "SQLite format 3", 16) == 0));
        if ((mode == 'G' || mode == 'Z' || mode == 'M') && !magic) {
            fuzz_file_put(&plain_file, rest, n);
            td_set *p = NULL;
            td_error perr;
            int prc = load(&p, plain_file.path, &perr);
            compare_loads(p, prc, &perr, s, rc, &err);
            td_set_free(p);
        }
    } else {
        fuzz_file_put(&plain_file, data, size);
        load(&s, plain_file.path, &err);
    }
    if (s)
        exercise(s, bits);
    td_set_free(s);
    return 0;
}
