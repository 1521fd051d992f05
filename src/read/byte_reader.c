/*
 * A streaming source of bytes: plain, gzip or zstd, told apart by the first
 * bytes of the file, never by its name. It knows nothing of JSON.
 *
 * gzip goes through isa-l's inflater: on this project's traces it inflates
 * 3 to 4 times faster than zlib (bench/README.md); libdeflate is faster
 * still but needs the whole file and its whole output in memory.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <isa-l/igzip_lib.h>
#include <unistd.h>
#include <zstd.h>

#define INBUF (256u << 10)

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
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid distance";
    case ISAL_INVALID_WRAPPER: return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM: return "checksum mismatch";
    default: return "inflate failed";
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

long td_reader_read(td_reader *r, char *buf, size_t cap, td_error *err)
{
    if (cap > ((size_t)1 << 30))
        cap = (size_t)1 << 30;
    switch (r->comp) {
    case TD_COMP_GZIP:
        return read_gzip(r, buf, cap, err);
    case TD_COMP_ZSTD:
        return read_zstd(r, buf, cap, err);
    default:
        break;
    }
    if (r->in_pos >= r->in_len && !r->in_eof) {
        /* Plain input: read straight into the caller's buffer, no copy. */
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
    return r->consumed;
}

void td_reader_close(td_reader *r)
{
    if (!r)
        return;
    free(r->z);
    ZSTD_freeDStream(r->zs);
    if (r->fd >= 0)
        close(r->fd);
    free(r->in);
    free(r);
}
