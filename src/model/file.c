/* A file's events: who owns them (td_file_free), and how a file made
 * lazily gets them when first asked (td_file_events, through the hook its
 * maker registered in td_file.fill: store/ for a summary). */
#include "model/model.h"
#include "util/bigmem.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

/* td_file.bd (model.h): here, beside the file that owns it, so that
 * freeing a file calls nothing of the loader's. */
void td_bd_file_free(td_bd_file *bd)
{
    if (!bd)
        return;
    free(bd->ev);
    free(bd->sync);
    free(bd->steps);
    free(bd);
}

void td_file_free(td_file *f)
{
    if (!f)
        return;
    free(f->path);
    free(f->origin);
    free(f->device_name);
    free(f->format);
    free(f->proc_pid);
    free(f->proc_events);
    free(f->proc_names);
    td_strtab_free(f->names);
    td_strtab_free(f->cats);
    free(f->cat_counts);
    free(f->cat_dur);
    free(f->name_cats);
    free(f->rdelta);
    free(f->ev_cat);
    for (size_t b = 0; b < f->nevb && !f->ev_map; b++)
        if (f->evb_big)
            td_big_free(f->evb[b]);
        else
            free(f->evb[b]);
    free(f->evb);
    free(f->iters);
    free(f->step_at);
    free(f->step_iter);
    free(f->attr_op);
    free(f->attr_top);
    free(f->attr_ann);
    free(f->wait_in);
    free(f->wait_of);
    free(f->attr_call);
    free(f->attr_topc);
    free(f->attr_annc);
    free(f->op_name);
    free(f->op_parent);
    td_big_free(f->groups);
    td_big_free(f->lazy_mem);
    if (f->ev_map)
        munmap(f->ev_map, f->ev_map_len);
    td_bd_file_free(f->bd);
    td_strtab_free(f->shapes);
    free(f->op_shape);
    free(f->roof_ts);
    free(f->roof_end);
    free(f->roof_list);
    free(f->roof_lazy);
    free(f->bd_lazy);
    free(f->stk_of);
    free(f->stk_cpu);
    free(f->stk_parent);
    free(f->stk_name);
    td_tree_free(f->tree);
    free(f);
}

static pthread_mutex_t fill_lock = PTHREAD_MUTEX_INITIALIZER;

int td_file_events(const td_file *cf)
{
    /* Decoding fills in what f already means: the object is not const (every
     * td_file is malloc'd), only the callers' view of it. */
    td_file *f = (td_file *)cf;
    if (!f->fill) /* fixed once the file is made: no lock needed to read it */
        return 0;
    pthread_mutex_lock(&fill_lock);
    int rc = f->lazy_damaged ? TD_ETRACE : f->lazy ? f->fill(f) : 0;
    pthread_mutex_unlock(&fill_lock);
    return rc;
}

/* A summary's section kept packed (*lazy), decoded by fill once, under
 * the lock (fill is fixed once the file is made: read without it). */
static int section_fill(td_file *f, int (*fill)(td_file *), const int *damaged,
                        unsigned char *const *lazy)
{
    if (!fill)
        return 0;
    pthread_mutex_lock(&fill_lock);
    int rc = *damaged ? TD_ETRACE : *lazy ? fill(f) : 0;
    pthread_mutex_unlock(&fill_lock);
    return rc;
}

int td_file_roof(const td_file *cf)
{
    td_file *f = (td_file *)cf; /* as td_file_events */
    return section_fill(f, f->roof_fill, &f->roof_damaged, &f->roof_lazy);
}

int td_file_bd(const td_file *cf)
{
    td_file *f = (td_file *)cf; /* as td_file_events */
    return section_fill(f, f->bd_fill, &f->bd_damaged, &f->bd_lazy);
}

int td_roof_fail(td_error *err, int rc, const td_file *f)
{
    if (rc != TD_ETRACE)
        return td_fail(err, rc, f->path, "out of memory");
    return td_fail(err, rc, f->origin ? f->origin : f->path,
                   "damaged summary: a packed file does not decode");
}

int td_events_fail(td_error *err, int rc, const td_file *f)
{
    if (rc != TD_ETRACE)
        return td_fail(err, rc, f->path, "out of memory");
    return td_fail(err, rc, f->origin ? f->origin : f->path,
                   "damaged summary: the packed durations of %s do not decode", f->path);
}
