/*
 * A streaming source of bytes: plain, gzip or zstd, told apart by the first
 * bytes of the file, never by its name. It knows nothing of JSON.
 *
 * gzip goes through isa-l's inflater: on this project's traces it inflates
 * 3 to 4 times faster than zlib (BENCHMARKS.md); libdeflate is no faster
 * and needs the whole file and its whole output in memory.
 *
 * Compressed input is decompressed by a thread of its own, a few chunks
 * ahead of the reader (a ring of RING chunks of CHUNK bytes), so that
 * decompressing and scanning overlap: a .json.gz costs about the longer of
 * the two rather than their sum. Errors reach the reader in order, after
 * every byte decompressed before them. Plain input is read the same way
 * when asked (td_reader_read_ahead), so that the kernel's copy from the
 * page cache runs beside the scanner.
 *
 * A chunk need not be copied out: td_reader_swap hands the chunk itself to
 * the JSON scanner as its window, the scanner's unread bytes copied into
 * the room kept before the chunk's data (HEAD bytes), and takes back the
 * chunk the scanner held before.
 *
 * A plain file can instead be mapped into memory (td_reader_map): the
 * scanner's windows are then taken from the mapping itself, each the bytes
 * it kept followed by the next MAP_STEP bytes, with no copy and no thread.
 * Pages behind the window are given back as it moves, so that the mapping
 * costs a window's worth of memory, not the file's: in steps of a 128th of
 * the file (up to MAP_DROP), for each give-back flushes the TLB of every
 * core running the process (an interrupt to each other one), and a bigger
 * file can spare the memory. Every mapping is listed
 * in a table that a SIGBUS handler may read (td_mapped_file): a file
 * truncated while it is mapped raises SIGBUS at the first page past its new
 * end, and only the program can decide what to do about it.
 */
#include "read/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <isa-l/igzip_lib.h>
#include <unistd.h>
#include <zstd.h>

#define INBUF (256u << 10)
#define CHUNK (128u << 10)
#define HEAD (64u << 10) /* room before a chunk's data for the scanner's unread bytes */
#define RING 8
/* Compressed regular files smaller than this are decompressed in the
 * reader's thread: the reading thread, its ring of buffers and their pages
 * cost more than decompressing a few hundred kilobytes takes (a compare of
 * hta-amd's and hta-triton's, 7 and 2 KB: 11.4 -> 10.0 ms of CPU). */
#define INLINE_MAX (64u << 10)
#define MAP_STEP (1u << 20) /* bytes a mapped window moves by */
#define MAP_DROP (8u << 20) /* most bytes behind the window before they are given back */
/* The scanner may read a little past its window's end (never past its own
 * padding); a mapped window therefore ends at least MAP_GUARD bytes before
 * the mapping does, and the file's last bytes come through a copy. */
#define MAP_GUARD 4096u
#define MAP_PAD 64u   /* zero bytes after the copy's data */
#define MAP_SLOTS 256 /* mappings listed for td_mapped_file at once */

/* The reading thread and the ring it fills. produced and taken count
 * chunks; chunk k is in slot k % RING. */
typedef struct ring {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *slot[RING];
    size_t len[RING];
    uint64_t consumed_at[RING]; /* compressed bytes read once it was made */
    uint64_t produced, taken;
    size_t rpos;        /* reader's position in chunk taken */
    bool held;          /* chunk taken is the scanner's window (td_reader_swap) */
    int done, stop, rc; /* done: no more chunks; rc: 0 at the end, or the error */
    td_error err;
    uint64_t consumed; /* compressed bytes behind what the reader has taken */
} ring;

struct td_reader {
    const char *path;
    int fd;
    td_compression comp;
    uint64_t file_bytes, consumed;
    unsigned char *in;
    size_t in_pos, in_len;
    int in_eof;
    struct inflate_state *z;
    int z_done;
    ZSTD_DStream *zs;
    int zs_frame_open;
    int ahead;  /* plain input read by a thread of its own too */
    ring *ring; /* compressed (or ahead) input, once reading has begun */
    int ring_failed;
    int in_caller; /* compressed, decompressed in the caller's thread: asked
                    * (td_reader_inline), or a file under INLINE_MAX */
    /* A mapped plain file (td_reader_map): the next byte to hand over, the
     * pages given back before map_dropped, the copy for windows that cannot
     * be the mapping itself, the table slot. */
    const char *map;
    size_t map_len, map_pos, map_dropped;
    size_t map_drop; /* bytes let stay behind the window: map_len / 128, <= MAP_DROP */
    char *bridge;
    size_t bridge_cap;
    int map_slot;
};

