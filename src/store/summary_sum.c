/*
 * Checksums of a summary's runs (docs/summaries.md, "Checksums").
 *
 * A run written by this version has a row in `checksums`: three CRC-64s
 * (ECMA-182, reflected: isa-l's crc64_ecma_refl, at memory speed) —
 *   run:     its runs row;
 *   files:   its files rows, packed bytes included;
 *   derived: its iterations, names and ops rows (what SQL users and `runs`
 *            and `trend` read; compare reads the packed bytes).
 * A row's CRC runs over its values in a fixed encoding: a type byte, then an
 * integer or a real as 8 bytes (little-endian, a real's IEEE bits), a text
 * or blob as its 8-byte length and bytes, NULL as the type byte alone. The
 * seed is the table's name, so that a row moved to another table does not
 * match. Files and derived rows are added up (mod 2^64): their order does
 * not count, a changed, lost or extra row does.
 *
 * They detect damage (a flipped bit, a torn page, an edited total), not
 * tampering: anyone who can edit the file can write new checksums.
 */
#include "store.h"

#include <isa-l/crc64.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static uint64_t crc(uint64_t c, const void *p, size_t n)
{
    return crc64_ecma_refl(c, (const unsigned char *)p, (uint64_t)n);
}

static uint64_t crc_u64(uint64_t c, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return crc(c, b, 8);
}

static uint64_t seed(const char *table)
{
    return crc(0, table, strlen(table));
}

/* Columns first .. first + n - 1 of q's row, as their types are stored. */
static uint64_t crc_columns(uint64_t c, sqlite3_stmt *q, int first, int n)
{
    for (int i = first; i < first + n; i++) {
        unsigned char t = (unsigned char)sqlite3_column_type(q, i);
        c = crc(c, &t, 1);
        switch (t) {
        case SQLITE_INTEGER:
            c = crc_u64(c, (uint64_t)sqlite3_column_int64(q, i));
            break;
        case SQLITE_FLOAT: {
            double d = sqlite3_column_double(q, i);
            uint64_t u;
            memcpy(&u, &d, 8);
            c = crc_u64(c, u);
            break;
        }
        case SQLITE_TEXT: {
            const unsigned char *s = sqlite3_column_text(q, i);
            size_t len = (size_t)sqlite3_column_bytes(q, i);
            c = crc(crc_u64(c, len), s ? (const void *)s : "", s ? len : 0);
            break;
        }
        case SQLITE_BLOB: {
            const void *p = sqlite3_column_blob(q, i);
            size_t len = (size_t)sqlite3_column_bytes(q, i);
            c = crc(crc_u64(c, len), p ? p : "", p ? len : 0);
            break;
        }
        default:
            break;
        }
    }
    return c;
}

uint64_t td_sum_file_row(sqlite3_stmt *q, int first, const unsigned char *packed, size_t n)
{
    uint64_t c = crc_columns(seed("files"), q, first, TD_SUM_FILE_NCOLS);
    return crc(crc_u64(c, n), packed, n);
}

/* The sum over the rows of sql (bound to run_id) of each row's CRC, seeded
 * with table; < 0 (an SQLite code, negated) on error. */
static int sum_rows(uint64_t *acc, sqlite3 *db, const char *sql, const char *table,
                    sqlite3_int64 run_id)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(q, 1, run_id);
    int rc, ncol = sqlite3_column_count(q);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW)
        *acc += crc_columns(seed(table), q, 0, ncol);
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? 0 : -1;
}

