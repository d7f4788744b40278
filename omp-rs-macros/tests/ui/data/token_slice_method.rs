// A halo exchange's host copy written as on plain slices: inside the block the buffers are mapping tokens, and the
// message names the host view to call the method on.
#[omp::directives]
fn exchange(n: usize, sendbuf: &mut [f64], recvbuf: &mut [f64]) {
    #[omp::target_data(map(alloc: sendbuf, recvbuf))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            sendbuf[i] = i as f64;
        }
        omp::target_update!(from: sendbuf, nowait);
        omp::taskwait!();
        recvbuf.copy_from_slice(sendbuf);
        omp::target_update!(to: recvbuf);
    }
}

fn main() {}
