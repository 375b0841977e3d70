//! Labels and annotations of the generated workloads and pods (spec 3.2 and 3.5), and the
//! Kubernetes name rules the generated names must satisfy.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::desired::{
    AGENT_NAME_LABEL, MANAGED_BY_LABEL, MANAGED_BY_VALUE, PlanOptions, owner_reference,
};
use crate::discover::Hierarchy;

/// The shard a metrics pod belongs to (`"0"` for every other pod that has it).
pub const SHARD_LABEL: &str = "operator.agent.grafana.com/shard";
/// The replica whose Alloy cluster a clustered metrics pod belongs to (`spec.alloy.clustering`):
/// it selects the pods of one cluster for its StatefulSet and its peers' Service.
pub const CLUSTER_REPLICA_LABEL: &str = "operator.agent.grafana.com/replica";
/// Which subsystem a pod runs: `metrics`, `logs` or `integrations`.
pub const TYPE_LABEL: &str = "operator.agent.grafana.com/type";
/// The operator's version, on pods only: never in selectors nor on the workloads, so an
/// operator upgrade does not touch immutable fields.
pub const VERSION_LABEL: &str = "app.kubernetes.io/version";
/// The governing Service's own marker label.
pub const OPERATED_AGENT_LABEL: &str = "operated-agent";
/// The pod annotation that makes `kubectl logs/exec` pick the agent container.
pub const DEFAULT_CONTAINER_ANNOTATION: &str = "kubectl.kubernetes.io/default-container";
/// Annotations of the GrafanaAgent with this prefix are not copied to its workloads, so
/// that `kubectl apply` does not take ownership of (and prune) generated objects.
const KUBECTL_ANNOTATION_PREFIX: &str = "kubectl.kubernetes.io/";

/// The value of `--labels`-style maps, ordered.
pub type Labels = BTreeMap<String, String>;

/// upstream's `SanitizeVolumeName`: lowercase, every run of characters outside `[-a-z0-9]`
/// becomes `-`, at most 63 characters, no leading or trailing `-`.
pub fn sanitize_dns(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_run = false;
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('-');
            in_run = true;
        }
    }
    out.truncate(63);
    out.trim_matches('-').to_owned()
}

/// The selector labels of a pod with `extra` selector labels (spec 3.5): the operator's
/// identity labels, then `extra`, then `--labels`, later entries winning.
pub fn selector_labels(h: &Hierarchy, opts: &PlanOptions, extra: &Labels) -> Labels {
    let agent = h.agent_name();
    let mut labels = base_selector_labels(agent);
    labels.extend(extra.clone());
    labels.extend(opts.labels.clone());
    labels
}

fn base_selector_labels(agent: &str) -> Labels {
    Labels::from([
        (
            "app.kubernetes.io/name".to_owned(),
            "grafana-agent".to_owned(),
        ),
        ("app.kubernetes.io/instance".to_owned(), agent.to_owned()),
        ("grafana-agent".to_owned(), agent.to_owned()),
        (MANAGED_BY_LABEL.to_owned(), MANAGED_BY_VALUE.to_owned()),
        (AGENT_NAME_LABEL.to_owned(), agent.to_owned()),
    ])
}

/// The labels of a pod (spec 3.5): the version label, `podMetadata.labels`, the selector
/// labels, then `--labels`, later entries winning.
pub fn pod_labels(h: &Hierarchy, opts: &PlanOptions, extra: &Labels) -> Labels {
    let mut labels = Labels::from([(
        VERSION_LABEL.to_owned(),
        sanitize_dns(&opts.operator_version),
    )]);
    if let Some(meta) = &h.agent.spec.pod_metadata {
        labels.extend(meta.labels.clone());
    }
    let mut selector = base_selector_labels(h.agent_name());
    selector.extend(extra.clone());
    labels.extend(selector);
    labels.extend(opts.labels.clone());
    labels
}

