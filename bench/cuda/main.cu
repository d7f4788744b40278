// omp-bench-cuda: the CUDA C++ baseline of omp-bench. Runs the same kernels with the same
// sizes, reps, init and checksums as the Rust suite and prints the same JSON schema
// (omp-bench-results/1), so `omp-bench --merge rust.json,cuda.json` puts both in one table.
//
// Usage: omp-bench-cuda [--kernels K1,Group,...] [--size small|default|N] [--reps N]
//                       [--repeats N] [--no-warmup] [--ceiling-gbs X] [--json PATH] [--tiled]
// --tiled runs the kernels that have a tiled form (shared-memory tiles) as variant `cuda-tiled`.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "common.cuh"

namespace {

struct Options {
    std::vector<std::string> kernels;
    std::string size_arg = "default";
    int64_t target = DEFAULT_TARGET;
    int64_t reps = -1;
    int repeats = 1;
    bool warmup = true;
    std::string json;
    double ceiling_gbs = 0.0; // > 0: given, not measured
    bool tiled = false;       // run the kernels' tiled forms (variant `cuda-tiled`), skip the others
};

[[noreturn]] void usage(const char *why)
{
    std::fprintf(stderr,
                 "omp-bench-cuda: %s\n"
                 "usage: omp-bench-cuda [--kernels K1,Group,...] [--size small|default|N] [--reps N]\n"
                 "                      [--repeats N] [--no-warmup] [--ceiling-gbs X] [--json PATH] [--tiled]\n",
                 why);
    std::exit(2);
}

std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        if (comma == std::string::npos) comma = s.size();
        if (comma > start) out.push_back(s.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

Options parse(int argc, char **argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value for " + a).c_str());
            return argv[++i];
        };
        if (a == "--kernels") {
            o.kernels = split(value());
        } else if (a == "--size") {
            o.size_arg = value();
            if (o.size_arg == "default") {
                o.target = DEFAULT_TARGET;
            } else if (o.size_arg == "small") {
                o.target = SMALL_TARGET;
            } else {
                char *end = nullptr;
                double v = std::strtod(o.size_arg.c_str(), &end);
                if (*end != '\0' || !(v >= 1.0) || v != std::floor(v)) usage("--size takes small, default or N");
                o.target = static_cast<int64_t>(v);
            }
        } else if (a == "--reps") {
            o.reps = std::atoll(value().c_str());
            if (o.reps < 1) usage("--reps must be >= 1");
        } else if (a == "--repeats") {
            o.repeats = std::atoi(value().c_str());
            if (o.repeats < 1) usage("--repeats must be >= 1");
        } else if (a == "--no-warmup") {
            o.warmup = false;
        } else if (a == "--ceiling-gbs") {
            o.ceiling_gbs = std::atof(value().c_str());
            if (!(o.ceiling_gbs > 0.0)) usage("--ceiling-gbs must be > 0");
        } else if (a == "--json") {
            o.json = value();
        } else if (a == "--tiled") {
            o.tiled = true;
        } else {
            usage(("unknown argument " + a).c_str());
        }
    }
    return o;
}

std::vector<const KernelEntry *> registry()
{
    std::vector<const KernelEntry *> all;
    for (int i = 0; i < STREAM_COUNT; ++i) all.push_back(&STREAM_KERNELS[i]);
    for (int i = 0; i < BASIC_COUNT; ++i) all.push_back(&BASIC_KERNELS[i]);
    for (int i = 0; i < LCALS_COUNT; ++i) all.push_back(&LCALS_KERNELS[i]);
    for (int i = 0; i < POLYBENCH_COUNT; ++i) all.push_back(&POLYBENCH_KERNELS[i]);
    for (int i = 0; i < APPS_COUNT; ++i) all.push_back(&APPS_KERNELS[i]);
    return all;
}

std::vector<const KernelEntry *> select(const std::vector<std::string> &names)
{
    std::vector<const KernelEntry *> all = registry(), out;
    if (names.empty()) return all;
    for (const std::string &n : names) {
        bool hit = false;
        for (const KernelEntry *k : all) {
            if (n == k->name || n == k->group) {
                hit = true;
                bool dup = false;
                for (const KernelEntry *o : out) dup = dup || o == k;
                if (!dup) out.push_back(k);
            }
        }
        if (!hit) usage(("unknown kernel or group " + n).c_str());
    }
    return out;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

__global__ void copy_kernel(const double *src, double *dst, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) dst[i] = src[i];
}

