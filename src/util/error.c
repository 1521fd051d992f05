/* Error records and small helpers shared by every module. */
#include "util/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *td_version(void)
{
    return TD_VERSION;
}

const char *td_strerror(int code)
{
    switch (code) {
    case TD_OK:
        return "ok";
    case TD_EIO:
        return "input/output error";
    case TD_EPARSE:
        return "invalid JSON";
    case TD_ETRACE:
        return "not a usable trace";
    case TD_ENOMEM:
        return "out of memory";
    case TD_EUSAGE:
        return "bad argument";
    default:
        return "unknown error";
    }
}

static int vfail(td_error *err, int code, const char *path, int has_offset, uint64_t offset,
                 const char *fmt, va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    err->has_offset = has_offset;
    err->offset = offset;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return code;
}

int td_fail(td_error *err, int code, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, code, path, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

int td_fail_at(td_error *err, int code, const char *path, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, code, path, 1, offset, fmt, ap);
    va_end(ap);
    return code;
}

static int bad_size(td_error *err, const char *type, size_t size, size_t own)
{
    char init[64];
    size_t n = 0;
    for (; type[n] && n < sizeof init - 6; n++)
        init[n] = (char)toupper((unsigned char)type[n]);
    snprintf(init + n, sizeof init - n, "_INIT");
    if (size == 0)
        return td_fail(err, TD_EUSAGE, "", "%s.size is 0: the struct was not initialised (use %s)",
                       type, init);
    if (size > own)
        return td_fail(err, TD_EUSAGE, "",
                       "%s.size is %zu, larger than this library's %s (%zu bytes): the "
                       "program was built against a newer tracediff.h than libtracediff %s",
                       type, size, type, own, TD_VERSION);
    return td_fail(err, TD_EUSAGE, "",
                   "%s.size is %zu, the size of no version of %s (initialise it with %s)", type,
                   size, type, init);
}

int td_opts_take(void *dst, const void *opts, const void *dflt, size_t own, size_t align,
                 const char *type, td_error *err)
{
    memcpy(dst, dflt, own);
    memcpy(dst, &own, sizeof own);
    if (!opts)
        return 0;
    size_t size;
    memcpy(&size, opts, sizeof size);
    if (size <= sizeof size || size > own || size % align != 0)
        return bad_size(err, type, size, own);
    memcpy((char *)dst + sizeof size, (const char *)opts + sizeof size, size - sizeof size);
    return 0;
}

void *td_grow(void *ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return ptr;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem)
            return NULL;
        ncap *= 2;
    }
    void *np = realloc(ptr, ncap * elem);
    if (!np)
        return NULL;
    *cap = ncap;
    return np;
}

bool td_has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

bool td_has_ext(const char *s, const char *ext)
{
    size_t n = strlen(s), m = strlen(ext);
    return n > m && strcasecmp(s + n - m, ext) == 0;
}