/// The annotations of a pod: `podMetadata.annotations`, then the default-container one.
pub fn pod_annotations(h: &Hierarchy) -> Labels {
    let mut annotations = h
        .agent
        .spec
        .pod_metadata
        .as_ref()
        .map(|m| m.annotations.clone())
        .unwrap_or_default();
    annotations.insert(
        DEFAULT_CONTAINER_ANNOTATION.to_owned(),
        "grafana-agent".to_owned(),
    );
    annotations
}

/// The metadata of a StatefulSet, DaemonSet or Deployment named `name` whose pods carry
/// `pod_labels` (spec 3.2): the pod labels without the version label, the agent's
/// annotations without kubectl's, and the controller reference.
pub fn workload_metadata(h: &Hierarchy, name: &str, pod_labels: &Labels) -> ObjectMeta {
    let mut labels = pod_labels.clone();
    labels.remove(VERSION_LABEL);
    let annotations: Labels = h
        .agent
        .metadata
        .annotations
        .iter()
        .flatten()
        .filter(|(k, _)| !k.starts_with(KUBECTL_ANNOTATION_PREFIX))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    ObjectMeta {
        name: Some(name.to_owned()),
        namespace: Some(h.agent_namespace().to_owned()),
        labels: Some(labels),
        annotations: (!annotations.is_empty()).then_some(annotations),
        owner_references: Some(vec![owner_reference(&h.agent)]),
        ..Default::default()
    }
}

/// Why a generated or user-given name is not acceptable to the API server, if it is not.
/// The checks are Kubernetes' own (apimachinery `validation`).
pub mod rules {
    /// The longest StatefulSet name whose pods still get a valid `controller-revision-hash`
    /// label (the name plus `-` and a hash of up to 10 characters, within 63).
    pub const STATEFULSET_NAME_MAX: usize = 52;
    pub const DNS_LABEL_MAX: usize = 63;
    pub const DNS_SUBDOMAIN_MAX: usize = 253;
    pub const LABEL_VALUE_MAX: usize = 63;

    fn is_alnum(c: char) -> bool {
        c.is_ascii_lowercase() || c.is_ascii_digit()
    }

    /// RFC 1123 label: at most 63 of `[a-z0-9-]`, starting and ending alphanumeric.
    pub fn dns1123_label(s: &str) -> Result<(), String> {
        if s.is_empty() {
            return Err("must not be empty".to_owned());
        }
        if s.len() > DNS_LABEL_MAX {
            return Err(format!(
                "is {} characters long, at most {DNS_LABEL_MAX} are allowed",
                s.len()
            ));
        }
        let ok = s.chars().all(|c| is_alnum(c) || c == '-')
            && s.starts_with(is_alnum)
            && s.ends_with(is_alnum);
        if ok {
            Ok(())
        } else {
            Err("must consist of lower case alphanumeric characters or '-', and start and end with an alphanumeric character".to_owned())
        }
    }

    /// RFC 1035 label (Service names): an RFC 1123 label that starts with a letter.
    pub fn dns1035_label(s: &str) -> Result<(), String> {
        dns1123_label(s)?;
        if s.starts_with(|c: char| c.is_ascii_lowercase()) {
            Ok(())
        } else {
            Err("must start with a lower case letter".to_owned())
        }
    }

    /// RFC 1123 subdomain: at most 253 characters, dot-separated RFC 1123 labels.
    pub fn dns1123_subdomain(s: &str) -> Result<(), String> {
        if s.len() > DNS_SUBDOMAIN_MAX {
            return Err(format!(
                "is {} characters long, at most {DNS_SUBDOMAIN_MAX} are allowed",
                s.len()
            ));
        }
        let ok = !s.is_empty()
            && s.chars().all(|c| is_alnum(c) || c == '-' || c == '.')
            && s.starts_with(is_alnum)
            && s.ends_with(is_alnum);
        if ok {
            Ok(())
        } else {
            Err("must consist of lower case alphanumeric characters, '-' or '.', and start and end with an alphanumeric character".to_owned())
        }
    }

