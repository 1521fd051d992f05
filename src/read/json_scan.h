/*
 * A streaming, validating JSON pull scanner over a sliding window.
 *
 * It knows nothing of traces: a caller walks objects and arrays with
 * td_json_obj_next / td_json_arr_next, reads the scalars it wants and skips
 * every other value with td_json_skip, which validates without building
 * anything. Memory is the window plus the longest single token, never the
 * document.
 */
#ifndef TD_JSON_SCAN_H
#define TD_JSON_SCAN_H

#include "read/json_number.h"
#include "read/json_skip.h"
#include "read/json_string.h"
#include "read/json_window.h"

int td_json_init(td_json *j, td_json_read_fn read, void *ud, const char *path, td_error *err);

static inline int td_json_string(td_json *j, const char **s, size_t *len)
{
#ifdef __SSE2__
    /* A plain string of up to 31 bytes right here: no call. */
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos;
    if (p + 33 <= j->end && b[p] == '"') {
        size_t q = p + 1;
        unsigned m = td_json_stop16(b + q);
        if (!m) {
            q += 16;
            m = td_json_stop16(b + q);
        }
        if (m) {
            q += (size_t)__builtin_ctz(m);
            if (b[q] == '"') {
                *s = j->buf + p + 1;
                *len = q - p - 1;
                j->pos = q + 1;
                return 0;
            }
        }
    }
#endif
    return td_json_string_slow(j, s, len);
}

/* A plain integer (0 or up to 18 digits, no sign) followed by what may
 * follow a value, read inline: returns 1 with *out set. Anything else, or
 * too near the end of the buffer: returns 0 having consumed nothing (read it
 * with td_json_number). For ids read by the million (pid, tid). */
static inline int td_json_small_int(td_json *j, int64_t *out)
{
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos;
    if (j->end - p < 24)
        return 0;
    if (b[p] == ' ')
        p++;
    size_t q = p;
    int64_t v = 0;
    while (q < p + 18 && b[q] >= '0' && b[q] <= '9')
        v = v * 10 + (b[q++] - '0');
    if (q == p || (b[p] == '0' && q > p + 1) ||
        !(b[q] == ',' || b[q] == '}' || b[q] == ']' || td_json_ws(b[q])))
        return 0;
    j->pos = q;
    *out = v;
    return 1;
}

/* Reads a number. The usual one, an integer of up to 16 digits followed by
 * a byte that cannot continue a number, is read inline. */
static inline __attribute__((always_inline)) int td_json_number(td_json *j, td_json_num *out)
{
#ifdef __SSE2__
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos;
    if (j->end - p >= 40 && p >= 16) { /* td_json_digits16 reads 15 bytes back */
        p += b[p] == ' ';
        size_t d = p + (b[p] == '-');
        uint64_t v;
        unsigned n = td_json_digits16(b + d, &v);
        unsigned char c = b[d + n];
        if (n && !(b[d] == '0' && n > 1)) {
            if (!td_json_num_byte(c)) {
                out->i = d > p ? -(int64_t)v : (int64_t)v;
                out->d = (double)out->i;
                out->is_int = true;
                out->decimal = false;
                j->pos = d + n;
                return 0;
            }
            if (c == '.')
                return td_json_number_frac(j, p, d, n, v, out);
        }
    }
#endif
    return td_json_number_slow(j, out);
}

/* Skips one value of any type, validating it. The most common skipped
 * values are read inline: a plain string of up to 31 bytes, and a number
 * without exponent ("0", "-12", "0.5925926") followed by what may follow a
 * value. Anything else, and anything near the window's edge, takes the
 * general path, which gives the errors. An array goes to
 * td_json_skip_array (json_skip.h). */
static inline __attribute__((always_inline)) int td_json_skip(td_json *j)
{
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos, e = j->end;
    if (e - p < 48)
        return td_json_skip_slow(j);
    if (b[p] == ' ')
        p++;
#ifdef __SSE2__
    if (b[p] == '"') {
        size_t q = p + 1;
        unsigned m = td_json_stop16(b + q);
        if (!m) {
            q += 16;
            m = td_json_stop16(b + q);
        }
        if (m) {
            q += (size_t)__builtin_ctz(m);
            if (b[q] == '"') {
                j->pos = q + 1;
                return 0;
            }
        }
        return td_json_skip_slow(j);
    }
#endif
    if (b[p] == '[')
        return td_json_skip_array(j, p);
    size_t q = td_json_plain_number_end(b, p, e);
    if (q < e && td_json_after_value(b[q])) { /* SIZE_MAX: not one */
        j->pos = q;
        return 0;
    }
    return td_json_skip_slow(j);
}

/* Objects: td_json_obj_begin consumes '{'; td_json_obj_next returns 1 with
 * the next key read (and ':' consumed), 0 after the closing '}', < 0 on
 * error. first must start true. */
