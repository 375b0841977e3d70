//! Golden cases for the metrics agent.yml (`<agent>-config`): one folder per case under
//! `testdata/metrics/`, covering spec 4.2-4.10 and the upstream cases of spec 6.1/6.2.

mod support;

use render::desired::Subsystem;
use std::io::Read;
use support::Golden;

use render::desired::{DesiredObject, GZIP_THRESHOLD, PlanOptions};
use render::manifest::Loader;
use render::output::plan_all;

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
        ],
    );
}

/// An agent with one instance and `monitors` ServiceMonitors.
fn many_monitors(monitors: usize) -> String {
    let mut text = String::from(
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: agent, namespace: operator}\nspec:\n  metrics:\n    instanceSelector: {}\n---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {name: primary, namespace: operator}\nspec:\n  serviceMonitorSelector: {}\n",
    );
    for i in 0..monitors {
        text.push_str(&format!(
            "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {{name: monitor-{i:04}, namespace: operator}}\nspec:\n  selector: {{matchLabels: {{app: app-{i}}}}}\n  endpoints:\n  - port: web\n"
        ));
    }
    text
}

/// The `agent.yml` bytes of the `agent-config` Secret and the rendered text.
fn config_secret(monitors: usize) -> (Vec<u8>, String) {
    let mut loader = Loader::new();
    loader.add_source("generated.yaml", &many_monitors(monitors));
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
    let bytes = plan
        .objects
        .iter()
        .find_map(|o| match &o.object {
            DesiredObject::Secret(s) if o.name() == "agent-config" => {
                s.data.as_ref()?.get("agent.yml").map(|b| b.0.clone())
            }
            _ => None,
        })
        .expect("agent.yml in the config Secret");
    (bytes, text)
}

fn a_config_above_100_kib_is_stored_gzipped() {
    let (bytes, text) = config_secret(100);
    assert!(text.len() > GZIP_THRESHOLD, "{} bytes", text.len());
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "gzip magic");
    let mut decompressed = String::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .read_to_string(&mut decompressed)
        .expect("valid gzip");
    assert_eq!(decompressed, text);
    assert!(text.contains("job_name: serviceMonitor/operator/monitor-0099/0"));
}

fn a_small_config_is_stored_as_text() {
    let (bytes, text) = config_secret(2);
    assert!(text.len() < GZIP_THRESHOLD);
    assert_eq!(bytes, text.into_bytes());
}
