//! Every compile-time error message of the directives has a UI test here (`TRYBUILD=overwrite` regenerates the
//! `.stderr` files; review their diff like code). `pass/` holds programs that must compile and run.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/clause/*.rs");
    t.compile_fail("tests/ui/loop/*.rs");
    t.compile_fail("tests/ui/race/*.rs");
    t.compile_fail("tests/ui/atomic/*.rs");
    t.compile_fail("tests/ui/directive/*.rs");
    t.compile_fail("tests/ui/data/*.rs");
    // Ordinary-looking loops that race or read stale data if they compiled (see the header of each file).
    t.compile_fail("tests/ui/adversarial/*.rs");
    // Forms whose kernel would compute something else than the host code (or the sequential loop) does.
    t.compile_fail("tests/ui/meaning/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
