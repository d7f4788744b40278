/* Data mapping for the c-omp-target variant (the csrc/omp/ kernels built with -DOMP_BENCH_TARGET by GCC's
 * offload compiler): omp-bench maps each kernel's arrays with these before it starts the timer and unmaps them
 * after it stopped, as RAJAPerf's Base_OpenMPTarget keeps its data on the device around the timed rep loop. */
#include <stddef.h>
#include <omp.h>

void ompbench_target_enter(const void *p, size_t bytes)
{
    const char *c = p;
#pragma omp target enter data map(to : c[0 : bytes])
}

void ompbench_target_exit(const void *p, size_t bytes, int copy_out)
{
    const char *c = p;
    if (copy_out) {
#pragma omp target exit data map(from : c[0 : bytes])
    } else {
#pragma omp target exit data map(release : c[0 : bytes])
    }
}

/* 1 when target regions run on the host (no offload device, or the library was built without offloading). */
int ompbench_target_on_host(void)
{
    int on_host = 1;
#pragma omp target map(from : on_host)
    on_host = omp_is_initial_device();
    return on_host;
}
