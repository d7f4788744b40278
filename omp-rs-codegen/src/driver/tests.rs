//! Tests of the plan, of generic kernels and of the device lowering on the plans the macro walk makes
//! ([`collect_kernels`]): they live here so that the stages they test need not import the driver.

use crate::driver::expand::collect_kernels;

mod kernel {
    use super::collect_kernels;
    use crate::plan::kernel::KernelPlan;

    /// The plan of the one target region in `body` (a `#[omp::directives]` function's).
    fn plan(body: &str) -> KernelPlan {
        let f: syn::ItemFn = syn::parse_str(&format!("fn f(n: usize, m: usize, nr: usize, a: &[f64], t: &mut [f64]) {{ {body} }}"))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut plans = collect_kernels(&f, None);
        assert_eq!(plans.len(), 1, "one region");
        plans.remove(0)
    }

    #[test]
    fn column_major_writes_walk_outer_first_and_row_major_ones_do_not() {
        let region = |index: &str, body_loop: bool| {
            let inner = if body_loop { "let mut s = 0.0; for k in 0..n { s += a[k]; } " } else { "let s = a[0]; " };
            plan(&format!(
                "#[omp::target_teams_distribute_parallel_for(collapse(2))] for row in 0..n {{ for col in 0..m {{ {inner} t[{index}] = s; }} }}"
            ))
        };
        // laplace's form: the index moves by 1 with `row`, by `nr` with `col`.
        assert!(region("col * nr + row", false).lanes_follow_outer());
        assert!(region("row + 3 * col", false).lanes_follow_outer());
        // Row-major, or neither loop moving the index by 1, or a tiled body: the flat row-major walk.
        assert!(!region("row * m + col", false).lanes_follow_outer());
        assert!(!region("2 * row + nr * col", false).lanes_follow_outer());
        assert!(!region("col * nr + row", true).lanes_follow_outer());
        // One loop, or a step: no choice to make.
        let one = plan("#[omp::target_teams_distribute_parallel_for] for i in 0..n { t[i] = a[i]; }");
        assert!(!one.lanes_follow_outer());
        let stepped = plan(
            "#[omp::target_teams_distribute_parallel_for(collapse(2))] for row in (0..n).step_by(2) { for col in 0..m { t[col * nr + row] = a[0]; } }",
        );
        assert!(!stepped.lanes_follow_outer());
    }
}

mod generic {
    use super::collect_kernels;
    use crate::plan::generic::host_only_reason;

    /// Which generic bodies get kernels: literals every instance converts exactly do, anything whose meaning the
    /// device crate may not reproduce runs on the host with a reason that names it.
    #[test]
    fn host_only_reasons_name_the_call() {
        let reason = |body: &str| {
            let src = format!(
                "fn f<T: Copy>(x: &mut [T], y: &[T]) {{ #[omp::target_teams_distribute_parallel_for] for i in 0..x.len() {{ {body} }} }}"
            );
            let f: syn::ItemFn = syn::parse_str(&src).unwrap_or_else(|e| panic!("{e}"));
            let plans = collect_kernels(&f, None);
            assert_eq!(plans.len(), 1, "{body}");
            host_only_reason(&plans[0])
        };
        for ok in ["x[i] = y[i] * T::from(0.5f32);", "x[i] = y[i].max(y[0]) * T::from(3u8);", "x[i] = y[i].sqrt();"] {
            assert_eq!(reason(ok), None, "{ok}");
        }
        for (body, named) in [
            ("x[i] = y[i] * T::from(0.1);", "`T::from(0.1)`"),
            ("x[i] = y[i] * T::from(1.0f64);", "`T::from(1.0f64)`"),
            ("x[i] = T::from_f32(y[i]);", "`T::from_f32(y[i])`"),
            ("x[i] = twice(y[i]);", "`twice(y[i])`"),
            ("x[i] = y[i].norm();", "`norm`"),
            ("x[i] = T::ZERO;", "`T::ZERO`"),
        ] {
            let why = reason(body).unwrap_or_else(|| panic!("{body} should run on the host"));
            assert!(why.contains(named), "{body}: {why}");
        }
    }
}

