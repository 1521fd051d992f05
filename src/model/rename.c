/*
 * The user's own name rules (--rename 'REGEX=REPLACEMENT', docs/numbers.md,
 * "Your own rules"): each a PCRE2 expression and its replacement, applied
 * in order to every occurrence in a name before the built-in folding and
 * the short names, so that names the rules make equal share a row.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "model/model.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RENAME_MAX_PATTERN 4096
#define RENAME_MATCH_LIMIT 1000000u

typedef struct rename_rule {
    char *text; /* the rule as given */
    char *repl; /* its replacement (after the '=') */
    pcre2_code *code;
} rename_rule;

struct td_renames {
    size_t n, cap;
    rename_rule *rules;
    pcre2_match_context *mc;
};

/* The '=' that ends the expression: the first not escaped by a backslash
 * (so an expression matches '=' as \=). NULL when there is none. */
static const char *rule_split(const char *rule)
{
    for (const char *p = rule; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p == '=')
            return p;
    }
    return NULL;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* What is wrong with repl for code, in a static buffer ("refers to $3,
 * which the expression does not have"), or NULL: every $ is $$, $N, ${N},
 * $name or ${name} of a group the expression has. */
static const char *repl_problem(const pcre2_code *code, const char *repl)
{
    static _Thread_local char why[160];
    uint32_t groups = 0;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &groups);
    for (const char *p = repl; *p; p++) {
        if (*p != '$')
            continue;
        if (p[1] == '$') {
            p++;
            continue;
        }
        const char *q = p + 1, *end;
        bool brace = *q == '{';
        if (brace)
            q++;
        end = q;
        while (name_char(*end))
            end++;
        size_t n = (size_t)(end - q);
        if (n == 0 || (brace && *end != '}')) {
            snprintf(why, sizeof why,
                     "has a $ at byte %zu that is not $$, $N, ${N}, $name or ${name}",
                     (size_t)(p - repl));
            return why;
        }
        bool ok;
        if (q[0] >= '0' && q[0] <= '9') {
            size_t d = 0;
            while (d < n && q[d] >= '0' && q[d] <= '9')
                d++;
            if (d < n && brace) {
                snprintf(why, sizeof why, "has ${%.*s}, which is neither a number nor a name",
                         (int)(n > 60 ? 60 : n), q);
                return why;
            }
            n = d; /* $1x is group 1, then "x" */
            end = q + d;
            ok = n <= 5 && strtoul(q, NULL, 10) <= groups;
        } else {
            char name[64];
            ok = n < sizeof name;
            if (ok) {
                memcpy(name, q, n);
                name[n] = '\0';
                ok = pcre2_substring_number_from_name(code, (PCRE2_SPTR)name) >= 0;
            }
        }
        if (!ok) {
            snprintf(why, sizeof why, "refers to %s%.*s%s, which the expression does not have",
                     brace ? "${" : "$", (int)(n > 60 ? 60 : n), q, brace ? "}" : "");
            return why;
        }
        p = brace ? end : end - 1;
    }
    return NULL;
}

