/*
 * Streaming JSON scanner: see json_scan.h. This file opens a scanner and
 * reads objects and arrays (members, their remembered layouts); the window
 * is json_window.c's, strings json_string.c's, numbers json_number.c's and
 * skipped values json_skip.c's, sharing json_window.h and
 * json_window_internal.h.
 */
#include "read/json_scan.h"
#include "read/json_window_internal.h"

static void tables_init(void)
{
    td_json_tables_init();
    td_json_walk_init();
}

int td_json_init(td_json *j, td_json_read_fn read, void *ud, const char *path, td_error *err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, tables_init);
    memset(j, 0, sizeof *j);
    j->index = td_json_index_kernel(td_json_simd_level());
    j->classify = td_json_classify_kernel(td_json_simd_level());
    j->fast_walk = td_json_simd_level() >= TD_SIMD_AVX2 && td_json_walk_fast_supported();
    j->read = read;
    j->ud = ud;
    j->err = err;
    j->path = path ? path : "";
    j->keep = NO_KEEP;
    j->cap = j->owncap = WINDOW_START;
    j->buf = j->own = malloc(j->cap);
    j->scap = 256;
    j->scratch = malloc(j->scap);
    if (!j->buf || !j->scratch) {
        td_json_free(j);
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    return 0;
}

int td_json_obj_begin_slow(td_json *j)
{
    int c = td_json_peek(j);
    if (c != '{') {
        if (c < -1)
            return TD_EIO;
        return td_json_error(j, c == -1 ? "unexpected end of input, expected an object"
                                        : "expected an object");
    }
    int rc = push(j, true);
    if (rc < 0)
        return rc;
    j->pos++;
    return 0;
}

int td_json_obj_next_slow(td_json *j, bool *first, const char **key, size_t *klen)
{
    int c = td_json_peek(j);
    if (c < -1)
        return TD_EIO;
    if (c == '}') {
        j->pos++;
        j->depth--;
        return 0;
    }
    if (!*first) {
        if (c != ',') {
            if (c == -1)
                return td_json_error(j, "unexpected end of input, expected ',' or '}'");
            return td_json_error(j, "expected ',' or '}'");
        }
        j->pos++;
        c = td_json_peek(j);
        if (c == '}')
            return td_json_error(j, "trailing comma");
    }
    *first = false;
    if (c == '\'')
        return td_json_error(j, "single quotes are not JSON");
    if (c == -1)
        return td_json_error(j, "unexpected end of input, expected a key");
    if (c != '"')
        return td_json_error(j, "expected a key");
    int rc = td_json_scan_string(j, true, key, klen);
    if (rc < 0)
        return rc;
    /* Nearly always the ':' is right there (or after one space). */
    if (j->pos + 1 < j->end) {
        if (j->buf[j->pos] == ':') {
            j->pos++;
            return 1;
        }
        if (j->buf[j->pos] == ' ' && j->buf[j->pos + 1] == ':') {
            j->pos += 2;
            return 1;
        }
    }
    /* The key must survive the ':' lookahead: keep it in the window. */
    bool in_window = *key != j->scratch;
    if (in_window)
        j->keep = (size_t)(*key - j->buf);
    rc = td_json_expect_byte(j, ':', "':'");
    if (in_window) {
        *key = j->buf + j->keep;
        j->keep = NO_KEEP;
    }
    if (rc < 0)
        return rc;
    return 1;
}

/* The layout of bytes s[0..len) ('"' at s[koff - 1]) in ks: its index,
 * added if new; 0 when ks is full. */
static uint8_t key_layout(td_json_keys *ks, const unsigned char *s, size_t len, size_t koff,
                          size_t klen)
{
    size_t mask = sizeof ks->slot - 1;
    for (size_t h = td_hash_bytes((const char *)s, len) & mask;; h = (h + 1) & mask) {
        uint8_t i = ks->slot[h];
        if (i && ks->k[i].len == len && memcmp(ks->k[i].bytes, s, len) == 0)
            return i;
        if (i)
            continue;
        if (ks->n + 1 >= TD_JSON_KEYS_MAX)
            return 0;
        i = ++ks->n;
        td_json_key *t = &ks->k[i];
        memset(t, 0, sizeof *t);
        memcpy(t->bytes, s, len);
        t->care_not = len >= 32 ? 0 : ~((1u << len) - 1);
        t->len = (uint8_t)len;
        t->koff = (uint8_t)koff;
        t->klen = (uint8_t)klen;
        t->tag = -1;
        ks->slot[h] = i;
        return i;
    }
}

int td_json_member_slow(td_json *j, td_json_keys *ks, const char **key, size_t *klen, int8_t **tag)
{
    bool first = ks->cur == TD_JSON_KEY_BEGIN;
    uint64_t at = td_json_offset(j);
    uint8_t prev = ks->cur;
    ks->cur = 0;
    ks->scratch_tag = -1;
    *tag = &ks->scratch_tag;
    int rc = td_json_obj_next(j, &first, key, klen);
    if (rc <= 0 || at < j->base)
        return rc;
    /* The one space after ':' belongs to the layout too (white space before
     * a value), so that the value is read from its first byte. */
    if (j->pos < j->end && j->buf[j->pos] == ' ')
        j->pos++;
    /* Learnt only when the member's bytes are all in the window, the key
     * among them as written (not decoded into scratch). */
    const char *s = j->buf + (at - j->base);
    size_t len = (size_t)(td_json_offset(j) - at);
    if (len > TD_JSON_KEY_BYTES || *key <= s || *key + *klen >= s + len)
        return rc;
    uint8_t i = key_layout(ks, (const unsigned char *)s, len, (size_t)(*key - s), *klen);
    if (!i)
        return rc;
    uint8_t *pred = prev ? ks->k[prev].next : NULL; /* TD_JSON_KEY_BEGIN: after '{' */
    if (pred && pred[0] != i) {
        pred[1] = pred[0];
        pred[0] = i;
    }
    ks->cur = i;
    *tag = &ks->k[i].tag;
    return rc;
}

int td_json_arr_begin(td_json *j)
{
    int c = td_json_peek(j);
    if (c != '[') {
        if (c < -1)
            return TD_EIO;
        return td_json_error(j, c == -1 ? "unexpected end of input, expected an array"
                                        : "expected an array");
    }
    int rc = push(j, false);
    if (rc < 0)
        return rc;
    j->pos++;
    return 0;
}

int td_json_arr_next_slow(td_json *j, bool *first)
{
    int c = td_json_peek(j);
    if (c < -1)
        return TD_EIO;
    if (c == ']') {
        j->pos++;
        j->depth--;
        return 0;
    }
    if (!*first) {
        if (c != ',') {
            if (c == -1)
                return td_json_error(j, "unexpected end of input, expected ',' or ']'");
            return td_json_error(j, "expected ',' or ']'");
        }
        j->pos++;
        c = td_json_peek(j);
        if (c == ']')
            return td_json_error(j, "trailing comma");
    }
    if (c == -1)
        return td_json_error(j, "unexpected end of input, expected a value");
    *first = false;
    return 1;
}

int td_json_end(td_json *j)
{
    int c = td_json_peek(j);
    if (c < -1)
        return TD_EIO;
    if (c != -1)
        return td_json_error(j, "unexpected data after the top-level value");
    return 0;
}
