//! Phase 2: from a discovered hierarchy to every object the operator wants to exist for one
//! GrafanaAgent, in the order upstream applies them (spec 3.1), plus the status it implies.
//!
//! `render` prints this plan; the controller applies it. Both call [`plan`].

use std::borrow::Cow;
use std::collections::BTreeMap;

use api::grafana_agent::Runtime;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::config::{self, Rendered};
use crate::config_text::ConfigText;
use crate::desired::{
    AGENT_NAME_LABEL, CONFIG_KEY, DesiredObject, GZIP_THRESHOLD, MANAGED_BY_LABEL,
    MANAGED_BY_VALUE, PlanOptions, PlannedObject, SECRET_SIZE_LIMIT, Subsystem, assets_secret_name,
    owner_reference,
};
use crate::discover::{Discovery, Hierarchy};
use crate::expansion::{ConfigOf, Strings};
use crate::gzip::{self, GzipCache};
use crate::input_ref::InputRef;
use crate::rejection::{Reason, Rejection};
use crate::render_cache::{
    BoundedConfig, MetricsConfigCache, OneOffError, Overflow, RenderedText, render_metrics_bounded,
};
use crate::status::DesiredStatus;
use crate::workloads;

/// A rendered agent.yml, kept as text for `render --config`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedConfig {
    /// The config Secret it is stored in.
    pub secret_name: String,
    /// Whose config it is: metrics, logs or integrations.
    pub subsystem: Subsystem,
    /// Through the metrics cache, still in pieces: laid out by the first
    /// [`ConfigText::as_str`] (a controller never reads it).
    pub text: ConfigText,
}

/// Everything one GrafanaAgent should have.
#[derive(Debug, Clone)]
pub struct Plan {
    pub agent: InputRef,
    /// In upstream's apply order.
    pub objects: Vec<PlannedObject>,
    pub configs: Vec<RenderedConfig>,
    /// Discovery's and rendering's rejections, sorted.
    pub rejections: Vec<Rejection>,
    /// What the runtime does differently from what the objects ask for, sorted: Reason
    /// `AlloyDifference` ([`crate::alloy::warnings`]). The objects still run.
    pub warnings: Vec<Rejection>,
    /// The agent's status and its entries in the instances and Integrations it selects.
    pub status: DesiredStatus,
}

/// Labels of the generated Secrets: the managed marker, the agent's name, then `--labels`.
pub fn secret_labels(h: &Hierarchy, opts: &PlanOptions) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::from([
        (MANAGED_BY_LABEL.to_owned(), MANAGED_BY_VALUE.to_owned()),
        (AGENT_NAME_LABEL.to_owned(), h.agent_name().to_owned()),
    ]);
    labels.extend(opts.labels.clone());
    labels
}

fn secret(
    h: &Hierarchy,
    name: String,
    labels: BTreeMap<String, String>,
    data: BTreeMap<String, Vec<u8>>,
) -> Secret {
    Secret {
        metadata: ObjectMeta {
            name: Some(name),
            namespace: Some(h.agent_namespace().to_owned()),
            labels: Some(labels),
            owner_references: Some(vec![owner_reference(&h.agent)]),
            ..Default::default()
        },
        data: Some(data.into_iter().map(|(k, v)| (k, ByteString(v))).collect()),
        ..Default::default()
    }
}

struct Planner<'a> {
    h: &'a Hierarchy,
    opts: &'a PlanOptions,
    agent: InputRef,
    objects: Vec<PlannedObject>,
    configs: Vec<RenderedConfig>,
    rejections: Vec<Rejection>,
}

/// The bytes a config Secret stores for `text` (gzip-compressed above [`GZIP_THRESHOLD`]),
/// or why it cannot be stored: the message names the Secret, the sizes and the fix.
pub fn config_secret_data(name: &str, text: &str) -> Result<Vec<u8>, String> {
    secret_data_of_chunks(name, &[text], text.len(), None)
}

/// [`config_secret_data`], compressing with `cache` (only the parts of `text` that changed
/// since its previous use are compressed again; the bytes are the same). A text in pieces is
/// compressed from its pieces, never laid out.
pub fn config_secret_data_with(
    name: &str,
    text: &ConfigText,
    cache: Option<&mut GzipCache>,
) -> Result<Vec<u8>, String> {
    secret_data_of_chunks(name, &text.chunks(), text.len(), cache)
}

