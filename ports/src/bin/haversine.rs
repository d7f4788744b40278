//! Haversine distance, ported from HeCBench `src/haversine-omp/` (`main.cpp`, `distance.cpp`, with `distance.h` of
//! `src/haversine-cuda/`; commit f27000a51) as written: `<file> <repeat>`; 2^21 city locations (latitude, longitude
//! per line) are read from the file and copied six times, each copy paired with one of six reference cities
//! (`double4` {lat, lon, ref lat, ref lon}, N = 6 * 2^21); the host computes the expected distances, then
//! `distance_device` holds `target data map(to: loc[0:n]) map(from: dist[0:n])` around `repeat` launches of one
//! `target teams distribute parallel for thread_limit(256)` computing the great-circle distance of each pair; `verify`
//! prints the largest difference from the host's distances.
//!
//!     cargo run --release -p omp-ports --bin haversine -- FILE REPEAT [CITIES]
//!
//! What had to change:
//! - The input. HeCBench runs `../geodesic-cuda/locations.txt`, which is a symbolic link to `geodesic-sycl`'s
//!   `locations.txt`, extracted from `locations.tar.gz`, a DVC-tracked file that is not in the git repository. So
//!   besides a file (read as the original reads it, `fscanf("%lf %lf\n")` up to 2^21 lines), FILE may be
//!   `@synthetic`: the port makes the text of a locations file itself, city k being the line `printf("%.3f %.3f\n",
//!   (k * 7919 % 180000) / 1000.0 - 90.0, (k * 104729 % 360000) / 1000.0 - 180.0)`, and parses it as it parses a
//!   file (the same awk one-liner makes the file for the original, so both read the same numbers:
//!   `awk 'BEGIN { for (k = 0; k < 2097152; k++) printf "%.3f %.3f\n", (k * 7919 % 180000) / 1000.0 - 90.0,
//!   (k * 104729 % 360000) / 1000.0 - 180.0 }' > locations.txt`).
//! - An optional third argument, the number of cities (the original hard-codes `num_cities = 2097152`): the panel run
//!   needs a small problem. Below 2^21 the reference cities are `(index_map[c] - 1) % num_cities` (the original's
//!   indices at the default size).
//! - A timer and a verdict. The OpenMP original times nothing and only prints `The maximum error in distance is
//!   ...`; here the loop of `repeat` launches inside the data region is timed (the span the CUDA version times, whose
//!   line `Average kernel execution time %f (s)` is printed) and `PASS` needs that maximum error below 1e-3 km (the
//!   device's libm may differ from the host's by some ulps, amplified by `asin` near 1 for nearly antipodal pairs).
//! - `DEGREE_TO_RADIAN` is the unparenthesised macro `M_PI / 180.0`, so `x * DEGREE_TO_RADIAN` is `x * PI / 180.0`
//!   and is written so. The original's Makefile compiles with `-ffast-math`; Rust has no such mode (IEEE
//!   operations as written).
//!
//! panel-args: @synthetic 2 32768
//! device-args: @synthetic 100
//! cpu-args: @synthetic 2

use std::f64::consts::PI;
use std::time::Instant;

/// `EARTH_RADIUS_KM`.
const EARTH_RADIUS_KM: f64 = 6371.0;

/// `double4` of `distance.h` (`x, y`: a city's latitude and longitude; `z, w`: the reference city's).
#[omp::declare_target]
#[derive(Clone, Copy, Default)]
struct Double4 {
    x: f64,
    y: f64,
    z: f64,
    w: f64,
}

/// `distance_device` of `distance.cpp`: `iteration` launches on the data region's copies; returns the seconds of
/// the loop of launches.
#[omp::directives]
fn distance_device(loc: &[Double4], dist: &mut [f64], n: usize, iteration: i32) -> f64 {
    let seconds: f64;
    #[omp::target_data(map(to: loc), map(from: dist))]
    {
        let start = Instant::now();
        for _ in 0..iteration {
            #[omp::target_teams_distribute_parallel_for(thread_limit(256))]
            for p in 0..n {
                let ay = loc[p].x * PI / 180.0; // a_lat
                let ax = loc[p].y * PI / 180.0; // a_lon
                let by = loc[p].z * PI / 180.0; // b_lat
                let bx = loc[p].w * PI / 180.0; // b_lon

                // haversine formula
                let x = (bx - ax) / 2.0;
                let y = (by - ay) / 2.0;
                let sinysqrd = y.sin() * y.sin();
                let sinxsqrd = x.sin() * x.sin();
                let scale = ay.cos() * by.cos();
                dist[p] = 2.0 * EARTH_RADIUS_KM * (sinysqrd + sinxsqrd * scale).sqrt().asin();
            }
        }
        seconds = start.elapsed().as_secs_f64();
    }
    println!("Average kernel execution time {:.6} (s)", (seconds as f32) / iteration as f32);
    seconds
}

