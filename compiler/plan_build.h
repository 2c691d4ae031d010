/* plan_build.h - a compiled graph as the model runtime's plan (plan_build.c, runtime/plan.h).
 *
 *     unsigned char *plan; size_t n;
 *     if (vta_plan_build(g, &acc, &plan, &n, &err)) ...    // acc may be NULL (CPU only)
 *     vta_model *m = vta_model_from_plan(plan, n, "model.vtab", fns, g->n_nodes, &err);
 *
 * Kernel k of the plan is node k's CPU kernel (vta_kernel_name); the plan's blobs are copied
 * out of g and acc, which may be freed afterwards.
 */
#ifndef VTA_COMPILER_PLAN_BUILD_H
#define VTA_COMPILER_PLAN_BUILD_H

#include "compiler/compiler.h"

int vta_plan_build(const vta_graph *g, const vta_bundle_acc *acc, unsigned char **bytes, size_t *size,
                   vta_error *err);

#endif
