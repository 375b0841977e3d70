//! Whole-agent golden cases: every object and config for realistic inputs.

mod support;

use support::Golden;

fn main() {
    support::run_tests("render", Golden::Everything, &[]);
}