// Device copy bandwidth: a 1-element-per-thread copy of 2 x 1 GiB, best of 20 (GB/s,
// read + write counted), the ceiling the GB/s of the kernels is compared with.
double measure_copy_gbs()
{
    const int64_t n = int64_t(1) << 27;
    DevBuf<double> src(n), dst(n);
    CUDA_CHECK(cudaMemset(src.p, 0, sizeof(double) * n));
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    float best_ms = 1e30f;
    for (int trial = 0; trial < 20; ++trial) {
        CUDA_CHECK(cudaEventRecord(e0));
        LAUNCH(copy_kernel, grid_for(n), BLOCK)(src.p, dst.p, n);
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        best_ms = ms < best_ms ? ms : best_ms;
    }
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    return 2.0 * 8.0 * n / (best_ms * 1e-3) / 1e9;
}

std::string json_escape(const std::string &s)
{
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    Options o = parse(argc, argv);
    std::vector<const KernelEntry *> kernels = select(o.kernels);

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    const bool measured = !(o.ceiling_gbs > 0.0);
    double ceiling = measured ? measure_copy_gbs() : o.ceiling_gbs;
    std::fprintf(stderr, "device %s, copy ceiling %.1f GB/s\n", prop.name, ceiling);

    std::string results;
    const char *variant = o.tiled ? "cuda-tiled" : "cuda";
    for (const KernelEntry *k : kernels) {
        Outcome (*run)(const Spec &) = o.tiled ? k->run_tiled : k->run;
        if (run == nullptr) continue;
        int64_t reps = o.reps > 0 ? o.reps : k->default_reps;
        if (o.warmup) (void)run(Spec{o.target, 1});
        std::vector<double> times;
        Outcome first{};
        for (int r = 0; r < o.repeats; ++r) {
            Outcome out = run(Spec{o.target, reps});
            times.push_back(out.seconds);
            if (r == 0) first = out;
        }
        char cks[64];
        rp_ld_format(&first.checksum, cks, sizeof(cks));
        // Tolerance rule as in the Rust registry: 1e-10, or 2(n + reps)u for reordered sums.
        double tol = 1e-10;
        if (k->reordered_sum) {
            double b = 2.0 * (static_cast<double>(first.problem_size) + reps) * (0x1p-53);
            tol = b > tol ? b : tol;
        }
        double med = median(times);
        std::string all_times;
        for (size_t i = 0; i < times.size(); ++i) {
            char buf[40];
            std::snprintf(buf, sizeof(buf), "%s%.9e", i ? ", " : "", times[i]);
            all_times += buf;
        }
        // The times list has no length limit, so the record is built in three pieces.
        char head[512], tail[256];
        std::snprintf(head, sizeof(head),
                      "    {\"kernel\": \"%s\", \"group\": \"%s\", \"variant\": \"%s\", "
                      "\"problem_size\": %lld, \"reps\": %lld, \"checksum\": \"%s\", "
                      "\"time_median_s\": %.9e, \"times_s\": [",
                      k->name, k->group, variant, static_cast<long long>(first.problem_size),
                      static_cast<long long>(reps), cks, med);
        std::snprintf(tail, sizeof(tail),
                      "], \"bytes_per_rep\": %.1f, \"tolerance\": \"%s\", \"rel_tol\": %.3e}",
                      first.bytes_per_rep, k->reordered_sum ? "reordered-sum" : "deterministic", tol);
        std::string rec = std::string(head) + all_times + tail;
        if (!results.empty()) results += ",\n";
        results += rec;
        std::fprintf(stderr, "%-24s %10lld %6lld  %12.6f ms  %s\n", k->name,
                     static_cast<long long>(first.problem_size), static_cast<long long>(reps), med * 1e3, cks);
    }

    char doc_head[1024];
    std::snprintf(doc_head, sizeof(doc_head),
                  "{\n  \"schema\": \"omp-bench-results/1\",\n  \"source\": \"omp-bench-cuda\",\n"
                  "  \"device\": \"%s (cc %d.%d)\",\n  \"size\": \"%s (target %lld)\",\n"
                  "  \"ceilings\": [{\"label\": \"%s\", "
                  "\"gbs\": %.3f, \"variants\": [\"%s\"]}],\n  \"results\": [\n",
                  json_escape(prop.name).c_str(), prop.major, prop.minor, json_escape(o.size_arg).c_str(),
                  static_cast<long long>(o.target),
                  measured ? "device copy kernel (CUDA, 2x1 GiB, best of 20)" : "given by --ceiling-gbs", ceiling, variant);
    std::string doc = std::string(doc_head) + results + "\n  ]\n}\n";
    if (o.json.empty()) {
        std::fputs(doc.c_str(), stdout);
    } else {
        FILE *f = std::fopen(o.json.c_str(), "w");
        if (!f) usage(("cannot write " + o.json).c_str());
        std::fputs(doc.c_str(), f);
        std::fclose(f);
        std::fprintf(stderr, "wrote %s\n", o.json.c_str());
    }
    return 0;
}
