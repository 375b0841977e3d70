//! The render crate's top-level modules form a graph without cycles: each module can be read,
//! tested and changed knowing only the modules below it (see `support/module_graph.rs`).

#[path = "support/module_graph.rs"]
mod module_graph;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use module_graph::{assert_acyclic, crate_paths, find_cycle};

#[test]
fn the_checker_sees_use_groups_and_finds_a_cycle() {
    let code = "use crate::{a::X, b, c::{d, e}};\nfn f() { crate::g::h(); }";
    assert_eq!(
        crate_paths(code).into_iter().collect::<Vec<_>>(),
        ["a", "b", "c", "g"]
    );
    let graph = BTreeMap::from([
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["c".to_owned()])),
        ("c".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]);
    assert_eq!(
        find_cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

#[test]
fn the_render_modules_have_no_cycles() {
    let graph = assert_acyclic(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph.contains_key("plan") && graph.contains_key("workloads"));
}
