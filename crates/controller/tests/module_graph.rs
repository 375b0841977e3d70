//! The controller's top-level modules form a graph without cycles, in the layers lib.rs and
//! ARCHITECTURE.md describe: the shared context below the steps, the steps below `reconcile`.
//! The graph is read from the sources as render's test reads render's.

// The helpers are render's; this test uses some of them.
#[allow(dead_code)]
#[path = "../../render/tests/support/module_graph.rs"]
mod module_graph;

use std::collections::BTreeSet;
use std::path::Path;

use module_graph::assert_acyclic;

#[test]
fn the_controller_modules_have_no_cycles_and_keep_their_layers() {
    let graph = assert_acyclic(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let uses = |module: &str| -> BTreeSet<&str> {
        graph
            .get(module)
            .unwrap_or_else(|| panic!("no module {module}: {graph:?}"))
            .iter()
            .map(String::as_str)
            .collect()
    };
    let steps = ["inputs", "apply", "status", "events"];
    // The context is below every step and knows none of them.
    for module in steps.iter().chain(&["reconcile"]) {
        assert!(!uses("context").contains(module), "context uses {module}");
    }
    for step in steps {
        assert!(uses(step).contains("context"), "{step} takes the context");
        // Nothing but the crate root calls `reconcile`.
        assert!(!uses(step).contains("reconcile"), "{step} uses reconcile");
        assert!(!uses(step).contains("mappers"), "{step} uses the mappers");
    }
    for step in steps {
        assert!(uses("reconcile").contains(step), "reconcile calls {step}");
    }
    // The registry of watched kinds and the writer are below the steps and the mappers.
    for lower in ["watches", "writer"] {
        for upper in steps.iter().chain(&["mappers", "reconcile", "context"]) {
            assert!(!uses(lower).contains(upper), "{lower} uses {upper}");
        }
    }
    // The kubelet controller writes through the one writer.
    assert!(uses("kubelet").contains("writer"));
}
