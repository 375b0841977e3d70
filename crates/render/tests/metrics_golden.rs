//! Golden cases for the metrics agent.yml (`<agent>-config`): one folder per case under
//! `testdata/metrics/`, covering spec 4.2-4.10 and the upstream cases of spec 6.1/6.2.

mod support;

use std::collections::BTreeMap;
use std::io::Read;

use render::desired::{
    CONFIG_KEY, DesiredObject, GZIP_THRESHOLD, PlanOptions, SECRET_SIZE_LIMIT, Subsystem,
};
use render::manifest::Loader;
use render::output::plan_all;
use render::segments;
use support::Golden;

fn main() {
    support::run_tests(
        "metrics",
        Golden::ConfigOf(Subsystem::Metrics),
        &[
            (
                "a_config_above_100_kib_is_stored_gzipped",
                a_config_above_100_kib_is_stored_gzipped,
            ),
            (
                "a_small_config_is_stored_as_text",
                a_small_config_is_stored_as_text,
            ),
            (
                "a_large_config_is_stored_in_segments_an_edit_rewrites_one",
                a_large_config_is_stored_in_segments_an_edit_rewrites_one,
            ),
        ],
    );
}

/// An agent with one instance and `monitors` ServiceMonitors, the `edited`th (if any) with
/// another port.
fn many_monitors(monitors: usize, edited: Option<usize>) -> String {
    let mut text = String::from(
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: agent, namespace: operator}\nspec:\n  metrics:\n    instanceSelector: {}\n---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {name: primary, namespace: operator}\nspec:\n  serviceMonitorSelector: {}\n",
    );
    for i in 0..monitors {
        let port = if edited == Some(i) { "edited" } else { "web" };
        text.push_str(&format!(
            "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {{name: monitor-{i:04}, namespace: operator}}\nspec:\n  selector: {{matchLabels: {{app: app-{i}}}}}\n  endpoints:\n  - port: {port}\n"
        ));
    }
    text
}

/// The config Secrets of `agent-config` (its segments then the head, in plan order, each
/// with its `agent.yml` and `segments.json` bytes) and the rendered text.
struct Stored {
    secrets: Vec<(String, Data, Labels)>,
    text: String,
}

/// A Secret's data, its values decoded.
type Data = BTreeMap<String, Vec<u8>>;
type Labels = BTreeMap<String, String>;

fn config_secrets(monitors: usize, edited: Option<usize>) -> Stored {
    let mut loader = Loader::new();
    loader.add_source("generated.yaml", &many_monitors(monitors, edited));
    let plans = plan_all(&loader.finish().store, &PlanOptions::default(), None);
    let plan = &plans[0];
    assert!(plan.rejections.is_empty(), "{:?}", plan.rejections);
    let text = plan
        .configs
        .iter()
        .find(|c| c.secret_name == "agent-config")
        .expect("metrics config")
        .text
        .as_str()
        .to_owned();
    let secrets = plan
        .objects
        .iter()
        .filter_map(|o| match &o.object {
            DesiredObject::Secret(s) if o.name().starts_with("agent-config") => Some((
                o.name().to_owned(),
                s.data
                    .iter()
                    .flatten()
                    .map(|(k, v)| (k.clone(), v.0.clone()))
                    .collect(),
                s.metadata.labels.clone().unwrap_or_default(),
            )),
            _ => None,
        })
        .collect();
    Stored { secrets, text }
}

impl Stored {
    fn head(&self) -> &BTreeMap<String, Vec<u8>> {
        &self
            .secrets
            .iter()
            .find(|(name, _, _)| name == "agent-config")
            .expect("the head")
            .1
    }

    /// The config as the loader assembles it from the Secrets.
    fn assembled(&self) -> String {
        let text = |data: &BTreeMap<String, Vec<u8>>| {
            segments::decode(&data[CONFIG_KEY]).expect("decodes")
        };
        let head = self.head();
        let Some(manifest) = head.get(segments::MANIFEST_KEY) else {
            return text(head);
        };
        let manifest = segments::parse_manifest("agent-config", manifest).expect("manifest");
        let texts: BTreeMap<&str, String> = self
            .secrets
            .iter()
            .map(|(name, data, _)| (name.as_str(), text(data)))
            .collect();
        segments::assemble(&text(head), &manifest, |n| texts.get(n).map(String::as_str))
            .expect("assembles")
    }
}

fn a_config_above_100_kib_is_stored_gzipped() {
    let stored = config_secrets(100, None);
    assert!(
        stored.text.len() > GZIP_THRESHOLD,
        "{} bytes",
        stored.text.len()
    );
    for (name, data, _) in &stored.secrets {
        assert_eq!(&data[CONFIG_KEY][..2], &[0x1f, 0x8b], "gzip magic: {name}");
    }
    let mut decompressed = String::new();
    flate2::read::GzDecoder::new(stored.head()[CONFIG_KEY].as_slice())
        .read_to_string(&mut decompressed)
        .expect("valid gzip");
    assert!(stored.text.starts_with(&decompressed));
    assert_eq!(stored.assembled(), stored.text);
    assert!(
        stored
            .text
            .contains("job_name: serviceMonitor/operator/monitor-0099/0")
    );
}

fn a_small_config_is_stored_as_text() {
    let stored = config_secrets(2, None);
    assert!(stored.text.len() < GZIP_THRESHOLD);
    assert_eq!(stored.secrets.len(), 1);
    assert_eq!(
        stored.head().keys().collect::<Vec<_>>(),
        [CONFIG_KEY],
        "no manifest"
    );
    assert_eq!(stored.head()[CONFIG_KEY], stored.text.as_bytes());
}

/// 3000 monitors, 3 MB of agent.yml: many segment Secrets, each within a Secret's limit,
/// labelled with their head and planned before it; they assemble back to the config. An
/// edit of one monitor changes one segment and the head's manifest, nothing else.
fn a_large_config_is_stored_in_segments_an_edit_rewrites_one() {
    let stored = config_secrets(3000, None);
    assert!(stored.text.len() > 3_000_000, "{}", stored.text.len());
    let count = stored.secrets.len();
    assert!(count > 10, "{count} Secrets");
    let (last, _, _) = &stored.secrets[count - 1];
    assert_eq!(last, "agent-config", "the head comes after its segments");
    for (name, data, labels) in &stored.secrets[..count - 1] {
        assert_eq!(
            labels.get(segments::SEGMENT_OF_LABEL).map(String::as_str),
            Some("agent-config"),
            "{name}"
        );
        assert_eq!(data.keys().collect::<Vec<_>>(), [CONFIG_KEY], "{name}");
    }
    for (name, data, _) in &stored.secrets {
        let held: usize = data.values().map(Vec::len).sum();
        assert!(held <= SECRET_SIZE_LIMIT, "{name}: {held}");
    }
    assert_eq!(stored.assembled(), stored.text);

    let edited = config_secrets(3000, Some(1500));
    assert!(edited.text.contains("edited"));
    assert_eq!(edited.assembled(), edited.text);
    let changed: Vec<&str> = edited
        .secrets
        .iter()
        .filter(|s| !stored.secrets.contains(s))
        .map(|(name, _, _)| name.as_str())
        .collect();
    assert_eq!(changed.len(), 2, "{changed:?}");
    assert!(changed.contains(&"agent-config"), "{changed:?}");
}
