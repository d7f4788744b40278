/* Fork/join cost of a parallel loop: many regions over a few elements (see src/bin/region_overhead.rs). */
#include <stdint.h>

#include "par.h"

void comp_region_overhead(double *y, int64_t n, int64_t regions)
{
    for (int64_t r = 0; r < regions; ++r) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            y[i] += 1.0;
        }
    }
}

/* The same loop as `steps` worksharing loops of one parallel region: a barrier after each, one fork. */
void comp_steps_in_region(double *y, int64_t n, int64_t steps)
{
PAR_REGION
    {
        for (int64_t r = 0; r < steps; ++r) {
FOR_IN_REGION
            for (int64_t i = 0; i < n; ++i) {
                y[i] += 1.0;
            }
        }
    }
}
