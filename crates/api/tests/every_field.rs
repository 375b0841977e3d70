//! Every field of every upstream kind survives a trip through our types: for each upstream CRD
//! we build an object with every property of its schema set (sample values by type), read it
//! into our Rust type, write it back, and compare.

use std::collections::BTreeSet;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

fn upstream(file: &str) -> CustomResourceDefinition {
    let path = format!("{}/tests/upstream_crds/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A value with every property of `s` set, none of them empty, false or zero.
fn sample(s: &JSONSchemaProps, depth: usize) -> Value {
    if s.x_kubernetes_int_or_string == Some(true) {
        return json!("8080");
    }
    if let Some(first) = s.enum_.as_ref().and_then(|e| e.first()) {
        return first.0.clone();
    }
    match s.type_.as_deref() {
        Some("string") => match s.format.as_deref() {
            Some("date-time") => json!("2024-01-02T03:04:05Z"),
            Some("byte") => json!("c2FtcGxl"),
            _ => json!("sample"),
        },
        Some("integer") => json!(3),
        Some("number") => json!(1.5),
        Some("boolean") => json!(true),
        Some("array") => match &s.items {
            Some(JSONSchemaPropsOrArray::Schema(items)) => json!([sample(items, depth + 1)]),
            _ => json!([]),
        },
        _ => {
            let mut m = Map::new();
            if depth < 12 {
                for (k, v) in s.properties.iter().flatten() {
                    m.insert(k.clone(), sample(v, depth + 1));
                }
                if let Some(JSONSchemaPropsOrBool::Schema(each)) = &s.additional_properties {
                    m.insert("key".into(), sample(each, depth + 1));
                }
            }
            if s.x_kubernetes_preserve_unknown_fields == Some(true) && m.is_empty() {
                m.insert("anything".into(), json!({"nested": [1, "two", null]}));
            }
            Value::Object(m)
        }
    }
}

/// How many leaf properties `s` declares (to the same depth [`sample`] fills).
fn count_properties(s: &JSONSchemaProps) -> usize {
    let nested = |s: &JSONSchemaProps| match &s.items {
        Some(JSONSchemaPropsOrArray::Schema(items)) => count_properties(items),
        _ => count_properties(s),
    };
    match &s.properties {
        Some(props) if !props.is_empty() => props.values().map(|p| nested(p).max(1)).sum(),
        _ => 1,
    }
}

fn count_leaves(v: &Value) -> usize {
    match v {
        Value::Object(m) if !m.is_empty() => m.values().map(count_leaves).sum(),
        Value::Array(a) if !a.is_empty() => a.iter().map(count_leaves).sum(),
        _ => 1,
    }
}

/// Paths of leaves present in `a` but missing or different in `b`.
fn lost(path: &str, a: &Value, b: Option<&Value>, out: &mut BTreeSet<String>) {
    match (a, b) {
        (Value::Object(am), Some(Value::Object(bm))) => {
            for (k, v) in am {
                lost(&format!("{path}.{k}"), v, bm.get(k), out);
            }
        }
        (Value::Array(aa), Some(Value::Array(ba))) => {
            for (i, v) in aa.iter().enumerate() {
                lost(&format!("{path}[{i}]"), v, ba.get(i), out);
            }
        }
        (Value::Object(am), None) if am.is_empty() => {}
        (a, Some(b)) if a == b => {}
        _ => {
            out.insert(path.to_owned());
        }
    }
}

/// Grafana Alloy's PodLogs CRD, beside the upstream ones.
const ALLOY_POD_LOGS: &str = "../alloy_crds/monitoring.grafana.com_podlogs.yaml";

fn round_trip<T: DeserializeOwned + Serialize>(file: &str) -> BTreeSet<String> {
    let crd = upstream(file);
    let version = &crd.spec.versions[0];
    let schema = version
        .schema
        .as_ref()
        .and_then(|s| s.open_api_v3_schema.as_ref())
        .expect("schema");
    let spec = schema.properties.as_ref().expect("props")["spec"].clone();
    let input = json!({
        "apiVersion": format!("{}/{}", crd.spec.group, version.name),
        "kind": crd.spec.names.kind,
        "metadata": {"name": "n", "namespace": "ns"},
        "spec": sample(&spec, 0),
    });
    let typed: T = serde_path_to_error::deserialize(input.clone())
        .unwrap_or_else(|e| panic!("{file}: {} at {}", e.inner(), e.path()));
    let back = serde_json::to_value(&typed).expect("serialize");
    let mut missing = BTreeSet::new();
    lost("", &input, Some(&back), &mut missing);
    // Guard against a vacuous comparison: the sample must set every property of the schema.
    let (leaves, declared) = (count_leaves(&input["spec"]), count_properties(&spec));
    assert!(
        leaves >= declared,
        "{file}: sample has {leaves} leaves for {declared} properties"
    );
    // Kubernetes 1.29 dropped `claims` from PVC resources (see upstream_schema.rs).
    missing.retain(|p| !p.contains("volumeClaimTemplate.spec.resources.claims"));
    missing
}

#[test]
fn every_field_of_every_kind_round_trips() {
    let mut problems = Vec::new();
    let mut check = |file: &str, missing: BTreeSet<String>| {
        problems.extend(missing.into_iter().map(|p| format!("{file}: {p}")));
    };
    check(
        "monitoring.grafana.com_grafanaagents.yaml",
        round_trip::<api::GrafanaAgent>("monitoring.grafana.com_grafanaagents.yaml"),
    );
    check(
        "monitoring.grafana.com_metricsinstances.yaml",
        round_trip::<api::MetricsInstance>("monitoring.grafana.com_metricsinstances.yaml"),
    );
    check(
        "monitoring.grafana.com_logsinstances.yaml",
        round_trip::<api::LogsInstance>("monitoring.grafana.com_logsinstances.yaml"),
    );
    check(
        "monitoring.grafana.com_podlogs.yaml",
        round_trip::<api::PodLogs>("monitoring.grafana.com_podlogs.yaml"),
    );
    // Alloy's PodLogs (v1alpha2), which our PodLogs CRD serves with its own schema: read
    // as our PodLogs, it is written back as the stored v1alpha1 and loses nothing else.
    let mut alloy = round_trip::<api::PodLogs>(ALLOY_POD_LOGS);
    assert!(
        alloy.remove(".apiVersion"),
        "v1alpha2 written back as v1alpha1"
    );
    check(ALLOY_POD_LOGS, alloy);
    check(
        "monitoring.grafana.com_integrations.yaml",
        round_trip::<api::Integration>("monitoring.grafana.com_integrations.yaml"),
    );
    check(
        "monitoring.coreos.com_servicemonitors.yaml",
        round_trip::<api::ServiceMonitor>("monitoring.coreos.com_servicemonitors.yaml"),
    );
    check(
        "monitoring.coreos.com_podmonitors.yaml",
        round_trip::<api::PodMonitor>("monitoring.coreos.com_podmonitors.yaml"),
    );
    check(
        "monitoring.coreos.com_probes.yaml",
        round_trip::<api::Probe>("monitoring.coreos.com_probes.yaml"),
    );
    check(
        "monitoring.coreos.com_scrapeconfigs.yaml",
        round_trip::<api::ScrapeConfig>("monitoring.coreos.com_scrapeconfigs.yaml"),
    );
    assert!(
        problems.is_empty(),
        "{} fields lost:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