/// [`config_secret_data_with`] of the text made of `chunks`, `len` bytes in all.
fn secret_data_of_chunks(
    name: &str,
    chunks: &[&str],
    len: usize,
    cache: Option<&mut GzipCache>,
) -> Result<Vec<u8>, String> {
    if len <= GZIP_THRESHOLD {
        return checked_secret_data(name, chunks.concat().into_bytes(), false, len);
    }
    let bytes = match cache {
        Some(cache) => cache.compress_chunks(chunks),
        None => gzip::gzip_chunks(chunks),
    }
    .map_err(|e| gzip_failed(name, &e))?;
    checked_secret_data(name, bytes, true, len)
}

fn gzip_failed(name: &str, e: &dyn std::fmt::Display) -> String {
    format!("Secret {name}: gzip failed: {e}")
}

/// `bytes`, the data of the config Secret `name` for an agent.yml of `len` bytes, or why they
/// cannot be stored.
fn checked_secret_data(
    name: &str,
    bytes: Vec<u8>,
    compressed: bool,
    len: usize,
) -> Result<Vec<u8>, String> {
    if bytes.len() > SECRET_SIZE_LIMIT {
        return Err(format!(
            "config Secret {name} would hold {} bytes{} (agent.yml is {} bytes), above the {SECRET_SIZE_LIMIT}-byte limit of a Secret; split the monitors between several GrafanaAgents",
            bytes.len(),
            if compressed { " gzip-compressed" } else { "" },
            len,
        ));
    }
    Ok(bytes)
}

/// Why the config Secret `name` cannot be stored, when rendering stopped at `overflow`: how
/// far over the limit the whole config would be, and how much was rendered to know it.
pub fn overflow_message(name: &str, overflow: &Overflow) -> String {
    let estimate = overflow.estimated_len();
    format!(
        "config Secret {name} would hold about {estimate} bytes gzip-compressed ({:.1} times the limit), above the {SECRET_SIZE_LIMIT}-byte limit of a Secret: the jobs of the first {} of its {} monitors already take {} bytes ({} bytes of agent.yml), where rendering stopped; split the monitors between several GrafanaAgents",
        estimate as f64 / SECRET_SIZE_LIMIT as f64,
        overflow.monitors_rendered,
        overflow.monitors,
        overflow.compressed_len,
        overflow.text_len,
    )
}

/// The data of the assets Secret `name`, or why it cannot be stored: the API server refuses a
/// Secret whose values add up to more than [`SECRET_SIZE_LIMIT`] bytes. The message names the
/// Secret, its size, the largest value and the fix.
pub fn assets_secret_data(
    name: &str,
    data: BTreeMap<String, Vec<u8>>,
) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let total: usize = data.values().map(Vec::len).sum();
    if total <= SECRET_SIZE_LIMIT {
        return Ok(data);
    }
    let (largest, largest_len) = data
        .iter()
        .map(|(k, v)| (k.as_str(), v.len()))
        .max_by_key(|&(k, len)| (len, std::cmp::Reverse(k)))
        .unwrap_or_default();
    Err(format!(
        "assets Secret {name} would hold {total} bytes in {} keys (the largest, {largest}, is {largest_len} bytes), above the {SECRET_SIZE_LIMIT}-byte limit of a Secret; refer to fewer or smaller Secret and ConfigMap keys from this agent's instances and monitors",
        data.len(),
    ))
}