/* The mappings, for td_mapped_file (which a signal handler may call: no
 * locks, only atomics that are lock-free). A slot is claimed by setting
 * start to 1, filled path, end, start, and emptied by setting start to 0; a
 * reader of a slot checks start before and after reading the others. */
static struct {
    _Atomic uintptr_t start, end;
    _Atomic(const char *) path;
} map_table[MAP_SLOTS];

_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "td_mapped_file must be async-signal-safe");

static int map_register(const char *start, size_t len, const char *path)
{
    for (int k = 0; k < MAP_SLOTS; k++) {
        uintptr_t zero = 0;
        /* 1 claims the slot; it matches no address */
        if (!atomic_compare_exchange_strong(&map_table[k].start, &zero, (uintptr_t)1))
            continue;
        atomic_store(&map_table[k].path, path);
        atomic_store(&map_table[k].end, (uintptr_t)start + len);
        atomic_store(&map_table[k].start, (uintptr_t)start);
        return k;
    }
    return -1;
}

static void map_unregister(int k)
{
    atomic_store(&map_table[k].start, (uintptr_t)0);
}

const char *td_mapped_file(const void *addr, uint64_t *offset)
{
    uintptr_t a = (uintptr_t)addr;
    for (int k = 0; k < MAP_SLOTS; k++) {
        uintptr_t s = atomic_load(&map_table[k].start);
        if (s <= 1 || a < s)
            continue;
        uintptr_t e = atomic_load(&map_table[k].end);
        const char *path = atomic_load(&map_table[k].path);
        if (a >= e || !path || atomic_load(&map_table[k].start) != s)
            continue;
        if (offset)
            *offset = (uint64_t)(a - s);
        return path;
    }
    return NULL;
}

/* The end of the file's bytes: 0, or an error when the file, regular and
 * that long when it was opened, ended early: another program truncated it
 * while it was read. Its offset is where reading stopped (in the file as
 * it was read: for a plain file, the byte the scanner had reached). */
static long at_end(td_reader *r, td_error *err)
{
    r->in_eof = 1;
    if (r->consumed >= r->file_bytes)
        return 0;
    struct stat st;
    unsigned long long now = fstat(r->fd, &st) == 0 ? (unsigned long long)st.st_size : 0;
    td_fail(err, TD_EIO, r->path,
            "the file was truncated while it was read (%llu bytes when opened, %llu now)",
            (unsigned long long)r->file_bytes, now);
    if (r->comp == TD_COMP_NONE) {
        err->offset = r->consumed;
        err->has_offset = true;
    }
    return TD_EIO;
}

static long read_raw(td_reader *r, td_error *err)
{
    if (r->in_pos < r->in_len)
        return (long)(r->in_len - r->in_pos);
    if (r->in_eof)
        return 0;
    ssize_t n;
    do
        n = read(r->fd, r->in, INBUF);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return td_fail(err, TD_EIO, r->path, "read failed: %s", strerror(errno));
    r->in_pos = 0;
    r->in_len = (size_t)n;
    r->consumed += (uint64_t)n;
    if (n == 0)
        return at_end(r, err);
    return n;
}

