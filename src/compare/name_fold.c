/*
 * What a comparison's options select of a file's categories. Its rows group
 * names by td_name_key (model/name_norm.c).
 */
#include "compare/compare.h"

#include <stdlib.h>
#include <string.h>

uint64_t td_cat_mask(const td_file *f, const td_compare_opts *o)
{
    return td_cats_mask(f, o->categories, o->exclude_categories != 0);
}
