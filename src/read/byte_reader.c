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
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <isa-l/igzip_lib.h>
#include <unistd.h>
#include <zstd.h>

#define INBUF (256u << 10)
#define CHUNK (128u << 10)
#define HEAD (64u << 10) /* room before a chunk's data for the scanner's unread bytes */
#define RING 8

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
};

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
        r->in_eof = 1;
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
    *out = r;
    return 0;
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
            r->in_eof = 1;
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

/* Read by a thread of its own: compressed input, or plain input asked to. */
static bool threaded(const td_reader *r)
{
    return r->comp == TD_COMP_GZIP || r->comp == TD_COMP_ZSTD || r->ahead;
}

long td_reader_swap(td_reader *r, const char *left, size_t nleft, char **buf, td_error *err)
{
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
    if (threaded(r)) {
        if (!r->ring && !r->ring_failed) {
            int rc = ring_start(r, err);
            if (rc < 0)
                return rc;
        }
        return r->ring ? ring_read(r, buf, cap, err) : read_decoded(r, buf, cap, err);
    }
    return read_plain(r, buf, cap, err);
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
    if (r->ring)
        return td_fail(err, TD_EUSAGE, r->path, "cannot seek once read ahead");
    if (lseek(r->fd, (off_t)off, SEEK_SET) < 0)
        return td_fail(err, TD_EIO, r->path, "seek failed: %s", strerror(errno));
    r->in_pos = r->in_len = 0;
    r->in_eof = 0;
    return 0;
}

void td_reader_close(td_reader *r)
{
    if (!r)
        return;
    ring_stop(r);
    free(r->z);
    ZSTD_freeDStream(r->zs);
    if (r->fd >= 0)
        close(r->fd);
    free(r->in);
    free(r);
}