int td_reader_open(td_reader **out, const char *path, td_error *err)
{
    *out = NULL;
    td_reader *r = calloc(1, sizeof *r);
    if (!r)
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    r->path = path;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        int e = errno;
        free(r);
        if (e == ELOOP)
            return td_fail(err, TD_EIO, path, "too many levels of symbolic links");
        return td_fail(err, TD_EIO, path, "cannot open: %s", strerror(e));
    }
    struct stat st;
    if (fstat(r->fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            close(r->fd);
            free(r);
            return td_fail(err, TD_EIO, path, "is a directory, not a trace file");
        }
        if (S_ISREG(st.st_mode))
            r->file_bytes = (uint64_t)st.st_size;
    }
    r->in = malloc(INBUF);
    if (!r->in) {
        td_reader_close(r);
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    long n = read_raw(r, err);
    if (n < 0) {
        td_reader_close(r);
        return (int)n;
    }
    const unsigned char *m = r->in;
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b) {
        r->comp = TD_COMP_GZIP;
        r->z = malloc(sizeof *r->z);
        if (!r->z) {
            td_reader_close(r);
            return td_fail(err, TD_ENOMEM, path, "out of memory");
        }
        isal_inflate_init(r->z);
        r->z->crc_flag = ISAL_GZIP;
    } else if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) {
        r->comp = TD_COMP_ZSTD;
        r->zs = ZSTD_createDStream();
        if (!r->zs || ZSTD_isError(ZSTD_initDStream(r->zs))) {
            td_reader_close(r);
            return td_fail(err, TD_ENOMEM, path, "cannot start zstd decoder");
        }
    }
    r->in_caller = r->file_bytes > 0 && r->file_bytes < INLINE_MAX;
    *out = r;
    return 0;
}

int td_reader_map(td_reader *r, uint64_t min_bytes)
{
    struct stat st;
    if (r->map || r->ring || r->comp != TD_COMP_NONE || min_bytes == 0 || fstat(r->fd, &st) != 0 ||
        !S_ISREG(st.st_mode) || (uint64_t)st.st_size < min_bytes ||
        (uint64_t)st.st_size <= 2 * MAP_GUARD || (uint64_t)st.st_size > SIZE_MAX / 2)
        return 0;
    size_t len = (size_t)st.st_size;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, r->fd, 0);
    if (m == MAP_FAILED)
        return 0; /* read as usual */
    int slot = map_register(m, len, r->path);
    if (slot < 0) {
        munmap(m, len); /* a mapping nobody could name: read instead */
        return 0;
    }
    madvise(m, len, MADV_SEQUENTIAL);
    r->map = m;
    r->map_len = len;
    r->map_slot = slot;
    /* What telling the format apart read is served again from the mapping. */
    r->map_pos = r->map_dropped = 0;
    r->map_drop = len / 128 < MAP_DROP ? len / 128 : MAP_DROP;
    r->consumed = 0;
    r->in_pos = r->in_len = 0;
    r->in_eof = 0;
    return 1;
}

/* The next bytes of a mapped file into buf (a caller not taking windows). */
static long map_read(td_reader *r, char *buf, size_t cap)
{
    size_t n = r->map_len - r->map_pos;
    if (n > cap)
        n = cap;
    memcpy(buf, r->map + r->map_pos, n);
    r->map_pos += n;
    r->consumed = r->map_pos;
    return (long)n;
}

/* td_reader_swap for a mapped file. The window is the mapping itself when
 * the bytes kept are the ones just before the next (the usual case: they
 * are the end of the window before), else left and the next bytes copied
 * together into the bridge; so is the file's end (MAP_GUARD). */
static long map_swap(td_reader *r, const char *left, size_t nleft, char **buf, td_error *err)
{
    if (!buf)
        return 0; /* nothing is held */
    size_t rest = r->map_len - r->map_pos;
    if (rest == 0)
        return 0;
    const char *at = r->map + r->map_pos;
    size_t safe = r->map_len - MAP_GUARD;
    size_t n = r->map_pos < safe ? safe - r->map_pos : rest;
    if (n > MAP_STEP)
        n = MAP_STEP;
    if (r->map_pos < safe && (nleft == 0 || left + nleft == at)) {
        size_t from = (size_t)(at - nleft - r->map) & ~(size_t)4095;
        if (from > r->map_dropped + r->map_drop) { /* pages behind the window: given back */
            madvise((char *)r->map + r->map_dropped, from - r->map_dropped, MADV_DONTNEED);
            r->map_dropped = from;
        }
        *buf = (char *)at - nleft; /* read only: a window is never written */
    } else {
        size_t need = nleft + n + MAP_PAD;
        if (need > r->bridge_cap) {
            bool inside = r->bridge && left >= r->bridge && left < r->bridge + r->bridge_cap;
            size_t off = inside ? (size_t)(left - r->bridge) : 0;
            char *b = realloc(r->bridge, need);
            if (!b)
                return td_fail(err, TD_ENOMEM, r->path, "out of memory");
            r->bridge = b;
            r->bridge_cap = need;
            if (inside)
                left = b + off;
        }
        if (nleft)
            memmove(r->bridge, left, nleft);
        memcpy(r->bridge + nleft, at, n);
        memset(r->bridge + nleft + n, 0, MAP_PAD);
        *buf = r->bridge;
    }
    r->map_pos += n;
    r->consumed = r->map_pos;
    return (long)n;
}