int td_json_obj_begin_slow(td_json *j);
static inline int td_json_obj_begin(td_json *j)
{
    size_t p = j->pos;
    if (p + 1 < j->end && j->depth < TD_JSON_MAX_DEPTH) { /* '{' right here, or after a space */
        p += j->buf[p] == ' ';
        if (j->buf[p] == '{') {
            td_json_enter(j, true);
            j->pos = p + 1;
            return 0;
        }
    }
    return td_json_obj_begin_slow(j);
}
int td_json_obj_next_slow(td_json *j, bool *first, const char **key, size_t *klen);

/* The usual member, [white space] [',' white space] "key" [' '] ':', and the
 * '}' after a member are read inline; anything else (an empty object, long
 * or escaped keys, the window's edge, errors) goes to the general path,
 * which starts afresh. */
/* The '}' at q ends the object being read. */
static inline int td_json_obj_end(td_json *j, size_t q)
{
    j->pos = q + 1;
    j->depth--;
    return 0;
}

static inline __attribute__((always_inline)) int td_json_obj_next(td_json *j, bool *first,
                                                                  const char **key, size_t *klen)
{
#ifdef __SSE2__
    /* Margins: every load below stays inside the window. */
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos, e = j->end, k;
    if (e - p < 80)
        goto slow;
    if (td_json_ws(b[p])) {
        do {
            k = td_json_ws16(b + p);
            p += k;
        } while (k == 16 && p + 80 <= e);
        if (p + 64 > e)
            goto slow;
    }
    if (!*first) {
        if (b[p] == '}')
            return td_json_obj_end(j, p);
        if (b[p] != ',')
            goto slow;
        p++;
        if (b[p] == ' ' && b[p + 1] > ' ') /* ", " as Kineto writes it */
            p++;
        else if (td_json_ws(b[p])) {
            do {
                k = td_json_ws16(b + p);
                p += k;
            } while (k == 16 && p + 80 <= e);
            if (p + 40 > e)
                goto slow;
        }
    }
    if (b[p] != '"')
        goto slow;
    {
        /* Keys up to 31 bytes. */
        unsigned m = td_json_stop16(b + p + 1);
        size_t q = p + 1;
        if (!m) {
            m = td_json_stop16(b + p + 17);
            q = p + 17;
            if (!m)
                goto slow;
        }
        q += (size_t)__builtin_ctz(m);
        if (b[q] != '"')
            goto slow;
        size_t c = q + 1;
        if (b[c] == ' ')
            c++;
        if (b[c] != ':')
            goto slow;
        *key = j->buf + p + 1;
        *klen = q - p - 1;
        *first = false;
        j->pos = c + 1;
        return 1;
    }
slow:
#endif
    return td_json_obj_next_slow(j, first, key, klen);
}

/* Member layouts seen before. The bytes from the end of one value to the
 * start of the next, "[ws] [',' ws] \"key\" [ws] ':' [' ']", repeat from object to
 * object of a kind (trace events, their args): a caller keeps a
 * td_json_keys per kind, which remembers each layout read through it (up
 * to 32 bytes, a plain key) and the two that last followed it. A member
 * whose bytes equal a predicted layout's is read with two 16-byte
 * compares, no scan: those bytes were accepted by the general path in the
 * same place (after '{' for a first member, after a value otherwise; a
 * layout's own bytes say which), so they are valid here too. Each layout
 * carries a tag for the caller (-1 until the caller sets it), so that a
 * key is classified once, not once per object. */
#define TD_JSON_KEYS_MAX 64
#define TD_JSON_KEY_BYTES 32
typedef struct td_json_key {
    unsigned char bytes[TD_JSON_KEY_BYTES]; /* zero past len */
    uint32_t care_not;                      /* bit k set: byte k is past len */
    uint8_t len, koff, klen;                /* the key: bytes[koff], klen bytes */
    int8_t tag;
    uint8_t next[2];       /* the layouts that followed, the latest learnt first; 0: none */
    unsigned char pad[22]; /* 64 bytes a layout */
} td_json_key;
_Static_assert(sizeof(td_json_key) == 64, "a layout is found by a shift");
/* k[TD_JSON_KEY_BEGIN] stands for an object's '{': its next[] holds the
 * layouts that began an object, and it is never matched itself. */
#define TD_JSON_KEY_BEGIN TD_JSON_KEYS_MAX
typedef struct td_json_keys {
    td_json_key k[TD_JSON_KEYS_MAX + 1]; /* k[0]: none, never matched */
    uint8_t n;                           /* layouts in k[1..n] */
    uint8_t cur;        /* the member just read (0: not a layout; TD_JSON_KEY_BEGIN: none yet) */
    int8_t scratch_tag; /* the tag of a member that is not a layout */
    uint8_t slot[2 * TD_JSON_KEYS_MAX]; /* by hash of the bytes: index, 0 empty */
} td_json_keys;

