/* SHA-256 (FIPS 180-4): the source files' hashes recorded in summaries, so
 * that `sha256sum FILE` can check them.
 *
 * OpenSSL's libcrypto does it with the CPU's SHA instructions where there
 * are some, several times faster than the portable code below (which took
 * two thirds of a summary's time): it is loaded at the first hash
 * (util/dl.h), not linked, and the portable code serves when it cannot be
 * loaded, or when TD_SHA256=builtin asks for it (tests). */
#include "util/util.h"
#include "util/sha256.h"
#include "util/dl.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The soname of the libcrypto this was compiled against, found by the build
 * (Makefile, setup.py); the development link name otherwise. */
#ifndef TD_CRYPTO_SONAME
#define TD_CRYPTO_SONAME "libcrypto.so"
#endif

/* The pointers have OpenSSL's own prototypes: a changed signature fails here. */
static struct {
    __typeof__(EVP_MD_CTX_new) *ctx_new;
    __typeof__(EVP_MD_CTX_free) *ctx_free;
    __typeof__(EVP_sha256) *sha256;
    __typeof__(EVP_DigestInit_ex) *init;
    __typeof__(EVP_DigestUpdate) *update;
    __typeof__(EVP_DigestFinal_ex) *final;
} evp;
static pthread_once_t evp_once = PTHREAD_ONCE_INIT;
static int evp_loaded;

static void evp_load(void)
{
    static const char *const names[] = {"EVP_MD_CTX_new",   "EVP_MD_CTX_free",
                                        "EVP_sha256",       "EVP_DigestInit_ex",
                                        "EVP_DigestUpdate", "EVP_DigestFinal_ex"};
    void *const slots[] = {&evp.ctx_new, &evp.ctx_free, &evp.sha256,
                           &evp.init,    &evp.update,   &evp.final};
    char problem[256];
    evp_loaded = td_dl_load(TD_CRYPTO_SONAME, names, slots, sizeof names / sizeof *names, NULL,
                            problem, sizeof problem);
}

/* A libcrypto context begun for SHA-256, or NULL (the portable code then). */
static void *evp_begin(void)
{
    const char *want = getenv("TD_SHA256");
    if (want && strcmp(want, "builtin") == 0)
        return NULL;
    pthread_once(&evp_once, evp_load);
    if (!evp_loaded)
        return NULL;
    EVP_MD_CTX *x = evp.ctx_new();
    if (x && evp.init(x, evp.sha256(), NULL) != 1) {
        evp.ctx_free(x);
        x = NULL;
    }
    return x;
}

const char *td_sha256_backend(void)
{
    td_sha256 c;
    td_sha256_init(&c);
    const char *b = c.evp ? "libcrypto" : "builtin";
    td_sha256_free(&c);
    return b;
}

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

/* A context begun: by libcrypto when lib and it loads, else portably. */
static void begin(td_sha256 *c, bool lib)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, iv, sizeof iv);
    c->len = 0;
    c->nbuf = 0;
    c->failed = 0;
    c->evp = lib ? evp_begin() : NULL;
}

void td_sha256_init(td_sha256 *c)
{
    begin(c, true);
}

void td_sha256_init_sized(td_sha256 *c, uint64_t bytes)
{
    begin(c, bytes >= TD_SHA256_LIB_MIN);
}

void td_sha256_free(td_sha256 *c)
{
    if (c->evp)
        evp.ctx_free(c->evp);
    c->evp = NULL;
}

void td_sha256_update(td_sha256 *c, const void *data, size_t n)
{
    const unsigned char *p = data;
    if (c->evp) {
        if (evp.update(c->evp, data, n) != 1) { /* never seen: no hash then */
            td_sha256_free(c);
            c->failed = 1;
        }
        return;
    }
    c->len += n;
    if (c->nbuf) {
        size_t k = 64 - c->nbuf < n ? 64 - c->nbuf : n;
        memcpy(c->buf + c->nbuf, p, k);
        c->nbuf += k;
        p += k;
        n -= k;
        if (c->nbuf < 64)
            return;
        block(c->h, c->buf);
        c->nbuf = 0;
    }
    for (; n >= 64; p += 64, n -= 64)
        block(c->h, p);
    memcpy(c->buf, p, n);
    c->nbuf = n;
}

static void hex_of(const unsigned char d[32], char out[65])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = '\0';
}

int td_sha256_hex(td_sha256 *c, char out[65])
{
    if (c->evp) {
        unsigned char d[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        int ok = evp.final(c->evp, d, &n) == 1 && n == 32;
        td_sha256_free(c);
        if (!ok)
            return -1;
        hex_of(d, out);
        return 0;
    }
    if (c->failed)
        return -1;
    uint64_t bits = c->len * 8;
    unsigned char pad[72] = {0x80};
    size_t padn = (c->nbuf < 56 ? 56 : 120) - c->nbuf;
    for (int i = 0; i < 8; i++)
        pad[padn + i] = (unsigned char)(bits >> (56 - 8 * i));
    td_sha256_update(c, pad, padn + 8);
    unsigned char d[32];
    for (int i = 0; i < 32; i++)
        d[i] = (unsigned char)(c->h[i / 4] >> (24 - 8 * (i % 4)));
    hex_of(d, out);
    return 0;
}
