/*
 * Sets built from files read elsewhere: a process lists a set's files, loads
 * some of them and packs each (file_pack.c, the summaries' own format);
 * another process unpacks them all and assembles the set as td_sets_open
 * would. What travels is one file's aggregates behind a small header:
 *
 *   "TDP1", has_sha256 (1 byte, 0 or 1), [64 hex digits], the packed file
 *
 * or, when the reading side needs the op calls (TD_PACK_CALLS), the whole
 * loaded file as the forked loaders send it (model/file_xfer.c), which only
 * a process of the same build reads:
 *
 *   "TDP1", 2 (1 byte), the file's bytes
 */
#include "model/file_xfer.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { ENVELOPE_WHOLE = 2 };

#define ENVELOPE_MAGIC "TDP1"

int td_set_list_files(char ***out, size_t *n, const char *path, td_error *err)
{
    *out = NULL;
    *n = 0;
    char *file, *run;
    int k = td_summary_split(path, &file, &run, err);
    if (k != 0) {
        if (k == 1) {
            free(file);
            free(run);
        }
        return k;
    }
    size_t cap = 0;
    int rc = td_trace_set_list(path, out, n, &cap, err);
    if (rc < 0) {
        for (size_t i = 0; i < *n; i++)
            free((*out)[i]);
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static int pack_loaded(td_buf *b, const td_file *f, unsigned flags, td_error *err)
{
    char hex[65] = "";
    int rc = 0;
    if ((flags & TD_PACK_SHA256) && (rc = td_file_sha256(hex, f->path, err)) < 0)
        return rc;
    unsigned char head[5 + 64];
    memcpy(head, ENVELOPE_MAGIC, 4);
    head[4] = hex[0] != '\0';
    memcpy(head + 5, hex, head[4] ? 64 : 0);
    size_t nhead = head[4] ? sizeof head : 5;
    b->p = malloc(nhead);
    if (!b->p)
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    memcpy(b->p, head, nhead);
    b->n = b->cap = nhead;
    td_groups g;
    if ((rc = td_file_groups(&g, f, NULL, err)) < 0)
        return rc;
    rc = td_file_pack(b, f, &g, err);
    td_groups_free(&g);
    return rc;
}

static int pack_whole(td_buf *b, const td_file *f, td_error *err);

int td_set_pack_file(unsigned char **out, size_t *n, const char *path, unsigned flags,
                     td_error *err)
{
    *out = NULL;
    *n = 0;
    td_file *f = NULL;
    /* attribution too: it is packed (a whole file carries no breakdown
     * records, stacks or shapes: the forked loaders' format has none) */
    bool agg = !(flags & TD_PACK_CALLS);
    int load = TD_LOAD_ATTR | (flags & TD_PACK_NS ? TD_LOAD_NS : 0) |
               (agg && (flags & TD_PACK_BD) ? TD_LOAD_BD : 0) |
               (agg && (flags & TD_PACK_STACKS) ? TD_LOAD_STACK : 0) |
               (agg && (flags & TD_PACK_ROOF) ? TD_LOAD_ROOF : 0);
    int rc = td_file_load(&f, path, NULL, load, err);
    if (rc < 0)
        return rc;
    td_buf b = {0};
    rc = flags & TD_PACK_CALLS ? pack_whole(&b, f, err) : pack_loaded(&b, f, flags, err);
    td_file_free(f);
    if (rc < 0) {
        td_buf_free(&b);
        return rc;
    }
    *out = b.p;
    *n = b.n;
    return 0;
}

/* The whole file behind the envelope's 5 bytes (TD_PACK_CALLS). */
static int pack_whole(td_buf *b, const td_file *f, td_error *err)
{
    size_t size = td_file_xfer_size(f);
    b->p = malloc(5 + size);
    if (!b->p)
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    memcpy(b->p, ENVELOPE_MAGIC, 4);
    b->p[4] = ENVELOPE_WHOLE;
    td_file_xfer_write(f, b->p + 5, size);
    b->n = b->cap = 5 + size;
    return 0;
}

/* A whole file: copied to a mapping of its own, which the file keeps (its
 * events are used in place there, as the forked loaders' are). */
static int unpack_whole(td_file **out, const unsigned char *p, size_t n, const char *where,
                        td_error *err)
{
    void *map =
        n ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    if (map == MAP_FAILED)
        return td_fail(err, n ? TD_ENOMEM : TD_ETRACE, where,
                       n ? "out of memory" : "not a packed trace file (empty)");
    memcpy(map, p, n);
    int rc = td_file_xfer_read(out, map, n);
    if (rc < 0) {
        munmap(map, n);
        return td_fail(err, rc, where,
                       rc == TD_ENOMEM ? "out of memory"
                                       : "not a packed trace file (a whole file of another "
                                         "build, or damaged)");
    }
    return 0;
}

static int unpack_one(td_file **out, const unsigned char *p, size_t n, const char *where,
                      td_error *err)
{
    if (n >= 5 && memcmp(p, ENVELOPE_MAGIC, 4) == 0 && p[4] == ENVELOPE_WHOLE)
        return unpack_whole(out, p + 5, n - 5, where, err);
    if (n < 5 || memcmp(p, ENVELOPE_MAGIC, 4) != 0 || p[4] > 1 || (p[4] && n < 5 + 64))
        return td_fail(err, TD_ETRACE, where, "not a packed trace file (bad header)");
    size_t head = p[4] ? 5 + 64 : 5;
    int rc = td_file_unpack(out, p + head, n - head, where, err);
    if (rc == 0 && p[4]) {
        memcpy((*out)->sha256, p + 5, 64);
        (*out)->sha256[64] = '\0';
    }
    return rc;
}

int td_set_from_packed(td_set **out, const char *path, const unsigned char *const *bufs,
                       const size_t *lens, size_t n, td_error *err)
{
    *out = NULL;
    td_file **files = calloc(n + 1, sizeof *files);
    if (!files)
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int rc = unpack_one(&files[i], bufs[i], lens[i], path, err);
        if (rc < 0) {
            for (size_t k = 0; k < i; k++)
                td_file_free(files[k]);
            free(files);
            return rc;
        }
    }
    return td_set_assemble(out, path, files, n, err);
}
