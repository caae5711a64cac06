#include "variationalize.h"
int vz_stage4_create(vz_del *del) { (void)del; return WB_ERR_INVALID; }
void vz_stage4_destroy(vz_del *del) { (void)del; }
int vz_stage4_step(vz_del *del, double *q2, double *v2) { (void)del, (void)q2, (void)v2; return WB_ERR_INVALID; }
