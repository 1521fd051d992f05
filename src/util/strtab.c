/*
 * String interner: open addressing over one growing byte arena. Ids are
 * dense (0, 1, 2...), so callers keep per-event 32-bit ids and per-string
 * side tables in plain arrays.
 */
#include "util/strtab.h"
#include "util/strtab_layout.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t mix(uint64_t h)
{
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
}

uint64_t td_hash_bytes(const char *s, size_t len)
{
    /* Eight bytes a step: kernel names run to hundreds of bytes and every
     * counted event's name is hashed once. */
    uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)len * 0xff51afd7ed558ccdull);
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
        s += 8;
        len -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, len);
    h = (h ^ w) * 0x94d049bb133111ebull;
    return mix(h);
}

td_strtab *td_strtab_new(void)
{
    td_strtab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->nslots = 256;
    t->slots = calloc(t->nslots, sizeof *t->slots);
    if (!t->slots) {
        free(t);
        return NULL;
    }
    return t;
}

void td_strtab_free(td_strtab *t)
{
    if (!t)
        return;
    free(t->arena);
    free(t->off);
    free(t->len);
    free(t->hash);
    free(t->slots);
    free(t);
}

static int rehash(td_strtab *t)
{
    size_t ns = t->nslots * 2;
    uint32_t *slots = calloc(ns, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t id = 0; id < t->n; id++) {
        size_t k = t->hash[id] & (ns - 1);
        while (slots[k])
            k = (k + 1) & (ns - 1);
        slots[k] = (uint32_t)id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
    return 0;
}

static size_t probe(const td_strtab *t, const char *s, size_t len, uint64_t h, int64_t *found)
{
    size_t k = h & (t->nslots - 1);
    for (;;) {
        uint32_t v = t->slots[k];
        if (!v) {
            *found = -1;
            return k;
        }
        uint32_t id = v - 1;
        if (t->hash[id] == h && t->len[id] == len && memcmp(t->arena + t->off[id], s, len) == 0) {
            *found = id;
            return k;
        }
        k = (k + 1) & (t->nslots - 1);
    }
}

int64_t td_strtab_find(const td_strtab *t, const char *s, size_t len)
{
    int64_t found;
    probe(t, s, len, td_hash_bytes(s, len), &found);
    return found;
}

int64_t td_strtab_intern_miss(td_strtab *t, const char *s, size_t len, uint64_t a, uint64_t z)
{
    if (len > UINT32_MAX || t->n >= INT32_MAX)
        return -1;
    struct td_strtab_quick *q = &t->quick[td_strtab_quick_key(a, z, len)];
    uint64_t h = td_hash_bytes(s, len);
    int64_t found;
    size_t k = probe(t, s, len, h, &found);
    if (found >= 0) {
        *q = (struct td_strtab_quick){a, z, (uint32_t)found + 1, (uint32_t)len};
        return found;
    }
    if (t->n + 1 > t->cap) {
        size_t c1 = t->cap, c2 = t->cap, c3 = t->cap;
        uint64_t *off = td_grow(t->off, &c1, t->n + 1, sizeof *off);
        if (off)
            t->off = off;
        uint32_t *ln = td_grow(t->len, &c2, t->n + 1, sizeof *ln);
        if (ln)
            t->len = ln;
        uint64_t *hs = td_grow(t->hash, &c3, t->n + 1, sizeof *hs);
        if (hs)
            t->hash = hs;
        if (!off || !ln || !hs)
            return -1;
        t->cap = c1;
    }
    char *arena = td_grow(t->arena, &t->acap, t->alen + len + 1, 1);
    if (!arena)
        return -1;
    t->arena = arena;
    memcpy(t->arena + t->alen, s, len);
    t->arena[t->alen + len] = '\0';
    size_t id = t->n++;
    t->off[id] = t->alen;
    t->len[id] = (uint32_t)len;
    t->hash[id] = h;
    t->alen += len + 1;
    t->slots[k] = (uint32_t)id + 1;
    *q = (struct td_strtab_quick){a, z, (uint32_t)id + 1, (uint32_t)len};
    if (t->n * 4 > t->nslots * 3 && rehash(t) < 0)
        return -1;
    return (int64_t)id;
}

size_t td_strtab_count(const td_strtab *t)
{
    return t->n;
}

const char *td_strtab_get(const td_strtab *t, uint32_t id, size_t *len)
{
    if (len)
        *len = t->len[id];
    return t->arena + t->off[id];
}

void td_strtab_parts_of(const td_strtab *t, td_strtab_parts *p)
{
    *p = (td_strtab_parts){t->arena, t->alen, t->off, t->hash, t->len, t->n, t->slots, t->nslots};
}

static void *dup_of(const void *src, size_t n, size_t elem)
{
    void *m = malloc(n ? n * elem : 1);
    if (m && n)
        memcpy(m, src, n * elem);
    return m;
}

/* Every string within the arena and '\0'-ended, every slot an id: what
 * look-ups rely on. */
static bool parts_ok(const td_strtab_parts *p)
{
    if (p->nslots < 2 || (p->nslots & (p->nslots - 1)) || p->n * 4 > p->nslots * 3 ||
        p->n > INT32_MAX)
        return false;
    for (size_t i = 0; i < p->n; i++)
        if (p->off[i] >= p->alen || p->len[i] >= p->alen - p->off[i] ||
            p->arena[p->off[i] + p->len[i]] != '\0')
            return false;
    for (size_t k = 0; k < p->nslots; k++)
        if (p->slots[k] > p->n)
            return false;
    return true;
}

td_strtab *td_strtab_from_parts(const td_strtab_parts *p)
{
    if (!parts_ok(p))
        return NULL;
    td_strtab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->arena = dup_of(p->arena, p->alen, 1);
    t->off = dup_of(p->off, p->n, sizeof *t->off);
    t->len = dup_of(p->len, p->n, sizeof *t->len);
    t->hash = dup_of(p->hash, p->n, sizeof *t->hash);
    t->slots = dup_of(p->slots, p->nslots, sizeof *t->slots);
    t->alen = t->acap = p->alen;
    t->n = t->cap = p->n;
    t->nslots = p->nslots;
    if (!t->arena || !t->off || !t->len || !t->hash || !t->slots) {
        td_strtab_free(t);
        return NULL;
    }
    return t;
}
