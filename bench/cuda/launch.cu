// launch.cu -- the CUDA side of offload-bench's launch rows: a one-thread kernel on resident data,
// launched back to back on a stream with one synchronisation at the end, and launched then
// synchronised each time (cudaDeviceSynchronize, as BabelStream times its kernels).
//   nvcc -O3 -arch=sm_90 bench/cuda/launch.cu -o launch && ./launch [launches [triad n [babel n]]]
// The last row is BabelStream's own timing of its CUDA triad (a host clock around each launch and its
// cudaDeviceSynchronize) on 2^25 doubles, beside offload-bench's row of the same name.
// Prints the same Markdown rows as offload-bench, for the same table.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void add_one(double *y) { y[0] += 1.0; }

__global__ void triad(double *a, const double *b, const double *c, double alpha, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + alpha * c[i];
}

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv) {
    int launches = argc > 1 ? atoi(argv[1]) : 20000;
    double *y;
    if (cudaMalloc(&y, 16 * sizeof(double)) != cudaSuccess) { fprintf(stderr, "cudaMalloc failed\n"); return 2; }
    cudaMemset(y, 0, 16 * sizeof(double));
    for (int i = 0; i < 100; i++) add_one<<<1, 1>>>(y);
    cudaDeviceSynchronize();
    std::vector<double> each(2000);
    for (auto &t : each) {
        double t0 = now();
        add_one<<<1, 1>>>(y);
        cudaDeviceSynchronize();
        t = now() - t0;
    }
    std::sort(each.begin(), each.end());
    double t0 = now();
    for (int i = 0; i < launches; i++) add_one<<<1, 1>>>(y);
    cudaDeviceSynchronize();
    double queued = (now() - t0) / launches;
    double h;
    cudaMemcpy(&h, y, sizeof h, cudaMemcpyDeviceToHost);
    if (h != 100 + 2000 + launches) { fprintf(stderr, "wrong count %f\n", h); return 1; }
    // Stream triad on 1e6 doubles (L2-resident on an H200), back to back, as RAJAPerf's rep loop.
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    double *a, *b, *c;
    cudaMalloc(&a, n * 8); cudaMalloc(&b, n * 8); cudaMalloc(&c, n * 8);
    cudaMemset(a, 0, n * 8); cudaMemset(b, 0, n * 8); cudaMemset(c, 0, n * 8);
    int reps = 2000, blocks = (int)((n + 255) / 256);
    for (int i = 0; i < 100; i++) triad<<<blocks, 256>>>(a, b, c, 0.5, n);
    cudaDeviceSynchronize();
    t0 = now();
    for (int i = 0; i < reps; i++) triad<<<blocks, 256>>>(a, b, c, 0.5, n);
    double enq = (now() - t0) / reps;
    cudaDeviceSynchronize();
    double triad_rep = (now() - t0) / reps;
    cudaFree(a); cudaFree(b); cudaFree(c);
    // BabelStream's timing: 2^25 doubles, a host clock around each kernel and its synchronisation.
    long nb = argc > 3 ? atol(argv[3]) : 1L << 25;
    cudaMalloc(&a, nb * 8); cudaMalloc(&b, nb * 8); cudaMalloc(&c, nb * 8);
    cudaMemset(a, 0, nb * 8); cudaMemset(b, 0, nb * 8); cudaMemset(c, 0, nb * 8);
    int bblocks = (int)((nb + 1023) / 1024);
    std::vector<double> babel(40);
    for (int i = 0; i < 5; i++) triad<<<bblocks, 1024>>>(a, b, c, 0.4, nb);
    cudaDeviceSynchronize();
    for (auto &t : babel) {
        double t1 = now();
        triad<<<bblocks, 1024>>>(a, b, c, 0.4, nb);
        cudaDeviceSynchronize();
        t = now() - t1;
    }
    std::sort(babel.begin(), babel.end());
    double med = babel[babel.size() / 2];
    printf("| CUDA: triad n=%ld, back to back (mean of %d reps, one sync) | %.2f µs per rep (launch calls alone %.2f µs) |\n", n, reps, triad_rep * 1e6, enq * 1e6);
    printf("| CUDA: BabelStream triad n=%ld, host clock around each kernel + cudaDeviceSynchronize (median of 40) | %.1f µs = %.0f GB/s |\n",
           nb, med * 1e6, 3.0 * 8.0 * nb / med / 1e9);
    printf("| CUDA: minimal kernel, launch + cudaDeviceSynchronize (median of 2000) | %.2f µs |\n", each[1000] * 1e6);
    printf("| CUDA: minimal kernel, queued back to back (mean of %d, one sync) | %.2f µs |\n", launches, queued * 1e6);
    return 0;
}
