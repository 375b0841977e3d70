//! Requests an API server answered, by verb and resource: testkube's counters, or
//! kube-apiserver's own `apiserver_request_total`, in one vocabulary (testkube's verbs:
//! server-side apply is a `patch`, POST a `create`, PUT an `update`).

use std::collections::BTreeMap;

use anyhow::{Context, Result};

/// Request counts by `(verb, resource)`; a subresource is `resource/subresource`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requests(pub BTreeMap<(String, String), u64>);

/// Verbs that change nothing.
const READS: &[&str] = &["get", "list", "watch"];

impl Requests {
    pub fn from_testkube(counts: BTreeMap<(String, String), u64>) -> Requests {
        Requests(counts)
    }

    /// Sums `apiserver_request_total` over codes, scopes and versions. Requests for
    /// non-resource URLs (`/metrics`, `/healthz`, discovery) are left out.
    pub fn from_apiserver_metrics(text: &str) -> Result<Requests> {
        let mut counts = BTreeMap::new();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("apiserver_request_total{") else {
                continue;
            };
            let (labels, value) = rest
                .rsplit_once("} ")
                .with_context(|| format!("unexpected metrics line {line:?}"))?;
            let labels = parse_labels(labels);
            let label = |name: &str| labels.get(name).map(String::as_str).unwrap_or_default();
            let resource = label("resource");
            if resource.is_empty() {
                continue;
            }
            let resource = match label("subresource") {
                "" => resource.to_owned(),
                sub => format!("{resource}/{sub}"),
            };
            let verb = match label("verb") {
                "POST" => "create".to_owned(),
                "PUT" => "update".to_owned(),
                "APPLY" => "patch".to_owned(),
                other => other.to_ascii_lowercase(),
            };
            let value: f64 = value
                .trim()
                .parse()
                .with_context(|| format!("unexpected value in {line:?}"))?;
            *counts.entry((verb, resource)).or_default() += value as u64;
        }
        Ok(Requests(counts))
    }

    /// The requests answered since `earlier`, zero entries left out.
    pub fn since(&self, earlier: &Requests) -> Requests {
        Requests(
            self.0
                .iter()
                .filter_map(|(key, &now)| {
                    let delta = now.saturating_sub(earlier.0.get(key).copied().unwrap_or(0));
                    (delta > 0).then(|| (key.clone(), delta))
                })
                .collect(),
        )
    }

    /// Takes away requests the benchmark made itself.
    pub fn without(mut self, verb: &str, resource: &str, count: u64) -> Requests {
        let key = (verb.to_owned(), resource.to_owned());
        if let Some(n) = self.0.get_mut(&key) {
            *n = n.saturating_sub(count);
            if *n == 0 {
                self.0.remove(&key);
            }
        }
        self
    }

    /// Only the requests that change something.
    pub fn writes(&self) -> Requests {
        Requests(
            self.0
                .iter()
                .filter(|((verb, _), _)| !READS.contains(&verb.as_str()))
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
        )
    }

    /// Leaves out one resource (on the control plane, kube-apiserver renews its own identity
    /// Lease every 10 s whatever the operator does).
    pub fn except_resource(&self, resource: &str) -> Requests {
        Requests(
            self.0
                .iter()
                .filter(|((_, r), _)| r != resource)
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
        )
    }

    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    /// `verb resource: n` entries, per `per` operations (two decimals), for a table cell.
    pub fn describe_per(&self, per: usize) -> String {
        if self.0.is_empty() {
            return "none".to_owned();
        }
        let per = per.max(1) as f64;
        self.0
            .iter()
            .map(|((verb, resource), n)| {
                let each = *n as f64 / per;
                if each.fract() == 0.0 {
                    format!("{verb} {resource}: {each:.0}")
                } else {
                    format!("{verb} {resource}: {each:.2}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `a="x",b="y"` into a map (Prometheus text format escapes: `\\`, `\"`, `\n`).
fn parse_labels(text: &str) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    let mut chars = text.chars().peekable();
    loop {
        let name: String = chars.by_ref().take_while(|&c| c != '=').collect();
        if name.is_empty() || chars.next() != Some('"') {
            break;
        }
        let mut value = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => value.push('\n'),
                    Some(other) => value.push(other),
                    None => break,
                },
                '"' => break,
                c => value.push(c),
            }
        }
        labels.insert(name.trim_start_matches(',').trim().to_owned(), value);
        if chars.peek() == Some(&',') {
            chars.next();
        }
    }
    labels
}

/// The sum of every sample of metric `name` in Prometheus text `text`.
pub fn metric_sum(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let rest = line.strip_prefix(name)?;
            let value = match rest.strip_prefix('{') {
                Some(labelled) => labelled.rsplit_once("} ")?.1,
                None => rest.strip_prefix(' ')?,
            };
            value.split_whitespace().next()?.parse::<f64>().ok()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apiserver_metrics_are_summed_by_verb_and_resource() {
        let text = r#"# HELP apiserver_request_total Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="secrets",scope="resource",subresource="",verb="APPLY",version="v1"} 3
apiserver_request_total{code="409",component="apiserver",dry_run="",group="",resource="secrets",scope="resource",subresource="",verb="APPLY",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="monitoring.grafana.com",resource="grafanaagents",scope="resource",subresource="status",verb="PATCH",version="v1alpha1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/metrics",verb="GET",version=""} 9
apiserver_request_total_other{verb="GET"} 1
"#;
        let requests = Requests::from_apiserver_metrics(text).unwrap();
        assert_eq!(
            requests.0,
            BTreeMap::from([
                (("patch".into(), "grafanaagents/status".into()), 2),
                (("patch".into(), "secrets".into()), 4),
            ])
        );
    }

    #[test]
    fn deltas_subtract_and_drop_zeros() {
        let key = |v: &str, r: &str| (v.to_owned(), r.to_owned());
        let before = Requests(BTreeMap::from([
            (key("get", "secrets"), 5),
            (key("patch", "servicemonitors"), 1),
        ]));
        let after = Requests(BTreeMap::from([
            (key("get", "secrets"), 5),
            (key("patch", "servicemonitors"), 4),
            (key("patch", "secrets"), 2),
        ]));
        let delta = after.since(&before).without("patch", "servicemonitors", 3);
        assert_eq!(delta.0, BTreeMap::from([(key("patch", "secrets"), 2)]));
        assert_eq!(delta.describe_per(2), "patch secrets: 1");
        assert_eq!(delta.writes().total(), 2);
    }

    #[test]
    fn metric_sums_cover_labelled_and_bare_samples() {
        let text = "# TYPE x counter\nx_total{controller=\"a\"} 2\nx_total{controller=\"b\"} 3\nx_total_other 7\ny 1\n";
        assert_eq!(metric_sum(text, "x_total"), 5.0);
        assert_eq!(metric_sum(text, "y"), 1.0);
        assert_eq!(metric_sum(text, "z"), 0.0);
    }
}
