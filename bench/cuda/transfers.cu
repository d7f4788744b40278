// transfers.cu -- CUDA's host-device copy bandwidth for the same table as offload-suite's transfer-bench:
// cudaMemcpy of GIB GiB (default 4) from and to pageable memory (malloc, touched), pinned memory (cudaMallocHost)
// and pageable memory registered with cudaHostRegister; best of 3 each, plus the cost of the registration itself.
//   nvcc -O3 -arch=sm_90 bench/cuda/transfers.cu -o transfers && ./transfers [GIB]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(2); } } while (0)

static void measure(const char *what, char *host, char *dev, size_t bytes) {
    double h2d = 1e30, d2h = 1e30;
    for (int r = 0; r < 3; r++) {
        double t = now();
        CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
        h2d = std::min(h2d, now() - t);
        t = now();
        CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
        d2h = std::min(d2h, now() - t);
    }
    printf("| CUDA cudaMemcpy H2D, %s | %.1f |\n", what, bytes / h2d / 1e9);
    printf("| CUDA cudaMemcpy D2H, %s | %.1f |\n", what, bytes / d2h / 1e9);
}

int main(int argc, char **argv) {
    double gib = argc > 1 ? atof(argv[1]) : 4.0;
    size_t bytes = (size_t)(gib * (double)(1ull << 30));
    char *dev;
    CHECK(cudaMalloc(&dev, bytes));
    char *pageable = (char *)malloc(bytes);
    memset(pageable, 1, bytes);
    printf("| CUDA copy of %.1f GiB (best of 3) | GB/s |\n|---|---:|\n", gib);
    measure("pageable", pageable, dev, bytes);
    double t = now();
    CHECK(cudaHostRegister(pageable, bytes, cudaHostRegisterDefault));
    double reg = now() - t;
    measure("pageable registered (cudaHostRegister)", pageable, dev, bytes);
    t = now();
    CHECK(cudaHostUnregister(pageable));
    double unreg = now() - t;
    printf("| cudaHostRegister / cudaHostUnregister of the buffer | %.3f s / %.3f s |\n", reg, unreg);
    free(pageable);
    char *pinned;
    CHECK(cudaMallocHost(&pinned, bytes));
    memset(pinned, 1, bytes);
    measure("pinned (cudaMallocHost)", pinned, dev, bytes);
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(dev));
    return 0;
}