static const char *isal_error(int rc)
{
    switch (rc) {
    case ISAL_INVALID_BLOCK:
        return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
        return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
        return "invalid distance";
    case ISAL_INVALID_WRAPPER:
        return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD:
        return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM:
        return "checksum mismatch";
    default:
        return "inflate failed";
    }
}

static long read_gzip(td_reader *r, char *buf, size_t cap, td_error *err)
{
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    struct inflate_state *z = r->z;
    z->next_out = (uint8_t *)buf;
    z->avail_out = (uint32_t)cap;
    while (z->avail_out == cap) {
        if (r->z_done) {
            /* Another gzip member may follow (as from cat a.gz b.gz). */
            long n = read_raw(r, err);
            if (n <= 0)
                return n;
            if (r->in[r->in_pos] != 0x1f)
                return td_fail(err, TD_EIO, r->path, "unexpected data after the gzip stream");
            isal_inflate_reset(z);
            z->crc_flag = ISAL_GZIP;
            r->z_done = 0;
        }
        if (z->avail_in == 0) {
            long n = read_raw(r, err);
            if (n < 0)
                return n;
            if (n == 0)
                return td_fail(err, TD_EIO, r->path,
                               "truncated gzip data (the file ends inside the compressed stream)");
            z->next_in = r->in + r->in_pos;
            z->avail_in = (uint32_t)(r->in_len - r->in_pos);
            r->in_pos = r->in_len;
        }
        int rc = isal_inflate(z);
        if (rc < 0)
            return td_fail(err, TD_EIO, r->path, "corrupt gzip data: %s", isal_error(rc));
        if (z->block_state == ISAL_BLOCK_FINISH) {
            r->z_done = 1;
            /* Hand unread input back for the next member. */
            r->in_pos = r->in_len - z->avail_in;
            z->avail_in = 0;
        }
    }
    return (long)(cap - z->avail_out);
}

static long read_zstd(td_reader *r, char *buf, size_t cap, td_error *err)
{
    ZSTD_outBuffer o = {buf, cap, 0};
    while (o.pos == 0) {
        long n = read_raw(r, err);
        if (n < 0)
            return n;
        if (n == 0) {
            if (!r->zs_frame_open)
                return 0;
            /* Flush what the decoder still holds, then complain. */
            ZSTD_inBuffer in = {r->in, 0, 0};
            size_t rc = ZSTD_decompressStream(r->zs, &o, &in);
            if (!ZSTD_isError(rc) && o.pos > 0)
                return (long)o.pos;
            return td_fail(err, TD_EIO, r->path,
                           "truncated zstd data (the file ends inside a frame)");
        }
        ZSTD_inBuffer in = {r->in, r->in_len, r->in_pos};
        size_t rc = ZSTD_decompressStream(r->zs, &o, &in);
        r->in_pos = in.pos;
        if (ZSTD_isError(rc))
            return td_fail(err, TD_EIO, r->path, "corrupt zstd data: %s", ZSTD_getErrorName(rc));
        r->zs_frame_open = rc != 0;
    }
    return (long)o.pos;
}

/* Plain input: straight into buf, or what detecting the format read. */
static long read_plain(td_reader *r, char *buf, size_t cap, td_error *err)
{
    if (r->in_pos >= r->in_len && !r->in_eof) {
        ssize_t n;
        do
            n = read(r->fd, buf, cap);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            return td_fail(err, TD_EIO, r->path, "read failed: %s", strerror(errno));
        r->consumed += (uint64_t)n;
        if (n == 0)
            return at_end(r, err);
        return (long)n;
    }
    long n = read_raw(r, err);
    if (n <= 0)
        return n;
    size_t k = (size_t)n < cap ? (size_t)n : cap;
    memcpy(buf, r->in + r->in_pos, k);
    r->in_pos += k;
    return (long)k;
}

