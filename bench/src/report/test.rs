use super::*;

fn rec(kernel: &str, variant: &str, checksum: &str, t: f64) -> Record {
    Record {
        kernel: kernel.to_owned(),
        group: "Stream".to_owned(),
        variant: variant.to_owned(),
        problem_size: 1000,
        reps: 10,
        checksum: checksum.to_owned(),
        time_median_s: t,
        times_s: vec![t],
        bytes_per_rep: 8000.0,
        tolerance: None,
        rel_tol: None,
    }
}

#[test]
fn check_flags_deterministic_mismatch_beyond_1e_10() {
    let rs = vec![
        rec("Stream_TRIAD", "seq", "1.0", 1.0),
        rec("Stream_TRIAD", "rayon", "1.00000000001", 0.5),
        rec("Stream_TRIAD", "c-omp", "1.000000001", 0.5),
    ];
    let c = check(&rs, "seq");
    assert_eq!(c[0].status, CheckStatus::Reference);
    assert_eq!(c[1].status, CheckStatus::Pass);
    assert_eq!(c[2].status, CheckStatus::Fail);
    assert_eq!(c[2].bound, 1e-10);
}

#[test]
fn reductions_get_the_reordering_bound() {
    let rs = vec![rec("Stream_DOT", "seq", "2.0", 1.0), rec("Stream_DOT", "rayon", "2.0000000000002", 1.0)];
    let c = check(&rs, "seq");
    assert_eq!(c[1].rule, "reordered-sum");
    assert_eq!(c[1].status, CheckStatus::Pass);
}

#[test]
fn different_sizes_are_not_compared() {
    let mut other = rec("Stream_ADD", "cuda", "1.0", 1.0);
    other.problem_size = 5;
    let rs = vec![rec("Stream_ADD", "seq", "1.0", 1.0), other];
    assert!(matches!(check(&rs, "seq")[1].status, CheckStatus::NotCompared(_)));
}

#[test]
fn merge_keeps_order_and_replaces_duplicates() {
    let a = ResultFile {
        schema: SCHEMA.to_owned(),
        source: "omp-bench".to_owned(),
        device: "cpu".to_owned(),
        size: "small".to_owned(),
        ceilings: vec![],
        results: vec![rec("Stream_ADD", "seq", "1.0", 1.0), rec("Stream_COPY", "seq", "2.0", 1.0)],
    };
    let mut b = a.clone();
    b.device = "gpu".to_owned();
    b.results = vec![rec("Stream_ADD", "cuda", "1.0", 0.1), rec("Stream_COPY", "seq", "3.0", 1.0)];
    let (m, notes) = merge(vec![a, b]);
    assert_eq!(m.results.len(), 3);
    assert_eq!(m.results[1].checksum, "3.0");
    assert_eq!(notes.len(), 1);
    assert_eq!(m.device, "cpu + gpu");
    assert_eq!(variants_of(&m.results), ["seq", "cuda"]);
}

#[test]
fn json_round_trips_and_rejects_other_schemas() {
    let f = ResultFile {
        schema: SCHEMA.to_owned(),
        source: "omp-bench".to_owned(),
        device: "cpu".to_owned(),
        size: "small".to_owned(),
        ceilings: vec![Ceiling { label: "copy".to_owned(), gbs: 10.0, variants: vec!["seq".to_owned()] }],
        results: vec![rec("Stream_ADD", "seq", "1.25", 1.0)],
    };
    let dir = std::env::temp_dir().join(format!("omp-bench-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("r.json");
    f.write(&p).unwrap();
    assert_eq!(ResultFile::read(&p).unwrap(), f);
    std::fs::write(&p, r#"{"schema":"x","source":"","device":"","size":"","results":[]}"#).unwrap();
    assert!(ResultFile::read(&p).is_err());
    let md = markdown::render(&f, &check(&f.results, "seq"), "seq", "seq");
    assert!(md.contains("| Stream_ADD |"));
    let plots = plot::write_plots(&f, "seq", &dir).unwrap();
    assert!(plots.iter().all(|p| std::fs::read_to_string(p).unwrap().contains("<svg")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gbs_uses_reps_and_median() {
    let r = rec("Stream_ADD", "seq", "1", 0.5);
    assert_eq!(r.gbs(), Some(8000.0 * 10.0 / 0.5 / 1e9));
}

#[test]
fn geomean_and_reference_choice() {
    let rs = vec![
        rec("Stream_ADD", "seq", "1", 1.0),
        rec("Stream_ADD", "rayon", "1", 0.25),
        rec("Stream_COPY", "seq", "1", 1.0),
        rec("Stream_COPY", "rayon", "1", 4.0),
    ];
    let (g, n) = geomean_ratio(&rs, "rayon", "seq").unwrap();
    assert!((g - 1.0).abs() < 1e-12 && n == 2);
    assert_eq!(checksum_reference(&rs, "cuda"), "seq");
    assert_eq!(checksum_reference(&rs[1..2], "cuda"), "cuda");
}