impl Planner<'_> {
    /// Adds the assets Secret `<agent>-secrets` holding every referenced Secret and ConfigMap
    /// value, unless it cannot be stored (then the agent is reported instead, as for a config
    /// Secret, and a Secret already in the cluster is left as it is).
    fn assets_secret(&mut self) {
        let name = assets_secret_name(self.h.agent_name());
        match assets_secret_data(&name, self.h.assets.secret_data()) {
            Ok(data) => {
                let labels = BTreeMap::from([
                    (MANAGED_BY_LABEL.to_owned(), MANAGED_BY_VALUE.to_owned()),
                    (AGENT_NAME_LABEL.to_owned(), self.h.agent_name().to_owned()),
                ]);
                let assets = secret(self.h, name, labels, data);
                self.objects.push(PlannedObject::new(
                    Subsystem::Shared,
                    DesiredObject::Secret(assets),
                ));
            }
            Err(msg) => self.rejections.push(Rejection::new(
                self.agent.clone(),
                Reason::AssetsTooLarge,
                None,
                msg,
            )),
        }
    }

    /// The name of `subsystem`'s config Secret.
    fn config_secret_name(&self, subsystem: Subsystem) -> String {
        subsystem
            .config_secret_name(self.h.agent_name())
            .unwrap_or_default()
    }

    /// Adds `subsystem`'s config Secret holding `rendered`, unless it cannot be stored.
    fn config_secret(&mut self, subsystem: Subsystem, rendered: Option<Rendered>) {
        let Some(Rendered { config, rejections }) = rendered else {
            return;
        };
        let of = match subsystem {
            Subsystem::Logs => ConfigOf::Logs,
            _ => ConfigOf::Sharded,
        };
        let text = Strings::of(&self.h.agent).to_yaml(of, &config);
        // The typed document can be as large as its text: free it before compressing.
        drop(config);
        match text {
            Ok(text) => self.config_secret_text(subsystem, text.into(), rejections, None),
            Err(e) => {
                self.rejections.extend(rejections);
                self.yaml_failed(subsystem, &e);
            }
        }
    }

    /// Reports on the agent that `subsystem`'s config could not be written.
    fn yaml_failed(&mut self, subsystem: Subsystem, e: &dyn std::fmt::Display) {
        let msg = format!("Secret {}: {e}", self.config_secret_name(subsystem));
        self.rejections.push(Rejection::new(
            self.agent.clone(),
            Reason::InvalidYaml,
            None,
            msg,
        ));
    }

    /// The metrics config Secret of `rendered`; when it is too large to store, the message
    /// names the monitors that take the most of it, the likely culprits.
    fn metrics_secret(&mut self, rendered: RenderedText, gzip_cache: Option<&mut GzipCache>) {
        let rejected_before = self.rejections.len() + rendered.rejections.len();
        let largest = rendered.largest;
        self.config_secret_text(
            Subsystem::Metrics,
            rendered.text,
            rendered.rejections,
            gzip_cache,
        );
        self.name_largest(rejected_before, &largest, "its largest monitors");
    }

    /// [`Planner::metrics_secret`] of a text whose gzip was made while it was rendered.
    fn metrics_secret_gzipped(&mut self, rendered: RenderedText, gzip: Vec<u8>) {
        let rejected_before = self.rejections.len() + rendered.rejections.len();
        let largest = rendered.largest.clone();
        self.config_secret_gzipped(Subsystem::Metrics, rendered, gzip);
        self.name_largest(rejected_before, &largest, "its largest monitors");
    }

    /// Reports the metrics config found too large before it was complete, naming the largest
    /// of the monitors rendered until then.
    fn metrics_too_large(&mut self, overflow: Overflow) {
        let rejected_before = self.rejections.len() + overflow.rejections.len();
        let largest = overflow.largest.clone();
        let which = if overflow.monitors_rendered < overflow.monitors {
            "the largest of those"
        } else {
            "its largest monitors"
        };
        self.config_too_large(Subsystem::Metrics, overflow);
        self.name_largest(rejected_before, &largest, which);
    }

    /// Appends `largest` (monitors and the agent.yml bytes of their jobs) to the
    /// config-too-large reports from the `from`th rejection on: the likely culprits.
    fn name_largest(&mut self, from: usize, largest: &[(InputRef, usize)], which: &str) {
        if largest.is_empty() {
            return;
        }
        let named: Vec<String> = largest
            .iter()
            .map(|(monitor, bytes)| format!("{monitor} ({bytes} bytes)"))
            .collect();
        for r in self.rejections.iter_mut().skip(from) {
            if r.reason == Reason::ConfigTooLarge {
                r.message
                    .push_str(&format!("; {which}: {}", named.join(", ")));
            }
        }
    }

    /// Adds `subsystem`'s config Secret holding the agent.yml `text`, unless it cannot be
    /// stored (then the agent is reported instead).
    fn config_secret_text(
        &mut self,
        subsystem: Subsystem,
        text: ConfigText,
        rejections: Vec<Rejection>,
        gzip_cache: Option<&mut GzipCache>,
    ) {
        self.rejections.extend(rejections);
        let name = self.config_secret_name(subsystem);
        match config_secret_data_with(&name, &text, gzip_cache) {
            Ok(bytes) => self.add_config_secret(subsystem, name, text, bytes),
            Err(msg) => self.too_large(msg),
        }
    }

    /// [`Planner::config_secret_text`] of a text whose gzip is made.
    fn config_secret_gzipped(
        &mut self,
        subsystem: Subsystem,
        rendered: RenderedText,
        gzip: Vec<u8>,
    ) {
        self.rejections.extend(rendered.rejections);
        let name = self.config_secret_name(subsystem);
        let text = rendered.text;
        let checked = if text.len() > GZIP_THRESHOLD {
            checked_secret_data(&name, gzip, true, text.len())
        } else {
            checked_secret_data(&name, text.as_str().as_bytes().to_vec(), false, text.len())
        };
        match checked {
            Ok(bytes) => self.add_config_secret(subsystem, name, text, bytes),
            Err(msg) => self.too_large(msg),
        }
    }

    /// Reports that `subsystem`'s config was found too large before it was complete.
    fn config_too_large(&mut self, subsystem: Subsystem, overflow: Overflow) {
        let msg = overflow_message(&self.config_secret_name(subsystem), &overflow);
        self.rejections.extend(overflow.rejections);
        self.too_large(msg);
    }

    /// Reports on the agent that a config Secret cannot be stored.
    fn too_large(&mut self, msg: String) {
        self.rejections.push(Rejection::new(
            self.agent.clone(),
            Reason::ConfigTooLarge,
            None,
            msg,
        ));
    }

    /// Adds `subsystem`'s config Secret `name` holding `bytes`, the stored form of `text`.
    fn add_config_secret(
        &mut self,
        subsystem: Subsystem,
        name: String,
        text: ConfigText,
        bytes: Vec<u8>,
    ) {
        let labels = secret_labels(self.h, self.opts);
        let data = BTreeMap::from([(CONFIG_KEY.to_owned(), bytes)]);
        let secret = secret(self.h, name.clone(), labels, data);
        self.objects
            .push(PlannedObject::new(subsystem, DesiredObject::Secret(secret)));
        self.configs.push(RenderedConfig {
            secret_name: name,
            subsystem,
            text,
        });
    }
}