/* td_json_obj_begin for an object whose members are read through ks:
 * the next member is a first one, so only layouts that began an object
 * are tried. */
static inline int td_json_obj_begin_keys(td_json *j, td_json_keys *ks)
{
    ks->cur = TD_JSON_KEY_BEGIN;
    return td_json_obj_begin(j);
}

/* The general path of td_json_member: td_json_obj_next, then the layout
 * learnt. */
int td_json_member_slow(td_json *j, td_json_keys *ks, const char **key, size_t *klen, int8_t **tag);

#ifdef __SSE2__
/* Whether the 32 bytes x0, x1 start with layout t. */
static inline bool td_json_key_at(const td_json_key *t, __m128i x0, __m128i x1)
{
    uint32_t eq = (uint32_t)_mm_movemask_epi8(
                      _mm_cmpeq_epi8(x0, _mm_loadu_si128((const __m128i *)t->bytes))) |
                  (uint32_t)_mm_movemask_epi8(
                      _mm_cmpeq_epi8(x1, _mm_loadu_si128((const __m128i *)(t->bytes + 16))))
                      << 16;
    return (eq | t->care_not) == 0xFFFFFFFFu;
}
#endif

/* td_json_obj_next through the layouts of ks (zeroed before first use),
 * in an object begun by td_json_obj_begin_keys, which also stands for
 * td_json_obj_next's first. On 1, *tag points to the member's tag, which
 * the caller may set; *key and *klen are set only while that tag is < 0
 * (the caller has not classified the key yet): a tagged layout's key is
 * known by its tag. The '}' that ends an object, after white space or
 * not, is read inline too. */
static inline __attribute__((always_inline)) int
td_json_member(td_json *j, td_json_keys *ks, const char **key, size_t *klen, int8_t **tag)
{
#ifdef __SSE2__
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos;
    if (j->end - p >= 64) {
        const uint8_t *pred = ks->k[ks->cur].next;
        __m128i x0 = _mm_loadu_si128((const __m128i *)(b + p));
        __m128i x1 = _mm_loadu_si128((const __m128i *)(b + p + 16));
        uint8_t i = pred[0];
        const td_json_key *t = &ks->k[i];
        if (!i || !td_json_key_at(t, x0, x1)) {
            i = pred[1];
            t = &ks->k[i];
            if (!i || !td_json_key_at(t, x0, x1)) {
                size_t q = p + td_json_ws16(b + p);
                if (b[q] != '}')
                    return td_json_member_slow(j, ks, key, klen, tag);
                return td_json_obj_end(j, q);
            }
        }
        if (t->tag < 0) {
            *key = j->buf + p + t->koff;
            *klen = t->klen;
        }
        *tag = &ks->k[i].tag;
        j->pos = p + t->len;
        ks->cur = i;
        return 1;
    }
#endif
    return td_json_member_slow(j, ks, key, klen, tag);
}

/* Arrays: likewise; td_json_arr_next returns 1 when a value follows. The
 * usual step between elements, ',' and the white space before the next
 * value (none, one byte, or Kineto's line feed and indent), is read
 * inline. */
int td_json_arr_begin(td_json *j);
int td_json_arr_next_slow(td_json *j, bool *first);
static inline int td_json_arr_next(td_json *j, bool *first)
{
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos, e = j->end;
    if (!*first && e - p > 48 && b[p] == ',') {
        p++;
        p += b[p] == ' ' || b[p] == '\n';
        if (td_json_ws(b[p])) {
#ifdef __SSE2__
            size_t k;
            do {
                k = td_json_ws16(b + p);
                p += k;
            } while (k == 16 && p + 32 <= e);
#else
            while (p + 1 < e && td_json_ws(b[p]))
                p++;
#endif
        }
        if (p < e && b[p] > ' ' && b[p] != ']') {
            j->pos = p;
            return 1;
        }
    }
    return td_json_arr_next_slow(j, first);
}

/* The members of the object at the cursor, each handed to fn with its key
 * (fn reads or skips the value); anything but an object is skipped whole.
 * Returns 0, or fn's error, or the scanner's. */
typedef int (*td_json_member_fn)(td_json *j, void *ud, const char *key, size_t klen);
static inline __attribute__((always_inline)) int td_json_members(td_json *j, td_json_member_fn fn,
                                                                 void *ud)
{
    if (td_json_peek(j) != '{')
        return td_json_skip(j);
    int rc = td_json_obj_begin(j);
    bool first = true;
    const char *k;
    size_t kl;
    while (rc >= 0 && (rc = td_json_obj_next(j, &first, &k, &kl)) > 0)
        rc = fn(j, ud, k, kl);
    return rc;
}

/* After the top-level value: nothing but white space may follow. */
int td_json_end(td_json *j);

#endif