int td_sum_run(td_run_sums *out, sqlite3 *db, int64_t run_id, unsigned what)
{
    memset(out, 0, sizeof *out);
    uint64_t run = 0;
    int rc =
        sum_rows(&run, db, "SELECT " TD_SUM_RUN_COLS " FROM runs WHERE run_id = ?", "runs", run_id);
    out->run = run;
    if (rc == 0 && (what & TD_SUM_FILES)) {
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(db,
                               "SELECT " TD_SUM_FILE_COLS ", packed FROM files WHERE run_id = ?",
                               -1, &q, NULL) != SQLITE_OK)
            return -1;
        sqlite3_bind_int64(q, 1, run_id);
        int src;
        while ((src = sqlite3_step(q)) == SQLITE_ROW)
            out->files += td_sum_file_row(q, 0, sqlite3_column_blob(q, TD_SUM_FILE_NCOLS),
                                          (size_t)sqlite3_column_bytes(q, TD_SUM_FILE_NCOLS));
        sqlite3_finalize(q);
        rc = src == SQLITE_DONE ? 0 : -1;
    }
    if (rc == 0 && (what & TD_SUM_DERIVED))
        rc = td_sum_derived(&out->derived, db, run_id);
    return rc;
}

int td_sum_derived(uint64_t *out, sqlite3 *db, int64_t run_id)
{
    uint64_t acc = 0;
    int rc = sum_rows(&acc, db, "SELECT rank, iteration FROM iterations WHERE run_id = ?",
                      "iterations", run_id);
    if (rc == 0)
        rc =
            sum_rows(&acc, db, "SELECT name_id, name FROM names WHERE run_id = ?", "names", run_id);
    if (rc == 0)
        rc = sum_rows(&acc, db,
                      "SELECT rank, iteration, device, stream0, name_id, count, total_us FROM ops "
                      "WHERE run_id = ?",
                      "ops", run_id);
    *out = acc;
    return rc;
}

int td_sum_stored(td_run_sums *out, sqlite3 *db, int64_t run_id)
{
    sqlite3_stmt *q = NULL;
    memset(out, 0, sizeof *out);
    if (sqlite3_prepare_v2(db,
                           "SELECT algorithm, run, files, derived FROM checksums WHERE run_id = ?",
                           -1, &q, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(q, 1, run_id);
    int rc = sqlite3_step(q), got = 0;
    if (rc == SQLITE_ROW) {
        const unsigned char *alg = sqlite3_column_text(q, 0);
        bool ints = sqlite3_column_type(q, 1) == SQLITE_INTEGER &&
                    sqlite3_column_type(q, 2) == SQLITE_INTEGER &&
                    sqlite3_column_type(q, 3) == SQLITE_INTEGER;
        if (!alg || strcmp((const char *)alg, TD_SUM_ALGORITHM) != 0 || !ints) {
            got = -2;
        } else {
            out->run = (uint64_t)sqlite3_column_int64(q, 1);
            out->files = (uint64_t)sqlite3_column_int64(q, 2);
            out->derived = (uint64_t)sqlite3_column_int64(q, 3);
            got = 1;
        }
        rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_DONE : SQLITE_ERROR;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return -1;
    return got;
}

int td_sum_write(sqlite3 *db, int64_t run_id)
{
    td_run_sums s;
    if (td_sum_run(&s, db, run_id, TD_SUM_FILES | TD_SUM_DERIVED) < 0)
        return -1;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO checksums VALUES (?, ?, ?, ?, ?)", -1, &q,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(q, 1, run_id);
    sqlite3_bind_text(q, 2, TD_SUM_ALGORITHM, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 3, (sqlite3_int64)s.run);
    sqlite3_bind_int64(q, 4, (sqlite3_int64)s.files);
    sqlite3_bind_int64(q, 5, (sqlite3_int64)s.derived);
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? 0 : -1;
}

int td_sum_checked_from(int64_t *out, sqlite3 *db)
{
    sqlite3_stmt *q = NULL;
    *out = INT64_MAX;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'checksums_from'", -1, &q,
                           NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(q, 0);
        char *end = NULL;
        long long x = v ? strtoll((const char *)v, &end, 10) : -1;
        *out = v && end && !*end && x >= 0 ? (int64_t)x : 0;
        rc = SQLITE_DONE;
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? 0 : -1;
}