/// `h` as planned: an agent without `spec.runtime` runs what the operator's `--runtime`
/// says, and from here on its spec says so (the rest of the crate reads the runtime from the
/// spec). Borrowed unless that changes anything.
pub fn with_runtime<'a>(h: &'a Hierarchy, opts: &PlanOptions) -> Cow<'a, Hierarchy> {
    match (h.agent.spec.runtime, opts.runtime) {
        (None, Runtime::Alloy) => {
            let mut agent = h.agent.as_ref().clone();
            agent.spec.runtime = Some(Runtime::Alloy);
            Cow::Owned(Hierarchy {
                agent: std::sync::Arc::new(agent),
                ..h.clone()
            })
        }
        _ => Cow::Borrowed(h),
    }
}

/// Plans every object of `discovery`'s agent.
pub fn plan(discovery: &Discovery, opts: &PlanOptions) -> Plan {
    plan_with_metrics(discovery, opts, MetricsConfig::Render)
}

/// Where [`plan_with_metrics`] gets the metrics agent.yml from.
#[derive(Debug)]
pub enum MetricsConfig<'a> {
    /// Render it (what [`plan`] does).
    Render,
    /// Already rendered; `None` when the agent has no MetricsInstance.
    Rendered(Option<RenderedText>),
    /// Render it with this agent's cache: only the monitors that changed are rendered, and
    /// only the parts of the text that changed are compressed again.
    Cache(&'a mut MetricsConfigCache),
}