static long read_decoded(td_reader *r, char *buf, size_t cap, td_error *err)
{
    if (r->comp == TD_COMP_NONE)
        return read_plain(r, buf, cap, err);
    return r->comp == TD_COMP_GZIP ? read_gzip(r, buf, cap, err) : read_zstd(r, buf, cap, err);
}

/* The reading thread (decompressing, or plain input read ahead): fills
 * free slots with whole chunks (the last one short), then records the end
 * or the error. Once the ring is full it sleeps until half of it is free,
 * so that one wake-up fills several chunks. */
static void *ring_main(void *arg)
{
    td_reader *r = arg;
    ring *g = r->ring;
    for (;;) {
        pthread_mutex_lock(&g->mu);
        if (g->produced - g->taken == RING)
            while (g->produced - g->taken > RING / 2 && !g->stop)
                pthread_cond_wait(&g->cv, &g->mu);
        int stop = g->stop;
        pthread_mutex_unlock(&g->mu);
        if (stop)
            return NULL;
        char *out = g->slot[g->produced % RING] + HEAD;
        size_t len = 0;
        long n = 1;
        while (len < CHUNK && (n = read_decoded(r, out + len, CHUNK - len, &g->err)) > 0)
            len += (size_t)n;
        pthread_mutex_lock(&g->mu);
        if (len > 0) {
            g->len[g->produced % RING] = len;
            g->consumed_at[g->produced % RING] = r->consumed;
            g->produced++;
        }
        if (n <= 0) {
            g->done = 1;
            g->rc = (int)n;
        }
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        if (n <= 0)
            return NULL;
    }
}

static void ring_free(ring *g)
{
    for (int k = 0; k < RING; k++)
        free(g->slot[k]);
    free(g);
}

static int ring_start(td_reader *r, td_error *err)
{
    ring *g = calloc(1, sizeof *g);
    for (int k = 0; g && k < RING; k++)
        if (!(g->slot[k] = malloc(HEAD + CHUNK))) {
            ring_free(g);
            g = NULL;
        }
    if (!g)
        return td_fail(err, TD_ENOMEM, r->path, "out of memory");
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    r->ring = g;
    if (pthread_create(&g->thread, NULL, ring_main, r) != 0) {
        pthread_mutex_destroy(&g->mu);
        pthread_cond_destroy(&g->cv);
        r->ring = NULL;
        ring_free(g);
        r->ring_failed = 1; /* decompress in the reader's thread instead */
    }
    return 0;
}

static void ring_stop(td_reader *r)
{
    ring *g = r->ring;
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->stop = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->thread, NULL);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    ring_free(g);
    r->ring = NULL;
}

/* The reader lets go of chunk taken; the reading thread, asleep since the
 * ring was full, is woken once half of it is free (ring_main). */
