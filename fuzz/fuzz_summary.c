/*
 * Fuzz target: a whole summary file (.tdsum, an SQLite database; see
 * docs/summaries.md, "A summary is input"), and everything that reads one:
 * the list of runs, each run opened as a trace set, the trend over all runs.
 * The packed target (fuzz_packed.c) mutates one packed file's bytes; this one
 * mutates the database around them: page headers, b-tree cells, the schema,
 * the rows of totals and checksums.
 *
 * The input is the file's bytes. The custom mutator keeps the file's pages
 * in place three times in four: it picks a page (the page size read from
 * the header, 4096 when that is not a power of two in range) and mutates a
 * window inside it, so that the result is still an SQLite file whose other
 * pages are intact; the fourth time libFuzzer mutates the whole input.
 *
 * Properties:
 * - every call returns a result or an error with a message and the file's
 *   path, never "out of memory" on a small input;
 * - an error opening a run is a damaged summary, not a summary, or an I/O
 *   error (TD_ETRACE / TD_EIO), never a parse error or a usage error;
 * - a run that opens holds only names and iterations it has (the set
 *   compared with itself, by kernel, op and class, has equal counts on both
 *   sides), and opening it again gives the same rows;
 * - the trend over every run has at most as many runs as the list.
 */
#include "fuzz_util.h"
#include "tracediff.h"

#include <math.h>

/* The summary is a real file named *.tdsum (on tmpfs where there is one):
 * the library tells a summary from other SQLite files by its name, and
 * SQLite resolves the path it opens, which a memfd's /proc path defeats. */
static fuzz_file file;

static void remove_file(void)
{
    unlink(file.path);
}

static void file_init(void)
{
    const char *dirs[] = {"/dev/shm", getenv("TMPDIR"), "/tmp"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (!dirs[i])
            continue;
        snprintf(file.path, sizeof file.path, "%s/fuzz-summary-XXXXXX.tdsum", dirs[i]);
        if ((file.fd = mkstemps(file.path, 6)) >= 0) {
            atexit(remove_file);
            return;
        }
    }
    perror("mkstemps");
    abort();
}

static void check_error(int rc, const td_error *err, const char *what)
{
    FUZZ_CHECK(err->code == rc && err->msg[0], "%s: error %d without a message", what, rc);
    FUZZ_CHECK(rc != TD_ENOMEM, "%s: out of memory on a small input: %s", what, err->msg);
    FUZZ_CHECK(err->path[0], "%s: error without a file: %s", what, err->msg);
}

/* The set's rows against itself; *n and *total describe them for a second
 * opening to match. */
static void compare_self(const td_set *s, td_by by, size_t *n, double *total)
{
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    co.by = by;
    co.control_iters.all = co.test_iters.all = true;
    co.control_ranks.all = co.test_ranks.all = true;
    td_diff *d = NULL;
    td_error err = {0};
    *n = 0;
    *total = 0;
    if (td_diff_compute(&d, s, s, &co, &err) < 0) {
        check_error(err.code, &err, "compare");
        return;
    }
    const td_row *rows = td_diff_rows(d);
    *n = td_diff_nrows(d);
    for (size_t i = 0; i < *n; i++) {
        FUZZ_CHECK(rows[i].counts[0] == rows[i].counts[1], "a set differs from itself in counts");
        *total += (double)rows[i].counts[0];
    }
    td_diff_free(d);
}

static void open_run(const char *name)
{
    char spec[600];
    snprintf(spec, sizeof spec, "%s#%s", file.path, name);
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    static const td_by by[] = {TD_BY_KERNEL, TD_BY_OP, TD_BY_CLASS};
    size_t n[3] = {0};
    double total[3] = {0};
    for (int pass = 0; pass < 2; pass++) {
        td_set *s = NULL;
        td_error err = {0};
        int rc = td_set_open(&s, spec, &oo, &err);
        if (rc < 0) {
            check_error(rc, &err, "open");
            FUZZ_CHECK(rc == TD_ETRACE || rc == TD_EIO, "open: error %d: %s", rc, err.msg);
            FUZZ_CHECK(pass == 0, "a run that opened once does not open again: %s", err.msg);
            return;
        }
        for (int i = 0; i < 3; i++) {
            size_t m;
            double t;
            compare_self(s, by[i], &m, &t);
            if (pass == 0) {
                n[i] = m;
                total[i] = t;
            } else {
                FUZZ_CHECK(m == n[i] && t == total[i], "two openings of one run differ");
            }
        }
        td_set_free(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!file.path[0])
        file_init();
    fuzz_file_put(&file, data, size);
    td_run_info *runs = NULL;
    td_error err = {0};
    long nr = td_summary_runs(&runs, file.path, &err);
    if (nr < 0) {
        check_error((int)nr, &err, "runs");
        return 0;
    }
    for (long i = 0; i < nr && i < 4; i++) {
        FUZZ_CHECK(runs[i].name && runs[i].name[0], "run %ld without a name", i);
        FUZZ_CHECK(!isnan(runs[i].cpu_us) && !isnan(runs[i].gpu_us), "run %ld: NaN totals", i);
        if (strlen(runs[i].name) < 400)
            open_run(runs[i].name);
    }
    td_run_infos_free(runs, (size_t)nr);
    td_trend *t = NULL;
    td_trend_opts to = TD_TREND_OPTS_INIT;
    memset(&err, 0, sizeof err);
    int rc = td_trend_compute(&t, file.path, &to, &err);
    if (rc < 0) {
        check_error(rc, &err, "trend");
        return 0;
    }
    FUZZ_CHECK(td_trend_nruns(t) <= (size_t)nr, "trend: %zu runs of %ld", td_trend_nruns(t), nr);
    for (size_t k = 0; k < td_trend_nnames(t); k++)
        for (size_t r = 0; r < td_trend_nruns(t); r++)
            FUZZ_CHECK(!isnan(td_trend_total(t, k, r)), "trend: a NaN total");
    td_trend_free(t);
    return 0;
}

/* Page-level mutation (see the comment at the top). libFuzzer provides
 * LLVMFuzzerMutate; the replay driver (fuzz/replay.c) never mutates, and
 * links without it. */
__attribute__((weak)) size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint64_t s = seed;
    size_t page = size >= 18 ? (size_t)data[16] << 8 | data[17] : 0;
    if (page == 1)
        page = 65536;
    if (page < 512 || page > 65536 || (page & (page - 1)))
        page = 4096;
    if (size < page || fuzz_rand(&s) % 4 == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    size_t npages = size / page;
    size_t off = (size_t)(fuzz_rand(&s) % npages) * page;
    size_t win = 1 + (size_t)(fuzz_rand(&s) % 64);
    off += (size_t)(fuzz_rand(&s) % (page - win));
    uint8_t tmp[64];
    memcpy(tmp, data + off, win);
    size_t got = LLVMFuzzerMutate(tmp, win, win);
    memcpy(data + off, tmp, got);
    return size;
}