mod device {
    use quote::quote;

    use super::collect_kernels;
    use crate::lower::device::kernel;
    use crate::plan::abi::SlotKind;
    use crate::plan::kernel::KernelPlan;

    /// The plans of the target regions of `body` (a `#[omp::directives]` function's).
    fn plans(body: &str) -> Vec<KernelPlan> {
        let src =
            format!("fn f(n: usize, m: usize, x: f64, y: f32, q: i32, a: &[f64], t: &mut [f64], u: &mut [u64], c: [f64; 3]) {{ {body} }}");
        let f: syn::ItemFn = syn::parse_str(&src).unwrap_or_else(|e| panic!("{e}"));
        collect_kernels(&f, None)
    }

    /// Every kind of kernel the device lowering prints: its parameters follow the plan's slot layout (the one the
    /// manifest carries and the host packs), and together the kernels use every kind of slot.
    #[test]
    fn device_parameters_follow_the_slot_layout() {
        let regions = [
            // value slots of each kind, a read-only array, a disjoint 1-D write
            "#[omp::target_teams_distribute_parallel_for] for i in 0..n { t[i] = a[i] * x + f64::from(y) + f64::from(q); }",
            // a collapsed nest whose body runs a loop: the tiled walk
            "#[omp::target_teams_distribute_parallel_for(collapse(2))] for i in 0..n { for j in 0..m { let mut s = 0.0; for k in 0..m { s += a[k]; } t[i * m + j] = s; } }",
            // a write at a sequential loop's stride: lattice terms
            "#[omp::target_teams_distribute_parallel_for] for i in 0..n { for r in 0..3 { t[i + r * n] = a[i]; } }",
            // atomics, a reduction, a by-value array
            "#[omp::target_teams_distribute_parallel_for(reduction(+: s))] for i in 0..n { #[omp::atomic] u[i % 4] += 1; s += a[i] * c[i % 3]; }",
        ];
        let mut seen: Vec<SlotKind> = Vec::new();
        for r in regions {
            let body = if r.contains("reduction") { format!("let mut s = 0.0f64; {r}") } else { r.to_string() };
            let plans = plans(&body);
            assert_eq!(plans.len(), 1, "{r}");
            let printed = kernel(&plans[0]);
            assert!(!printed.to_string().contains("internal error"), "{r}: {printed}");
            let slots = plans[0].slots();
            // The kernel inside `omp_device::kernel! { .. }` takes `_dyn` and one parameter per slot.
            let mac: syn::ItemMacro = syn::parse2(printed.clone()).unwrap_or_else(|e| panic!("{r}: {e}: {printed}"));
            let f: syn::ItemFn = syn::parse2(mac.mac.tokens).unwrap_or_else(|e| panic!("{r}: {e}"));
            assert_eq!(f.sig.inputs.len(), slots.len() + 1, "{r}: {}", quote!(#f));
            seen.extend(slots);
        }
        for kind in [
            SlotKind::Int,
            SlotKind::Float64,
            SlotKind::Float32,
            SlotKind::ArrayBase,
            SlotKind::ArrayLen,
            SlotKind::LoopFirst,
            SlotKind::LoopTrips,
            SlotKind::LoopStep,
            SlotKind::ReductionPartials,
            SlotKind::OwnerMode,
            SlotKind::OwnerOrigin,
            SlotKind::OwnerWidth,
            SlotKind::OwnerStride,
            SlotKind::OwnerInnerStride,
            SlotKind::OwnerInnerCount,
            SlotKind::WalkTileRows,
            SlotKind::WalkTilesPerRow,
            SlotKind::WalkTiles,
        ] {
            assert!(seen.contains(&kind), "no kernel above has a {kind:?} slot");
        }
    }
}
