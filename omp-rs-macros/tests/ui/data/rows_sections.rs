// An array of rows (`&[[f64; 3]]`, C's `double (*a)[3]`) in a data region is mapped whole, as its flat elements:
// a section there would count elements, not rows.
#[omp::directives]
fn section_in_a_data_region(a: &[[f64; 3]], out: &mut [f64]) {
    #[omp::target_data(map(to: a[0..2]), map(from: out))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..out.len() {
            out[i] = a[i][0];
        }
    }
}

#[omp::directives]
fn section_in_an_update(c: &mut [[f64; 3]]) {
    #[omp::target_data(map(tofrom: c))]
    {
        #[omp::target_teams_distribute_parallel_for(collapse(2))]
        for i in 0..c.len() {
            for j in 0..3 {
                c[i][j] += 1.0;
            }
        }
        omp::target_update!(from: c[0..1]);
    }
}

fn main() {}
