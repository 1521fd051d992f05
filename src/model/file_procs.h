/* Whole files loaded by child processes (file_procs.c). */
#ifndef TD_MODEL_FILE_PROCS_H
#define TD_MODEL_FILE_PROCS_H

#include "model/model.h"

/* Where task i's result goes: the loaded file (or NULL), its rc and error. */
typedef struct td_file_slot {
    td_file **file;
    int *rc;
    td_error *err;
} td_file_slot;

typedef struct td_file_tasks {
    size_t n;                        /* tasks */
    void (*run)(void *ud, size_t i); /* loads task i into its slot */
    td_file_slot (*slot)(void *ud, size_t i);
    void *ud;
    const size_t *order; /* the tasks in the order taken, largest first; NULL: 0, 1, ... */
} td_file_tasks;

/* Runs the tasks on `workers` processes: this one, which takes the first
 * task of the order, and workers - 1 forked children, each taking the next
 * task; a child sends each file back as
 * file_xfer.c's bytes in a memory file, which this process maps and uses in
 * place. A task whose child failed (killed, out of memory) is run again
 * here, so every slot ends filled as the run would fill it. 0 when done;
 * -1 when not even one child could be started (nothing run: use threads).
 * Only for a program that may fork: no other threads running, stdio
 * flushed or not shared. */
int td_file_tasks_fork(const td_file_tasks *t, int workers);

#endif