int td_renames_add(td_renames **rs, const char *rule, td_error *err)
{
    const char *eq = rule_split(rule);
    if (!eq || eq == rule)
        return td_fail(err, TD_EUSAGE, "",
                       "--rename '%s': expected REGEX=REPLACEMENT (a '=' in REGEX is written \\=)",
                       rule);
    td_renames *r = *rs;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r || !(r->mc = pcre2_match_context_create(NULL))) {
            free(r);
            return td_fail(err, TD_ENOMEM, "", "out of memory");
        }
        pcre2_set_match_limit(r->mc, RENAME_MATCH_LIMIT);
        *rs = r;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 4;
        rename_rule *g = realloc(r->rules, cap * sizeof *g);
        if (!g)
            return td_fail(err, TD_ENOMEM, "", "out of memory");
        r->rules = g;
        r->cap = cap;
    }
    rename_rule *x = &r->rules[r->n];
    memset(x, 0, sizeof *x);
    size_t plen = (size_t)(eq - rule);
    char *pattern = malloc(plen + 1);
    x->text = strdup(rule);
    x->repl = strdup(eq + 1);
    if (!pattern || !x->text || !x->repl) {
        free(pattern);
        free(x->text);
        free(x->repl);
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    }
    memcpy(pattern, rule, plen);
    pattern[plen] = '\0';
    int code = 0;
    PCRE2_SIZE at = 0;
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    if (cc) {
        pcre2_set_max_pattern_length(cc, RENAME_MAX_PATTERN);
        x->code =
            pcre2_compile((PCRE2_SPTR)pattern, plen,
                          PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | PCRE2_NEVER_BACKSLASH_C,
                          &code, &at, cc);
        pcre2_compile_context_free(cc);
    }
    free(pattern);
    if (!x->code) {
        int rc;
        if (!cc || code == PCRE2_ERROR_NOMEMORY) {
            rc = td_fail(err, TD_ENOMEM, "", "out of memory");
        } else {
            PCRE2_UCHAR why[160];
            if (pcre2_get_error_message(code, why, sizeof why) < 0)
                snprintf((char *)why, sizeof why, "error %d", code);
            rc = td_fail(err, TD_EUSAGE, "",
                         "--rename '%s': not a valid regular expression: %s (at byte %zu)", rule,
                         (const char *)why, (size_t)at);
        }
        free(x->text);
        free(x->repl);
        return rc;
    }
    /* A replacement that names a group the expression lacks would fail on
     * the first name it matches: say so now, before any trace is read. */
    const char *bad = repl_problem(x->code, x->repl);
    if (bad) {
        pcre2_code_free(x->code);
        int rc = td_fail(err, TD_EUSAGE, "", "--rename '%s': the replacement %s", rule, bad);
        free(x->text);
        free(x->repl);
        return rc;
    }
    r->n++;
    return 0;
}

void td_renames_free(td_renames *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        pcre2_code_free(r->rules[i].code);
        free(r->rules[i].text);
        free(r->rules[i].repl);
    }
    free(r->rules);
    pcre2_match_context_free(r->mc);
    free(r);
}

size_t td_renames_count(const td_renames *r)
{
    return r ? r->n : 0;
}

/* One rule on s: *out the result (malloc'd) when it matched, else NULL. */
static int rename_one(const td_renames *r, const rename_rule *x, char **out, size_t *out_len,
                      const char *s, size_t len)
{
    *out = NULL;
    uint32_t opts =
        PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_UNSET_EMPTY | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(x->code, NULL);
    if (!md)
        return TD_ENOMEM;
    /* Most names do not match: find out without building anything. */
    int m = pcre2_match(x->code, (PCRE2_SPTR)s, len, 0, 0, md, r->mc);
    if (m < 0) {
        /* No match; a name the matcher gives up on (its limits) keeps its
         * name too. */
        pcre2_match_data_free(md);
        return 0;
    }
    size_t cap = len + 64;
    for (int round = 0; round < 2; round++) {
        char *buf = malloc(cap + 1);
        if (!buf) {
            pcre2_match_data_free(md);
            return TD_ENOMEM;
        }
        PCRE2_SIZE n = cap + 1;
        int rc =
            pcre2_substitute(x->code, (PCRE2_SPTR)s, len, 0, opts, md, r->mc, (PCRE2_SPTR)x->repl,
                             PCRE2_ZERO_TERMINATED, (PCRE2_UCHAR *)buf, &n);
        if (rc >= 0) {
            pcre2_match_data_free(md);
            if (rc == 0) { /* no match after all */
                free(buf);
                return 0;
            }
            *out = buf;
            *out_len = n;
            return 0;
        }
        free(buf);
        if (rc != PCRE2_ERROR_NOMEMORY || round) {
            /* The matcher's limits on this name: it keeps its name. */
            pcre2_match_data_free(md);
            return rc == PCRE2_ERROR_NOMEMORY ? TD_ENOMEM : 0;
        }
        cap = n; /* the length needed, NUL included */
    }
    pcre2_match_data_free(md);
    return 0;
}

int td_renames_apply(const td_renames *r, char **out, size_t *out_len, const char *s, size_t len)
{
    *out = NULL;
    *out_len = len;
    char *cur = NULL;
    for (size_t i = 0; r && i < r->n; i++) {
        char *next;
        size_t nl;
        int rc = rename_one(r, &r->rules[i], &next, &nl, cur ? cur : s, cur ? *out_len : len);
        if (rc < 0) {
            free(cur);
            return rc;
        }
        if (next) {
            free(cur);
            cur = next;
            *out_len = nl;
        }
    }
    *out = cur;
    return 0;
}