/// `verify`: the largest difference from the expected distances.
fn verify(size: usize, output: &[f64], expected_output: &[f64]) -> f64 {
    let mut error_rate = 0.0;
    for i in 0..size {
        if (output[i] - expected_output[i]).abs() > error_rate {
            error_rate = (output[i] - expected_output[i]).abs();
        }
    }
    println!("The maximum error in distance is {error_rate:.6}");
    error_rate
}

/// The text of the `@synthetic` locations file (see the header).
fn synthetic_locations(num_cities: usize) -> String {
    let mut text = String::with_capacity(num_cities * 20);
    for k in 0..num_cities as i64 {
        let lat = (k * 7919 % 180000) as f64 / 1000.0 - 90.0;
        let lon = (k * 104729 % 360000) as f64 / 1000.0 - 180.0;
        text.push_str(&format!("{lat:.3} {lon:.3}\n"));
    }
    text
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 && args.len() != 4 {
        println!("Usage: {} <file> <repeat> [cities]", args[0]);
        std::process::exit(1);
    }
    let filename = &args[1];
    let repeat: i32 = args[2].parse().unwrap_or(0);

    let num_cities: usize = omp_ports::arg(3, 2097152); // 2 ** 21
    let num_ref_cities = 6; // bombay, melbourne, waltham, moscow, glasgow, morocco
    let index_map: [usize; 6] = [436483, 1952407, 627919, 377884, 442703, 1863423];
    let n = num_cities * num_ref_cities;

    println!("Reading city locations from file {filename}...");
    let text = if filename == "@synthetic" {
        synthetic_locations(num_cities)
    } else {
        match std::fs::read_to_string(filename) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("Error opening the file: {e}");
                std::process::exit(255);
            }
        }
    };

    let mut input: Vec<Double4> = vec![Double4::default(); n];
    let mut output: Vec<f64> = vec![0.0; n];
    let mut expected_output: Vec<f64> = vec![0.0; n];

    // while (fscanf(fp, "%lf %lf\n", &lat, &lon) != EOF) { ... if (city == num_cities) break; }
    let mut tokens = text.split_ascii_whitespace().map(|t| t.parse::<f64>());
    let mut city = 0;
    while city < num_cities {
        match (tokens.next(), tokens.next()) {
            (Some(Ok(lat)), Some(Ok(lon))) => {
                input[city].x = lat;
                input[city].y = lon;
                city += 1;
            }
            _ => break,
        }
    }

    // duplicate for "num_ref_cities"
    for c in 1..num_ref_cities {
        input.copy_within(0..num_cities, c * num_cities);
    }
    // each reference city is compared with 'num_cities' cities
    for c in 0..num_ref_cities {
        let index = (index_map[c] - 1) % num_cities;
        let (ref_lat, ref_lon) = (input[index].x, input[index].y);
        for j in c * num_cities..(c + 1) * num_cities {
            input[j].z = ref_lat;
            input[j].w = ref_lon;
        }
    }

    // run on the host for verification
    for i in 0..n {
        let a_lat = input[i].x;
        let a_lon = input[i].y;
        let b_lat = input[i].z;
        let b_lon = input[i].w;

        let ax = a_lon * PI / 180.0;
        let ay = a_lat * PI / 180.0;
        let bx = b_lon * PI / 180.0;
        let by = b_lat * PI / 180.0;

        // haversine formula
        let x = (bx - ax) / 2.0;
        let y = (by - ay) / 2.0;
        let sinysqrd = y.sin() * y.sin();
        let sinxsqrd = x.sin() * x.sin();
        let scale = ay.cos() * by.cos();
        expected_output[i] = 2.0 * EARTH_RADIUS_KM * (sinysqrd + sinxsqrd * scale).sqrt().asin();
    }

    let seconds = distance_device(&input, &mut output, n, repeat);

    let error = verify(n, &output, &expected_output);

    omp_ports::kernel_time(seconds);
    omp_ports::verdict(error < 1e-3);
}