    /// A label value: empty, or at most 63 of `[A-Za-z0-9_.-]` starting and ending
    /// alphanumeric.
    pub fn label_value(s: &str) -> Result<(), String> {
        if s.len() > LABEL_VALUE_MAX {
            return Err(format!(
                "is {} characters long, at most {LABEL_VALUE_MAX} are allowed in a label value",
                s.len()
            ));
        }
        let alnum = |c: char| c.is_ascii_alphanumeric();
        let ok = s.is_empty()
            || (s
                .chars()
                .all(|c| alnum(c) || c == '-' || c == '_' || c == '.')
                && s.starts_with(alnum)
                && s.ends_with(alnum));
        if ok {
            Ok(())
        } else {
            Err("a label value must consist of alphanumeric characters, '-', '_' or '.', and start and end with an alphanumeric character".to_owned())
        }
    }

    /// An IANA service name (container and Service port names): at most 15 of `[a-z0-9-]`,
    /// at least one letter, no leading, trailing or doubled `-`.
    pub fn iana_svc_name(s: &str) -> Result<(), String> {
        let ok = !s.is_empty()
            && s.len() <= 15
            && s.chars().all(|c| is_alnum(c) || c == '-')
            && s.chars().any(|c| c.is_ascii_lowercase())
            && !s.starts_with('-')
            && !s.ends_with('-')
            && !s.contains("--");
        if ok {
            Ok(())
        } else {
            Err("a port name must be at most 15 lower case alphanumeric characters or '-', contain a letter, and not start, end or repeat '-'".to_owned())
        }
    }

    /// A label key: an optional DNS subdomain prefix and `/`, then a name of at most 63
    /// of `[A-Za-z0-9_.-]` starting and ending alphanumeric.
    pub fn label_key(s: &str) -> Result<(), String> {
        let (prefix, name) = match s.split_once('/') {
            Some((p, n)) => (Some(p), n),
            None => (None, s),
        };
        if let Some(p) = prefix {
            dns1123_subdomain(p).map_err(|e| format!("the prefix {p:?} {e}"))?;
        }
        if name.is_empty() {
            return Err("the name part must not be empty".to_owned());
        }
        label_value(name).map_err(|_| {
            "the name part must be at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character".to_owned()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::rules::*;
    use super::*;

    #[test]
    fn sanitize_dns_matches_upstream_examples() {
        assert_eq!(sanitize_dns("v0.44.8"), "v0-44-8");
        assert_eq!(sanitize_dns(""), "");
        assert_eq!(sanitize_dns("secret-My_Secret..x"), "secret-my-secret-x");
        assert_eq!(sanitize_dns("--a--"), "a");
        assert_eq!(sanitize_dns("v1.0.0+dirty"), "v1-0-0-dirty");
        let long = "a".repeat(70);
        assert_eq!(sanitize_dns(&long).len(), 63);
        // Truncation happens before trimming, so a '-' at position 63 is trimmed away.
        let cut = format!("{}.b", "a".repeat(62));
        assert_eq!(sanitize_dns(&cut), "a".repeat(62));
    }

    #[test]
    fn name_rules() {
        assert!(dns1123_label("grafana-agent").is_ok());
        assert!(dns1123_label("a.b").is_err());
        assert!(dns1123_label("-a").is_err());
        assert!(dns1123_label(&"a".repeat(64)).is_err());
        assert!(dns1035_label("1abc").is_err());
        assert!(dns1035_label("abc-operated").is_ok());
        assert!(dns1123_subdomain("a.b-c").is_ok());
        assert!(dns1123_subdomain("A").is_err());
        assert!(iana_svc_name("http-metrics").is_ok());
        assert!(iana_svc_name("8080").is_err());
        assert!(iana_svc_name("a-very-long-port-name").is_err());
        assert!(iana_svc_name("a--b").is_err());
        assert!(label_value("").is_ok());
        assert!(label_value("Ab_c.d-e").is_ok());
        assert!(label_value("a b").is_err());
        assert!(label_key("app.kubernetes.io/name").is_ok());
        assert!(label_key("plain").is_ok());
        assert!(label_key("Bad_Prefix/x").is_err());
        assert!(label_key("x/").is_err());
    }
}
