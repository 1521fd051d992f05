/* util/strtab.c: an interner mapping byte strings to dense ids (names and
 * categories of a trace). Its layout, for the loader's inline look-up, is in
 * util/strtab_quick.h. */
#ifndef TD_UTIL_STRTAB_H
#define TD_UTIL_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct td_strtab td_strtab;
td_strtab *td_strtab_new(void);
void td_strtab_free(td_strtab *t);
/* Returns the id (>= 0) or -1 when out of memory. */
int64_t td_strtab_intern(td_strtab *t, const char *s, size_t len);
/* Like intern, but never adds: -1 when absent. */
int64_t td_strtab_find(const td_strtab *t, const char *s, size_t len);
/* td_strtab_intern after a miss in the quick table (util/strtab_quick.h):
 * a and z are the string's quick words. */
int64_t td_strtab_intern_miss(td_strtab *t, const char *s, size_t len, uint64_t a, uint64_t z);
size_t td_strtab_count(const td_strtab *t);
const char *td_strtab_get(const td_strtab *t, uint32_t id, size_t *len);
uint64_t td_hash_bytes(const char *s, size_t len);
/* An interner's arrays, to copy one between processes (model/file_xfer.c)
 * without hashing its strings again. */
typedef struct td_strtab_parts {
    const char *arena; /* the strings, each followed by '\0' */
    size_t alen;
    const uint64_t *off, *hash; /* per id */
    const uint32_t *len;
    size_t n;
    const uint32_t *slots; /* id + 1, 0 = empty */
    size_t nslots;         /* a power of two */
} td_strtab_parts;
void td_strtab_parts_of(const td_strtab *t, td_strtab_parts *p);
/* A new interner holding copies of p's arrays; NULL when out of memory or
 * when p is not consistent. */
td_strtab *td_strtab_from_parts(const td_strtab_parts *p);

#endif