static void ring_take(ring *g)
{
    pthread_mutex_lock(&g->mu);
    g->taken++;
    if (g->produced - g->taken <= RING / 2)
        pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* Up to cap bytes of the chunk at the head of the ring, waiting for it. */
static long ring_read(td_reader *r, char *buf, size_t cap, td_error *err)
{
    ring *g = r->ring;
    pthread_mutex_lock(&g->mu);
    while (g->produced == g->taken && !g->done)
        pthread_cond_wait(&g->cv, &g->mu);
    if (g->produced == g->taken) {
        int rc = g->rc;
        pthread_mutex_unlock(&g->mu);
        if (rc < 0 && err)
            *err = g->err;
        return rc;
    }
    pthread_mutex_unlock(&g->mu);
    /* Chunk taken is the reader's until it lets go of it below. */
    unsigned k = (unsigned)(g->taken % RING);
    size_t n = g->len[k] - g->rpos;
    if (n > cap)
        n = cap;
    memcpy(buf, g->slot[k] + HEAD + g->rpos, n);
    g->rpos += n;
    g->consumed = g->consumed_at[k];
    if (g->rpos == g->len[k]) {
        g->rpos = 0;
        ring_take(g);
    }
    return (long)n;
}

/* Lets go of the chunk the scanner held as its window. */
static void ring_release(ring *g)
{
    if (!g->held)
        return;
    g->held = false;
    g->rpos = 0;
    ring_take(g);
}

void td_reader_read_ahead(td_reader *r)
{
    r->ahead = 1;
}

void td_reader_inline(td_reader *r)
{
    r->in_caller = 1;
}

/* Read by a thread of its own: compressed input (unless in_caller), or
 * plain input asked to. */
static bool threaded(const td_reader *r)
{
    return (r->comp != TD_COMP_NONE && !r->in_caller) || r->ahead;
}

long td_reader_swap(td_reader *r, const char *left, size_t nleft, char **buf, td_error *err)
{
    if (r->map)
        return map_swap(r, left, nleft, buf, err);
    if (!threaded(r))
        return TD_READER_NO_SWAP;
    if (!r->ring && !r->ring_failed) {
        int rc = ring_start(r, err);
        if (rc < 0)
            return rc;
    }
    ring *g = r->ring;
    if (!g)
        return TD_READER_NO_SWAP;
    if (!buf) {
        ring_release(g);
        return 0;
    }
    uint64_t want = g->taken + (g->held ? 1 : 0);
    pthread_mutex_lock(&g->mu);
    while (g->produced <= want && !g->done)
        pthread_cond_wait(&g->cv, &g->mu);
    if (g->produced <= want) {
        int rc = g->rc;
        pthread_mutex_unlock(&g->mu);
        if (rc < 0 && err)
            *err = g->err;
        return rc; /* the end, or the error; the window stays */
    }
    pthread_mutex_unlock(&g->mu);
    /* Chunk want is the reader's until it is released. */
    unsigned k = (unsigned)(want % RING);
    size_t start = HEAD + (g->held ? 0 : g->rpos);
    if (nleft > start)
        return TD_READER_NO_SWAP;
    char *dst = g->slot[k] + start - nleft;
    if (nleft)
        memmove(dst, left, nleft); /* left may be in the chunk held until now */
    long n = (long)(g->len[k] - (start - HEAD));
    g->consumed = g->consumed_at[k];
    ring_release(g); /* the window before, if a chunk */
    g->held = true;
    g->rpos = 0;
    *buf = dst;
    return n;
}

long td_reader_read(td_reader *r, char *buf, size_t cap, td_error *err)
{
    if (cap > ((size_t)1 << 30))
        cap = (size_t)1 << 30;
    if (r->map)
        return map_read(r, buf, cap);
    if (threaded(r)) {
        if (!r->ring && !r->ring_failed) {
            int rc = ring_start(r, err);
            if (rc < 0)
                return rc;
        }
        return r->ring ? ring_read(r, buf, cap, err) : read_decoded(r, buf, cap, err);
    }
    return read_decoded(r, buf, cap, err);
}

td_compression td_reader_compression(const td_reader *r)
{
    return r->comp;
}

uint64_t td_reader_file_bytes(const td_reader *r)
{
    return r->file_bytes;
}

uint64_t td_reader_consumed(const td_reader *r)
{
    return r->ring ? r->ring->consumed : r->consumed;
}

int td_reader_seek(td_reader *r, uint64_t off, td_error *err)
{
    if (r->comp != TD_COMP_NONE)
        return td_fail(err, TD_EUSAGE, r->path, "cannot seek in compressed input");
    if (r->map) {
        r->map_pos = off < r->map_len ? (size_t)off : r->map_len;
        r->consumed = r->map_pos;
        return 0;
    }
    if (r->ring)
        return td_fail(err, TD_EUSAGE, r->path, "cannot seek once read ahead");
    if (lseek(r->fd, (off_t)off, SEEK_SET) < 0)
        return td_fail(err, TD_EIO, r->path, "seek failed: %s", strerror(errno));
    r->in_pos = r->in_len = 0;
    r->in_eof = 0;
    r->consumed = off; /* the file's offset, as for a mapping */
    return 0;
}

void td_reader_close(td_reader *r)
{
    if (!r)
        return;
    ring_stop(r);
    if (r->map) {
        map_unregister(r->map_slot);
        munmap((void *)r->map, r->map_len);
    }
    free(r->bridge);
    free(r->z);
    ZSTD_freeDStream(r->zs);
    if (r->fd >= 0)
        close(r->fd);
    free(r->in);
    free(r);
}

const char *td_compression_name(td_compression c)
{
    return c == TD_COMP_GZIP ? "gzip" : c == TD_COMP_ZSTD ? "zstd" : "plain";
}
