use super::*;
use crate::kernels;
use crate::variant::{Rayon, Seq};

#[test]
fn size_parses_names_integers_and_floats() {
    assert_eq!(Size::parse("small"), Ok(Size::Small));
    assert_eq!(Size::parse("default").map(Size::target), Ok(DEFAULT_TARGET));
    assert_eq!(Size::parse("4e6"), Ok(Size::Target(4_000_000)));
    assert_eq!(Size::parse("1234"), Ok(Size::Target(1234)));
    assert!(Size::parse("0").is_err());
    assert!(Size::parse("1.5").is_err());
    assert!(Size::parse("big").is_err());
}

#[test]
fn median_of_odd_and_even_counts() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
}

#[test]
fn kernels_select_by_name_and_group_without_duplicates() {
    let all = kernels::all();
    let names = |v: Vec<KernelDef>| v.iter().map(|k| k.name).collect::<Vec<_>>();
    let sel = select_kernels(&all, &["Stream".to_owned(), "Stream_DOT".to_owned()]).unwrap();
    assert_eq!(names(sel), ["Stream_ADD", "Stream_COPY", "Stream_DOT", "Stream_MUL", "Stream_TRIAD"]);
    let sel = select_kernels(&all, &["Apps_FIR".to_owned()]).unwrap();
    assert_eq!(names(sel), ["Apps_FIR"]);
    assert_eq!(select_kernels(&all, &[]).unwrap().len(), all.len());
    assert!(select_kernels(&all, &["Stream_NOPE".to_owned()]).unwrap_err().contains("unknown"));
}

#[test]
fn run_records_every_repeat_and_the_tolerance() {
    let plan = Plan {
        kernels: select_kernels(&kernels::all(), &["Stream_DOT".to_owned(), "Basic_DAXPY".to_owned()]).unwrap(),
        variants: vec![&Seq, &Rayon],
        size: Size::Target(1000),
        reps: Some(2),
        repeats: 3,
        warmup: true,
        progress: false,
    };
    let (records, skipped) = run(&plan);
    assert!(skipped.is_empty());
    assert_eq!(records.len(), 4);
    for r in &records {
        assert_eq!(r.times_s.len(), 3);
        assert_eq!((r.problem_size, r.reps), (1000, 2));
        assert!(r.time_median_s > 0.0);
    }
    assert_eq!(records[0].tolerance.as_deref(), Some("reordered-sum"));
    assert_eq!(records[2].tolerance.as_deref(), Some("deterministic"));
    assert_eq!(records[2].rel_tol, Some(1e-10));
    assert_eq!(records[2].checksum, records[3].checksum);
}
