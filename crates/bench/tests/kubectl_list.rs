//! The README's recipe `kubectl get grafanaagents,metricsinstances,servicemonitors,secrets -A
//! -o yaml | agent-operator render -f -` at the scale the README advertises (issue 22, item
//! 10): kubectl prints one `List` document holding every object, 10k ServiceMonitors and
//! their agent, instances, namespaces and Secrets here. Each item carries the block-scalar
//! `last-applied-configuration` annotation `kubectl apply` leaves, which the fast reader does
//! not take, so the full parser reads the List; with its fixed limits (250k nodes) it refused
//! the whole document ("budget breached"), and render then had nothing to render.

use bench::generate::{Params, documents};
use render::manifest::{Loader, Severity};
use serde_json::{Value, json};

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
const PLACEHOLDER: &str = "LAST-APPLIED-PLACEHOLDER";

/// `kubectl get ... -o yaml` of `items`: one List, each item with its last-applied
/// annotation as the block scalar kubectl writes.
fn kubectl_list(items: Vec<Value>) -> String {
    let mut out = String::from("apiVersion: v1\nitems:\n");
    for mut item in items {
        let applied = serde_json::to_string(&item).expect("json");
        if let Some(meta) = item.get_mut("metadata").and_then(Value::as_object_mut) {
            let annotations = meta
                .entry("annotations")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .expect("annotations");
            annotations.insert(LAST_APPLIED.to_owned(), json!(PLACEHOLDER));
        }
        let mut text = String::new();
        render::yaml::write_sequence_item(&mut text, &item, 0);
        let line = text
            .lines()
            .find(|l| l.ends_with(PLACEHOLDER))
            .expect("the annotation line")
            .to_owned();
        let indent = line.len() - line.trim_start().len();
        let block = format!(
            "{}{LAST_APPLIED}: |\n{}{applied}",
            " ".repeat(indent),
            " ".repeat(indent + 2)
        );
        out.push_str(&text.replace(&line, &block));
    }
    out.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    out
}

#[test]
fn a_kubectl_list_of_10k_service_monitors_is_read_whole() {
    let p = Params::scaled(10_000, 22);
    let items = documents(&p);
    let count = items.len();
    let text = kubectl_list(items);
    assert!(
        text.contains(&format!("{LAST_APPLIED}: |\n")),
        "the block scalar is written"
    );
    let mut loader = Loader::new();
    loader.add_source("-", &text);
    let loaded = loader.finish();
    let errors: Vec<String> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .take(5)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // Every object of a kind the operator reads is in the store (namespaces included).
    assert_eq!(loaded.accepted, count, "{} bytes of List", text.len());
}
