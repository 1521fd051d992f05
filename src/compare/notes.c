/* The notes a comparison owes its reader (td_diff_side_note): worded here
 * once, printed by the CLI (and tracediff-mpi, which runs its handlers),
 * written into the HTML report and warned by the Python module. */
#include "util/util.h"

#include <stdio.h>

static size_t note_put(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static size_t note_put(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n > 0 ? (size_t)n : 0;
}

static const char *events(uint64_t n)
{
    return n == 1 ? "event" : "events";
}

/* Note k of the side's own (not of its files), or 0 when there is none. */
static size_t side_note(const td_side_notes *n, const td_set *set, const char *label, int k,
                        char *buf, size_t cap)
{
    switch (k) {
    case 0:
        return n->whole_trace ? note_put(buf, cap,
                                         "%s (%s) has no ProfilerStep: comparing the whole "
                                         "trace",
                                         label, td_set_path(set))
                              : 0;
    case 1:
        return n->unattributed
                   ? note_put(buf, cap,
                              "%s: %llu GPU %s (%.6g us) not attributed to an op: row %s; "
                              "see 'tracediff info' for why",
                              label, (unsigned long long)n->unattributed, events(n->unattributed),
                              n->unattributed_time, TD_UNATTRIBUTED)
                   : 0;
    case 2:
        return n->no_launch
                   ? note_put(buf, cap,
                              "%s: %llu GPU %s with no launch found (no iteration) left out; "
                              "see docs/numbers.md",
                              label, (unsigned long long)n->no_launch, events(n->no_launch))
                   : 0;
    case 3:
        return n->strict_dropped
                   ? note_put(
                         buf, cap,
                         "%s: --hta-strict: %llu GPU %s on stream 0 left out, as HTA does (the "
                         "default gives them their launch's iteration); see docs/numbers.md",
                         label, (unsigned long long)n->strict_dropped, events(n->strict_dropped))
                   : 0;
    case 4:
        if (n->no_modules && n->cpu_stacks)
            return note_put(buf, cap,
                            "%s: no nn.Module events: its CPU time is all in row %s; record "
                            "them with torch.profiler.profile(with_stack=True, with_modules=True); "
                            "see docs/stacks.md",
                            label, TD_UNATTRIBUTED);
        return n->no_modules
                   ? note_put(buf, cap,
                              "%s: no nn.Module events: rows by top op instead; record them "
                              "with torch.profiler.profile(with_stack=True, with_modules=True); "
                              "see docs/stacks.md",
                              label)
                   : 0;
    case 5:
        return n->stack_cut ? note_put(buf, cap,
                                       "%s: %llu %s %s with stacks deeper than %d frames: cut "
                                       "with a %s frame; see docs/stacks.md",
                                       label, (unsigned long long)n->stack_cut,
                                       n->cpu_stacks ? "CPU" : "GPU", events(n->stack_cut),
                                       TD_STACK_MAX_DEPTH, TD_STACK_CUT_FRAME)
                            : 0;
    }
    return 0;
}

/* Note k (0: skipped entries, 1: a byte order mark) of one file. */
static size_t file_note(const td_file_info *fi, int k, char *buf, size_t cap)
{
    if (k == 0 && fi->events_skipped)
        return note_put(
            buf, cap,
            "%s: %llu %s of traceEvents skipped (not objects, or a name, cat, ts or dur of "
            "the wrong type)",
            fi->path, (unsigned long long)fi->events_skipped,
            fi->events_skipped == 1 ? "entry" : "entries");
    if (k == 1 && fi->bom)
        return note_put(
            buf, cap,
            "%s: starts with a UTF-8 byte order mark (skipped; the JSON after it is read "
            "as usual)",
            fi->path);
    return 0;
}

size_t td_diff_side_note(const td_diff *diff, td_side side, const td_set *set, const char *label,
                         size_t i, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    const td_side_notes *n = td_diff_notes(diff, side);
    if (!n || !set)
        return 0;
    size_t len;
    for (int k = 0; k < 6; k++)
        if ((len = side_note(n, set, label, k, buf, cap)) && i-- == 0)
            return len;
    for (size_t f = 0; f < td_set_nfiles(set); f++) {
        td_file_info fi;
        if (td_set_file_info(set, f, &fi) < 0)
            continue;
        for (int k = 0; k < 2; k++)
            if ((len = file_note(&fi, k, buf, cap)) && i-- == 0)
                return len;
    }
    if (cap)
        buf[0] = '\0';
    return 0;
}
