//! Whole-agent golden cases: every object and config for realistic inputs.

mod support;

#[test]
fn render_cases() {
    support::run_area("render");
}