/// [`plan`], with the metrics agent.yml given by the caller: the controller re-renders only
/// the monitors an edit touched and passes the reassembled text here.
pub fn plan_with_metrics(
    discovery: &Discovery,
    opts: &PlanOptions,
    metrics: MetricsConfig<'_>,
) -> Plan {
    let selected = &*with_runtime(&discovery.hierarchy, opts);
    // What the configs hold: for Alloy, without the objects whose component labels would
    // collide (they are rejected). The status counts what was selected.
    let (rendered, collisions) = crate::alloy::without_label_collisions(selected);
    let h = &*rendered;
    let agent = h.agent_ref();
    let mut rejections = discovery.rejections.clone();
    // Refused whole (issue 38, item 6): a name an earlier agent of the namespace generates
    // too, or a name or `--labels` no object may carry. Nothing is planned, so nothing is
    // written and nothing of the agent is pruned but the subsystems it no longer has.
    let refusals: Vec<Rejection> = discovery
        .rejections
        .iter()
        .filter(|r| r.object == agent && r.reason == Reason::NameCollision)
        .cloned()
        .chain(workloads::check_agent_names(h, opts))
        .collect();
    if !refusals.is_empty() {
        rejections.extend(refusals.iter().cloned());
        rejections.sort();
        rejections.dedup();
        let status =
            crate::status::refused(crate::status::desired(selected, &rejections, 0), &refusals);
        return Plan {
            agent,
            objects: Vec::new(),
            configs: Vec::new(),
            rejections,
            warnings: Vec::new(),
            status,
        };
    }
    rejections.extend(collisions);
    let mut p = Planner {
        h,
        opts,
        agent: agent.clone(),
        objects: Vec::new(),
        configs: Vec::new(),
        rejections,
    };

    p.assets_secret();

    // Out of bounds, the scrape jobs' hashmod modulus is wrong too: keep the running
    // config as well as the StatefulSets (workloads reports the rejection).
    let metrics = match workloads::check_scale(h) {
        Ok(()) => metrics,
        Err(_) => MetricsConfig::Rendered(None),
    };
    match metrics {
        // Monitor by monitor, so the whole typed document is never held (same text).
        // Compressed while rendered, and given up once certain not to fit.
        MetricsConfig::Render => match render_metrics_bounded(h, SECRET_SIZE_LIMIT) {
            Ok(Some(BoundedConfig::Rendered { rendered, gzip })) => {
                p.metrics_secret_gzipped(rendered, gzip)
            }
            Ok(Some(BoundedConfig::TooLarge(overflow))) => p.metrics_too_large(overflow),
            Ok(None) => {}
            Err(OneOffError::Yaml(e)) => p.yaml_failed(Subsystem::Metrics, &e),
            Err(OneOffError::Gzip(e)) => {
                let msg = gzip_failed(&p.config_secret_name(Subsystem::Metrics), &e);
                p.too_large(msg);
            }
        },
        MetricsConfig::Rendered(Some(rendered)) => p.metrics_secret(rendered, None),
        MetricsConfig::Rendered(None) => {}
        MetricsConfig::Cache(cache) => match cache.render(h) {
            Ok(Some((rendered, _))) => p.metrics_secret(rendered, Some(cache.gzip_cache())),
            Ok(None) => {}
            Err(e) => p.yaml_failed(Subsystem::Metrics, &e),
        },
    }
    p.config_secret(Subsystem::Logs, config::logs::render(h));
    // Which Integrations each workload runs is decided once: its config holds exactly those.
    let integrations = workloads::integrations::Accepted::new(h);
    for all_nodes in [false, true] {
        let subset = integrations.workload(all_nodes);
        p.config_secret(
            Subsystem::integrations(all_nodes),
            config::integrations::render(h, &subset.integrations),
        );
    }

    let workloads = workloads::plan(h, opts, &integrations);
    p.rejections.extend(workloads.rejections);
    p.objects.extend(workloads.objects);
    p.objects
        .sort_by(|a, b| a.apply_order().cmp(&b.apply_order()));

    p.rejections.sort();
    p.rejections.dedup();
    let mut status = crate::status::desired(selected, &p.rejections, p.objects.len());
    let warnings = crate::alloy::warnings(selected);
    status
        .agent
        .conditions
        .extend(crate::status::runtime_differences(
            &warnings,
            h.agent.metadata.generation,
        ));
    Plan {
        agent,
        objects: p.objects,
        configs: p.configs,
        rejections: p.rejections,
        warnings,
        status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Loader;

    /// `len` bytes of text gzip can hardly shrink (a fixed pseudo-random sequence).
    fn incompressible(len: usize) -> String {
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                char::from(
                    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                        [(state % 62) as usize],
                )
            })
            .collect()
    }

    #[test]
    fn a_small_config_is_stored_as_written() {
        let text = "server: {}\n";
        assert_eq!(
            config_secret_data("a-config", text).as_deref(),
            Ok(text.as_bytes())
        );
    }

    #[test]
    fn a_large_config_is_stored_gzip_compressed_when_that_fits() {
        let text = "- job_name: x\n".repeat(200_000);
        assert!(text.len() > SECRET_SIZE_LIMIT);
        let bytes = config_secret_data("a-config", &text).expect("fits once compressed");
        assert_eq!(&bytes[..2], &[0x1f, 0x8b], "gzip magic");
        assert!(bytes.len() < SECRET_SIZE_LIMIT);
    }

    #[test]
    fn a_config_above_the_secret_size_limit_even_compressed_is_refused_with_the_sizes() {
        let text = incompressible(SECRET_SIZE_LIMIT * 3 / 2);
        let message = config_secret_data("a-config", &text).expect_err("too large");
        assert!(
            message.starts_with("config Secret a-config would hold "),
            "{message}"
        );
        assert!(
            message.contains("bytes gzip-compressed (agent.yml is 1572864 bytes)"),
            "{message}"
        );
        assert!(
            message.contains("above the 1048576-byte limit of a Secret"),
            "{message}"
        );
    }

    /// Issue 22, item 11: one oversized monitor makes the whole config too large to store;
    /// the message names the monitors that take the most of it, largest first.
    #[test]
    fn a_config_too_large_names_its_largest_monitors() {
        let monitor = |name: &str, replacement: &str| {
            format!(
                "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {{name: {name}, namespace: monitoring}}\nspec:\n  selector: {{}}\n  endpoints:\n  - port: http\n    relabelings:\n    - {{targetLabel: x, replacement: '{replacement}'}}\n"
            )
        };
        let mut text = "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: big, namespace: monitoring}\nspec:\n  metrics:\n    instanceSelector: {}\n---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {name: primary, namespace: monitoring}\nspec:\n  serviceMonitorSelector: {}\n".to_owned();
        text.push_str(&monitor("a-small", "x"));
        text.push_str(&monitor("b-huge", &incompressible(SECRET_SIZE_LIMIT * 2)));
        text.push_str(&monitor("c-medium", &incompressible(1000)));
        let mut loader = Loader::new();
        loader.add_source("test.yaml", &text);
        let store = loader.finish().store;
        let discovery = crate::discover(store.agents().next().expect("a GrafanaAgent"), &store);
        let p = plan(&discovery, &PlanOptions::default());
        let too_large: Vec<&Rejection> = p
            .rejections
            .iter()
            .filter(|r| r.reason == Reason::ConfigTooLarge)
            .collect();
        assert_eq!(too_large.len(), 1, "{:#?}", p.rejections);
        let message = &too_large[0].message;
        let named = message
            .split_once("; its largest monitors: ")
            .map(|(_, named)| named)
            .unwrap_or_else(|| panic!("{message}"));
        assert!(
            named.starts_with("ServiceMonitor monitoring/b-huge (")
                && named.contains("), ServiceMonitor monitoring/c-medium (")
                && named.contains("), ServiceMonitor monitoring/a-small ("),
            "{named}"
        );
    }

    #[test]
    fn an_agent_whose_metrics_config_is_too_large_is_reported_and_gets_no_config_secret() {
        let mut loader = Loader::new();
        loader.add_source(
            "test.yaml",
            "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: big, namespace: monitoring}\nspec:\n  metrics:\n    instanceSelector: {}\n---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {name: primary, namespace: monitoring}\nspec: {}\n",
        );
        let store = loader.finish().store;
        let discovery = crate::discover(store.agents().next().expect("a GrafanaAgent"), &store);
        let oversized = RenderedText {
            text: incompressible(SECRET_SIZE_LIMIT * 2).into(),
            rejections: Vec::new(),
            largest: Vec::new(),
        };
        let p = plan_with_metrics(
            &discovery,
            &PlanOptions::default(),
            MetricsConfig::Rendered(Some(oversized)),
        );
        let names: Vec<&str> = p.objects.iter().map(PlannedObject::name).collect();
        assert!(!names.contains(&"big-config"), "{names:?}");
        assert!(names.contains(&"big-secrets"), "{names:?}");
        let messages: Vec<String> = p.rejections.iter().map(ToString::to_string).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains("GrafanaAgent monitoring/big")
                    && m.contains("config Secret big-config would hold")),
            "{messages:#?}"
        );
        assert_eq!(p.status.agent.rejected_total, 1);

        // The same agent with a config that fits gets its Secret.
        let p = plan(&discovery, &PlanOptions::default());
        assert!(p.objects.iter().any(|o| o.name() == "big-config"));
    }

    /// At 50k ServiceMonitors the config is 4 MB compressed: known to be too large a quarter
    /// of the way in. Rendering stops there, and the message says how far over it would be.
    #[test]
    fn rendering_stops_once_the_compressed_config_is_certain_to_be_too_large() {
        const MONITORS: usize = 3000;
        const PAYLOAD: usize = 1500;
        // Text gzip cannot shrink, different in every monitor: about 1.1 KB compressed each,
        // 3.3 MB for all of them.
        let payload = incompressible(MONITORS * PAYLOAD);
        let mut text = "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: big, namespace: monitoring}\nspec:\n  metrics:\n    instanceSelector: {}\n---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {name: primary, namespace: monitoring}\nspec:\n  serviceMonitorNamespaceSelector: {}\n  serviceMonitorSelector: {}\n".to_owned();
        for i in 0..MONITORS {
            let mut replacement = payload[i * PAYLOAD..(i + 1) * PAYLOAD].to_owned();
            if i == 5 {
                // One monitor three times as large: the first named.
                replacement = replacement.repeat(3);
            }
            text.push_str(&format!(
                "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {{name: sm-{i:04}, namespace: apps, resourceVersion: \"1\"}}\nspec:\n  selector: {{matchLabels: {{app: sm-{i}}}}}\n  endpoints:\n  - port: web\n    relabelings:\n    - {{targetLabel: payload, replacement: {replacement}}}\n"
            ));
        }
        let mut loader = Loader::new();
        loader.add_source("test.yaml", &text);
        let store = loader.finish().store;
        let discovery = crate::discover(store.agents().next().expect("a GrafanaAgent"), &store);

        let Some(BoundedConfig::TooLarge(overflow)) =
            render_metrics_bounded(&discovery.hierarchy, SECRET_SIZE_LIMIT).expect("render")
        else {
            panic!("the config is too large");
        };
        assert_eq!(overflow.monitors, MONITORS);
        assert!(
            overflow.monitors_rendered < MONITORS / 2,
            "stopped after {} monitors",
            overflow.monitors_rendered
        );
        assert!(overflow.compressed_len > SECRET_SIZE_LIMIT);
        assert!(
            overflow.estimated_len() > 2 * SECRET_SIZE_LIMIT,
            "{overflow:?}"
        );
        // The largest of the monitors rendered, named, the largest first.
        assert_eq!(
            overflow.largest.len(),
            crate::render_cache::LARGEST_SHOWN,
            "{overflow:?}"
        );
        assert_eq!(
            overflow.largest[0].0.to_string(),
            "ServiceMonitor apps/sm-0005",
            "{overflow:?}"
        );
        assert!(overflow.largest[0].1 > overflow.largest[1].1 + PAYLOAD);

        let p = plan(&discovery, &PlanOptions::default());
        assert!(!p.objects.iter().any(|o| o.name() == "big-config"));
        let messages: Vec<String> = p.rejections.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 1, "{messages:#?}");
        let message = &messages[0];
        for wanted in [
            "GrafanaAgent monitoring/big: config Secret big-config would hold about ",
            " bytes gzip-compressed (",
            " times the limit), above the 1048576-byte limit of a Secret: the jobs of the first ",
            " of its 3000 monitors already take ",
            "where rendering stopped; split the monitors between several GrafanaAgents; the largest of those: ServiceMonitor apps/sm-0005 (",
        ] {
            assert!(message.contains(wanted), "{wanted:?} not in {message}");
        }
    }

    /// Through the cache, the metrics config is gzipped from its parts, never laid out, and
    /// its Secret is the one rendered without the cache.
    #[test]
    fn the_cached_metrics_config_is_stored_from_its_parts_as_rendered_in_full() {
        let mut text = "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: big, namespace: monitoring}\nspec:\n  metrics:\n    instanceSelector: {}\n---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {name: primary, namespace: monitoring}\nspec:\n  serviceMonitorNamespaceSelector: {}\n  serviceMonitorSelector: {}\n".to_owned();
        for i in 0..300 {
            text.push_str(&format!(
                "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {{name: sm-{i}, namespace: ns-{}, resourceVersion: \"1\"}}\nspec:\n  selector: {{matchLabels: {{app: sm-{i}}}}}\n  endpoints:\n  - port: web\n  - port: admin\n    interval: 15s\n",
                i % 7
            ));
        }
        let mut loader = Loader::new();
        loader.add_source("test.yaml", &text);
        let store = loader.finish().store;
        let discovery = crate::discover(store.agents().next().expect("a GrafanaAgent"), &store);
        let opts = PlanOptions::default();
        let secret = |p: &Plan| {
            p.objects
                .iter()
                .find(|o| o.name() == "big-config")
                .cloned()
                .expect("the config Secret")
        };
        let full = plan(&discovery, &opts);
        let mut cache = MetricsConfigCache::new();
        for _ in 0..2 {
            let cached = plan_with_metrics(&discovery, &opts, MetricsConfig::Cache(&mut cache));
            let config = &cached.configs[0];
            assert!(config.text.len() > GZIP_THRESHOLD, "{}", config.text.len());
            assert!(!config.text.is_laid_out());
            assert!(secret(&cached) == secret(&full));
            assert_eq!(config.text.as_str(), full.configs[0].text.as_str());
        }
    }

    #[test]
    fn assets_up_to_the_secret_size_limit_are_stored_and_one_byte_more_is_refused() {
        let half = SECRET_SIZE_LIMIT / 2;
        let data = BTreeMap::from([
            ("_secrets_a_s_k".to_owned(), vec![b'a'; half - 1]),
            (
                "_secrets_a_s_l".to_owned(),
                vec![b'b'; SECRET_SIZE_LIMIT - half + 1],
            ),
        ]);
        assert_eq!(
            assets_secret_data("a-secrets", data.clone()).as_ref(),
            Ok(&data)
        );
        let mut over = data;
        over.insert("_configMaps_a_c_x".to_owned(), vec![b'c']);
        let message = assets_secret_data("a-secrets", over).expect_err("one byte too many");
        assert_eq!(
            message,
            "assets Secret a-secrets would hold 1048577 bytes in 3 keys (the largest, _secrets_a_s_l, is 524289 bytes), above the 1048576-byte limit of a Secret; refer to fewer or smaller Secret and ConfigMap keys from this agent's instances and monitors"
        );
    }

    /// Each referenced value fits a Secret on its own, but together they do not: the agent is
    /// reported naming the assets Secret and its size, and no invalid Secret is planned; the
    /// rest of the plan (config Secret, workloads) is unaffected, as for a config Secret.
    #[test]
    fn an_agent_whose_assets_exceed_the_secret_size_limit_is_reported_and_gets_no_assets_secret() {
        let input = |value_len: usize| {
            let value = "x".repeat(value_len);
            format!(
                "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {{name: big, namespace: monitoring}}\nspec:\n  metrics:\n    instanceSelector: {{}}\n---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {{name: primary, namespace: monitoring}}\nspec:\n  remoteWrite:\n  - url: https://remote/push\n    tlsConfig:\n      ca: {{configMap: {{name: tls, key: ca.crt}}}}\n      cert: {{secret: {{name: tls, key: tls.crt}}}}\n      keySecret: {{name: tls, key: tls.key}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: tls, namespace: monitoring}}\ndata: {{ca.crt: {value}}}\n---\napiVersion: v1\nkind: Secret\nmetadata: {{name: tls, namespace: monitoring}}\nstringData: {{tls.crt: {value}, tls.key: k}}\n"
            )
        };
        let plan_of = |text: &str| {
            let mut loader = Loader::new();
            loader.add_source("test.yaml", text);
            let loaded = loader.finish();
            assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
            let store = loaded.store;
            plan(
                &crate::discover(store.agents().next().expect("a GrafanaAgent"), &store),
                &PlanOptions::default(),
            )
        };

        let p = plan_of(&input(SECRET_SIZE_LIMIT * 3 / 4));
        let names: Vec<&str> = p.objects.iter().map(PlannedObject::name).collect();
        assert!(!names.contains(&"big-secrets"), "{names:?}");
        assert!(names.contains(&"big-config"), "{names:?}");
        assert!(names.contains(&"big"), "the StatefulSet: {names:?}");
        let messages: Vec<String> = p.rejections.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "GrafanaAgent monitoring/big: assets Secret big-secrets would hold 1572865 bytes in 3 keys (the largest, _configMaps_monitoring_tls_ca_crt, is 786432 bytes), above the 1048576-byte limit of a Secret; refer to fewer or smaller Secret and ConfigMap keys from this agent's instances and monitors"
            ]
        );
        assert_eq!(p.status.agent.rejected_total, 1);

        // The same references with values that fit together give the Secret.
        let p = plan_of(&input(SECRET_SIZE_LIMIT / 4));
        assert!(p.rejections.is_empty(), "{:?}", p.rejections);
        let assets = p
            .objects
            .iter()
            .find_map(|o| match &o.object {
                DesiredObject::Secret(s) if o.name() == "big-secrets" => Some(s),
                _ => None,
            })
            .expect("the assets Secret");
        let sizes: Vec<usize> = assets
            .data
            .iter()
            .flatten()
            .map(|(_, v)| v.0.len())
            .collect();
        assert_eq!(sizes, [SECRET_SIZE_LIMIT / 4, SECRET_SIZE_LIMIT / 4, 1]);
    }
}
