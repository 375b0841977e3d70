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
use crate::config_text::{Chunk, ConfigText};
use crate::desired::{
    AGENT_NAME_LABEL, CONFIG_KEY, DesiredObject, GZIP_THRESHOLD, MANAGED_BY_LABEL,
    MANAGED_BY_VALUE, PlanOptions, PlannedObject, SECRET_SIZE_LIMIT, Subsystem, assets_secret_name,
    owner_reference,
};
use crate::discover::{Discovery, Hierarchy};
use crate::expansion::{ConfigOf, Strings};
use crate::input_ref::InputRef;
use crate::rejection::{Reason, Rejection};
use crate::render_cache::{MetricsConfigCache, RenderedText, render_metrics_text};
use crate::segments::{self, MANIFEST_KEY, SegmentCache, StoredSegment};
use crate::status::DesiredStatus;
use crate::workloads;

/// A rendered agent.yml, kept as text for `render --config`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedConfig {
    /// The config Secret it is stored in: the head, holding the first segment.
    pub secret_name: String,
    /// The segment Secrets holding the rest, in order (none for a config of one segment).
    pub segments: Vec<String>,
    /// Whose config it is: metrics, logs or integrations.
    pub subsystem: Subsystem,
    /// Written in Alloy's own syntax ([`crate::alloy_native`]), not as a static-mode
    /// agent.yml.
    pub alloy_syntax: bool,
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
    /// `AlloyDifference` ([`crate::alloy::warnings`]), and settings the operator no longer
    /// uses, Reason `UnusedSetting` ([`workloads::pod_template::unused_settings`]), and
    /// fields our schemas lack, Reason `UnknownField` ([`Discovery::warnings`]). The objects
    /// still run.
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

/// One Secret a config is stored in: its head (the config Secret's name) or one of its
/// segment Secrets ([`crate::segments`]), with the data it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSecretData {
    pub name: String,
    pub data: BTreeMap<String, Vec<u8>>,
}

/// The Secrets the config made of `chunks` is stored in, head first: the head `name` holds
/// the first segment and, when there are more, the manifest naming the others in order
/// ([`segments::store`], reusing `cache`'s stored segments). A config of any size is stored;
/// only a segment whose stored bytes pass [`SECRET_SIZE_LIMIT`] (one line of agent.yml too
/// long to cut, and gzip cannot shrink enough) is refused: the message names its Secret, the
/// sizes and the fix.
pub fn config_secrets_data(
    name: &str,
    chunks: &[&str],
    cache: Option<&mut SegmentCache>,
) -> Result<Vec<ConfigSecretData>, String> {
    let chunks: Vec<Chunk<'_>> = chunks.iter().map(|&c| Chunk::from(c)).collect();
    config_chunks_secrets_data(name, &chunks, cache)
}

/// [`config_secrets_data`] of a text in chunks, some of them cached parts: the cache reads
/// again only the parts that changed ([`segments::store_chunks`]).
fn config_chunks_secrets_data(
    name: &str,
    chunks: &[Chunk<'_>],
    cache: Option<&mut SegmentCache>,
) -> Result<Vec<ConfigSecretData>, String> {
    let stored = segments::store_chunks(name, chunks, cache)
        .map_err(|e| format!("Secret {name}: gzip failed: {e}"))?;
    let manifest = segments::manifest_of(&stored).map(|m| segments::manifest_bytes(&m));
    let count = stored.len();
    let mut secrets = Vec::with_capacity(count);
    for (i, segment) in stored.into_iter().enumerate() {
        let mut data = BTreeMap::from([(CONFIG_KEY.to_owned(), segment.bytes.to_vec())]);
        if i == 0
            && let Some(manifest) = &manifest
        {
            data.insert(MANIFEST_KEY.to_owned(), manifest.clone());
        }
        let held: usize = data.values().map(Vec::len).sum();
        if held > SECRET_SIZE_LIMIT {
            return Err(segment_too_large(name, &segment, i, count, held));
        }
        secrets.push(ConfigSecretData {
            name: segment.secret,
            data,
        });
    }
    Ok(secrets)
}

/// Why segment `i` of `count` of config Secret `head`, holding `held` bytes, cannot be stored.
/// A segment is at most [`segments::SEGMENT_MAX_BYTES`] of text unless one line is longer, so
/// that is the cause, but for a head whose manifest names more segments than fit beside it.
fn segment_too_large(
    head: &str,
    segment: &StoredSegment,
    i: usize,
    count: usize,
    held: usize,
) -> String {
    let stored = if segment.text_len > GZIP_THRESHOLD {
        " gzip-compressed"
    } else {
        ""
    };
    let (what, fix) = if segment.text_len > segments::SEGMENT_MAX_BYTES {
        (
            format!(
                "{} bytes of agent.yml in one line, which cannot be cut",
                segment.text_len
            ),
            "shorten the value that makes this line",
        )
    } else {
        (
            format!(
                "{} bytes of agent.yml and the manifest naming {} other segments",
                segment.text_len,
                count - 1
            ),
            "split the monitors between several GrafanaAgents",
        )
    };
    let secret = if count == 1 {
        format!("config Secret {head}")
    } else {
        format!(
            "config Secret {} (segment {} of {count} of {head})",
            segment.secret,
            i + 1
        )
    };
    format!(
        "{secret} would hold {held} bytes{stored} ({what}), above the {SECRET_SIZE_LIMIT}-byte limit of a Secret; {fix}"
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

    /// The metrics config Secrets of `rendered`; when a segment is too large to store, the
    /// message names the monitors that take the most of the config, the likely culprits.
    fn metrics_secret(&mut self, rendered: RenderedText, cache: Option<&mut SegmentCache>) {
        let rejected_before = self.rejections.len() + rendered.rejections.len();
        let largest = rendered.largest;
        self.config_secret_text(
            Subsystem::Metrics,
            rendered.text,
            rendered.rejections,
            cache,
        );
        self.name_largest(rejected_before, &largest, "its largest monitors");
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

    /// Adds `subsystem`'s config Secrets (head and segments) holding the agent.yml `text`,
    /// stored from its pieces (never laid out), unless a segment cannot be stored (then the
    /// agent is reported instead, and none of them is planned).
    fn config_secret_text(
        &mut self,
        subsystem: Subsystem,
        text: ConfigText,
        rejections: Vec<Rejection>,
        cache: Option<&mut SegmentCache>,
    ) {
        self.rejections.extend(rejections);
        let name = self.config_secret_name(subsystem);
        match config_chunks_secrets_data(&name, &text.chunks_with_parts(), cache) {
            Ok(secrets) => self.add_config_secrets(subsystem, name, text, secrets),
            Err(msg) => self.too_large(msg),
        }
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

    /// Adds `subsystem`'s config Secrets, `secrets` (head `name` first, then its segments),
    /// the stored form of `text`. The segments carry the head's labels and
    /// [`segments::SEGMENT_OF_LABEL`]; they are planned before their head, which names them
    /// ([`PlannedObject::apply_order`]), so a head is never written before its segments.
    fn add_config_secrets(
        &mut self,
        subsystem: Subsystem,
        name: String,
        text: ConfigText,
        secrets: Vec<ConfigSecretData>,
    ) {
        let labels = secret_labels(self.h, self.opts);
        let mut segment_names = Vec::with_capacity(secrets.len().saturating_sub(1));
        for ConfigSecretData {
            name: secret_name,
            data,
        } in secrets
        {
            let mut labels = labels.clone();
            if secret_name != name {
                labels.insert(segments::SEGMENT_OF_LABEL.to_owned(), name.clone());
                segment_names.push(secret_name.clone());
            }
            let secret = secret(self.h, secret_name, labels, data);
            self.objects
                .push(PlannedObject::new(subsystem, DesiredObject::Secret(secret)));
        }
        self.configs.push(RenderedConfig {
            secret_name: name,
            segments: segment_names,
            subsystem,
            alloy_syntax: match subsystem {
                Subsystem::Metrics => crate::alloy_native::native_metrics(self.h),
                Subsystem::Logs => crate::alloy::native_logs(self.h),
                Subsystem::IntegrationsDeployment | Subsystem::IntegrationsDaemonSet => {
                    crate::alloy_native::integrations::native_integrations(self.h)
                }
                _ => false,
            },
            text,
        });
    }
}

/// The head a segment Secret belongs to ([`segments::SEGMENT_OF_LABEL`]), `None` for any
/// other object.
pub fn segment_of(object: &PlannedObject) -> Option<&str> {
    match &object.object {
        DesiredObject::Secret(s) => s
            .metadata
            .labels
            .as_ref()?
            .get(segments::SEGMENT_OF_LABEL)
            .map(String::as_str),
        _ => None,
    }
}

/// The key that sorts a plan into the order its objects are written: upstream's apply order
/// ([`PlannedObject::apply_order`]), with each config's segment Secrets (by name) just before
/// their head. A head names its segments: written after them, it never names one the config
/// loader cannot find.
fn write_order(object: &PlannedObject) -> ((u8, u8, &str), bool, &str) {
    let (subsystem, kind, name) = object.apply_order();
    match segment_of(object) {
        Some(head) => ((subsystem, kind, head), false, name),
        None => ((subsystem, kind, name), true, name),
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
    /// only the segments whose text changed are compressed again.
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
        MetricsConfig::Rendered(None) => {}
        // Alloy's own syntax: from the whole typed document (no per-monitor cache yet).
        _ if crate::alloy_native::native_metrics(h) => match crate::alloy_native::metrics_text(h) {
            Ok(Some(rendered)) => p.metrics_secret(rendered, None),
            Ok(None) => {}
            Err(e) => p.yaml_failed(Subsystem::Metrics, &e),
        },
        // Monitor by monitor, so the whole typed document is never held (same text).
        MetricsConfig::Render => match render_metrics_text(h) {
            Ok(Some(rendered)) => p.metrics_secret(rendered, None),
            Ok(None) => {}
            Err(e) => p.yaml_failed(Subsystem::Metrics, &e),
        },
        MetricsConfig::Rendered(Some(rendered)) => p.metrics_secret(rendered, None),
        MetricsConfig::Cache(cache) => match cache.render(h) {
            Ok(Some((rendered, _))) => p.metrics_secret(rendered, Some(cache.segment_cache())),
            Ok(None) => {}
            Err(e) => p.yaml_failed(Subsystem::Metrics, &e),
        },
    }
    if crate::alloy::native_logs(h) {
        match crate::alloy_native::logs::logs_text(h) {
            Ok(Some(rendered)) => {
                p.config_secret_text(Subsystem::Logs, rendered.text, rendered.rejections, None)
            }
            Ok(None) => {}
            Err(e) => p.yaml_failed(Subsystem::Logs, &e),
        }
    } else {
        p.config_secret(Subsystem::Logs, config::logs::render(h));
    }
    // Which Integrations each workload runs is decided once: its config holds exactly those.
    let integrations = workloads::integrations::Accepted::new(h);
    for all_nodes in [false, true] {
        let subset = integrations.workload(all_nodes);
        let subsystem = Subsystem::integrations(all_nodes);
        let rendered = config::integrations::render(h, &subset.integrations);
        match rendered {
            Some(rendered) if crate::alloy_native::integrations::native_integrations(h) => {
                match crate::alloy_native::integrations::integrations_text(rendered) {
                    Ok(text) => p.config_secret_text(subsystem, text.text, text.rejections, None),
                    Err(e) => p.yaml_failed(subsystem, &e),
                }
            }
            rendered => p.config_secret(subsystem, rendered),
        }
    }

    // The config loader may read the config Secrets just planned, and no other (issue 35).
    for rbac in workloads::loader_rbac::objects(h, opts, &p.objects) {
        p.objects
            .push(PlannedObject::new(Subsystem::ConfigLoader, rbac));
    }

    let workloads = workloads::plan(h, opts, &integrations);
    p.rejections.extend(workloads.rejections);
    p.objects.extend(workloads.objects);
    p.objects
        .sort_by(|a, b| write_order(a).cmp(&write_order(b)));

    p.rejections.sort();
    p.rejections.dedup();
    let mut status = crate::status::desired(selected, &p.rejections, p.objects.len());
    let metrics_kept_static: Vec<_> = crate::alloy_native::metrics_kept_static(selected).collect();
    let native_metrics = crate::alloy::native_requested(selected) && metrics_kept_static.is_empty();
    let mut warnings = crate::alloy::warnings(selected, &metrics_kept_static);
    warnings.extend(crate::alloy_native::integrations::warnings(selected));
    warnings.extend(workloads::pod_template::unused_settings(selected));
    warnings.extend(crate::config::metrics::scrape_config::warnings(
        selected,
        native_metrics,
    ));
    warnings.extend(config::metrics::monitor_settings::warnings(selected));
    warnings.extend(discovery.warnings.iter().cloned());
    warnings.sort();
    crate::status::add_runtime_differences(&mut status, selected, &warnings);
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
    use crate::desired::ManagedKind;
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

    /// The config Secrets of `secrets` decoded and assembled as the config loader does.
    fn assembled(secrets: &[ConfigSecretData]) -> String {
        let text = |s: &ConfigSecretData| segments::decode(&s.data[CONFIG_KEY]).expect("decodes");
        let head = &secrets[0];
        let Some(manifest) = head.data.get(MANIFEST_KEY) else {
            assert_eq!(secrets.len(), 1);
            return text(head);
        };
        let manifest = segments::parse_manifest(&head.name, manifest).expect("a manifest");
        let texts: BTreeMap<&str, String> = secrets[1..]
            .iter()
            .map(|s| (s.name.as_str(), text(s)))
            .collect();
        segments::assemble(&text(head), &manifest, |name| {
            texts.get(name).map(String::as_str)
        })
        .expect("assembles")
    }

    #[test]
    fn a_small_config_is_stored_as_written_in_one_secret() {
        let text = "server: {}\n";
        let secrets = config_secrets_data("a-config", &[text], None).expect("stored");
        assert_eq!(
            secrets,
            [ConfigSecretData {
                name: "a-config".to_owned(),
                data: BTreeMap::from([(CONFIG_KEY.to_owned(), text.as_bytes().to_vec())]),
            }]
        );
    }

    /// A config of one segment above the gzip threshold is stored as before segments
    /// existed: the head alone, gzip-compressed, without a manifest.
    #[test]
    fn a_config_of_one_segment_is_the_head_alone_gzip_compressed() {
        // Lines that are not jobs: nothing to cut before.
        let text: String = (0..20_000)
            .map(|i| format!("      - source_labels: [l{i}]\n"))
            .collect();
        assert!(text.len() > GZIP_THRESHOLD && text.len() < segments::SEGMENT_MAX_BYTES);
        let secrets = config_secrets_data("a-config", &[&text], None).expect("stored");
        assert_eq!(secrets.len(), 1);
        assert_eq!(
            secrets[0].data.keys().collect::<Vec<_>>(),
            [CONFIG_KEY],
            "no manifest"
        );
        assert!(secrets[0].data[CONFIG_KEY] == crate::gzip::gzip(&text).expect("gzip"));
    }

    /// No ceiling: a config of many MB is stored in as many Secrets as it needs, each within
    /// the limit, and assembles back to the text.
    #[test]
    fn a_config_of_any_size_is_stored_in_segments_that_assemble_back() {
        let text = incompressible_jobs(4000, 1500);
        assert!(text.len() > 5 * SECRET_SIZE_LIMIT, "{}", text.len());
        let secrets = config_secrets_data("a-config", &[&text], None).expect("stored");
        assert!(secrets.len() > 6, "{} Secrets", secrets.len());
        assert_eq!(secrets[0].name, "a-config");
        for s in &secrets {
            let held: usize = s.data.values().map(Vec::len).sum();
            assert!(held <= SECRET_SIZE_LIMIT, "{}: {held}", s.name);
            assert!(s.name.starts_with("a-config-") || s.name == "a-config");
        }
        assert_eq!(assembled(&secrets), text);
    }

    /// `jobs` scrape jobs, each with a line of `payload` bytes gzip can hardly shrink.
    fn incompressible_jobs(jobs: usize, payload: usize) -> String {
        let filler = incompressible(jobs * payload);
        let mut text = String::from("metrics:\n  configs:\n  - name: a/b\n    scrape_configs:\n");
        for j in 0..jobs {
            text.push_str(&format!(
                "    - job_name: serviceMonitor/ns/m{j}/0\n      replacement: {}\n",
                &filler[j * payload..(j + 1) * payload]
            ));
        }
        text
    }

    #[test]
    fn a_line_too_long_for_a_secret_even_compressed_is_refused_with_the_sizes() {
        let text = format!(
            "a: 1\nb: {}\nc: 2\n",
            incompressible(SECRET_SIZE_LIMIT * 3 / 2)
        );
        let message = config_secrets_data("a-config", &[&text], None).expect_err("too large");
        // The segment the long line is alone in.
        let stored = segments::store("a-config", &[&text], None).expect("stored");
        assert_eq!(stored.len(), 3);
        let segment = &stored[1].secret;
        assert!(
            message.starts_with(&format!(
                "config Secret {segment} (segment 2 of 3 of a-config) would hold "
            )),
            "{message}"
        );
        assert!(
            message.contains(
                "bytes gzip-compressed (1572868 bytes of agent.yml in one line, which cannot be cut), above the 1048576-byte limit of a Secret; shorten the value that makes this line"
            ),
            "{message}"
        );
    }

    /// Issue 22, item 11: one oversized monitor makes the config impossible to store; the
    /// message names the monitors that take the most of it, largest first.
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
        assert!(
            message.contains("in one line, which cannot be cut"),
            "{message}"
        );
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
    fn an_agent_whose_metrics_config_cannot_be_stored_is_reported_and_gets_no_config_secret() {
        let mut loader = Loader::new();
        loader.add_source(
            "test.yaml",
            "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: big, namespace: monitoring}\nspec:\n  metrics:\n    instanceSelector: {}\n---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {name: primary, namespace: monitoring}\nspec: {}\n",
        );
        let store = loader.finish().store;
        let discovery = crate::discover(store.agents().next().expect("a GrafanaAgent"), &store);
        // One line too long for a Secret, between two that fit: no Secret of it is planned.
        let oversized = RenderedText {
            text: format!("a: 1\nb: {}\nc: 2\n", incompressible(SECRET_SIZE_LIMIT * 2)).into(),
            rejections: Vec::new(),
            largest: Vec::new(),
        };
        let p = plan_with_metrics(
            &discovery,
            &PlanOptions::default(),
            MetricsConfig::Rendered(Some(oversized)),
        );
        let names: Vec<&str> = p.objects.iter().map(PlannedObject::name).collect();
        assert!(
            !p.objects
                .iter()
                .any(|o| o.kind() == ManagedKind::Secret && o.name().starts_with("big-config")),
            "{names:?}"
        );
        assert!(names.contains(&"big-secrets"), "{names:?}");
        assert!(p.configs.is_empty());
        let messages: Vec<String> = p.rejections.iter().map(ToString::to_string).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains("GrafanaAgent monitoring/big")
                    && m.contains("(segment 2 of 3 of big-config) would hold")),
            "{messages:#?}"
        );
        assert_eq!(p.status.agent.rejected_total, 1);

        // The same agent with a config that fits gets its Secret.
        let p = plan(&discovery, &PlanOptions::default());
        assert!(p.objects.iter().any(|o| o.name() == "big-config"));
    }

    /// An agent of 3000 monitors whose config is 3.3 MB even compressed (the 1 MiB ceiling
    /// refused it before segments): stored in segment Secrets written before their head, the
    /// same through the cache (from the parts, never laid out) as rendered in full.
    #[test]
    fn a_large_metrics_config_is_planned_as_segments_before_their_head() {
        const MONITORS: usize = 3000;
        const PAYLOAD: usize = 1500;
        let payload = incompressible(MONITORS * PAYLOAD);
        let mut text = "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: big, namespace: monitoring}\nspec:\n  metrics:\n    instanceSelector: {}\n---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {name: primary, namespace: monitoring}\nspec:\n  serviceMonitorNamespaceSelector: {}\n  serviceMonitorSelector: {}\n".to_owned();
        for i in 0..MONITORS {
            let replacement = &payload[i * PAYLOAD..(i + 1) * PAYLOAD];
            text.push_str(&format!(
                "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {{name: sm-{i:04}, namespace: apps, resourceVersion: \"1\"}}\nspec:\n  selector: {{matchLabels: {{app: sm-{i}}}}}\n  endpoints:\n  - port: web\n    relabelings:\n    - {{targetLabel: payload, replacement: {replacement}}}\n"
            ));
        }
        let mut loader = Loader::new();
        loader.add_source("test.yaml", &text);
        let store = loader.finish().store;
        let discovery = crate::discover(store.agents().next().expect("a GrafanaAgent"), &store);
        let opts = PlanOptions::default();

        let full = plan(&discovery, &opts);
        assert!(full.rejections.is_empty(), "{:#?}", full.rejections);
        let config = &full.configs[0];
        assert_eq!(config.secret_name, "big-config");
        assert!(config.segments.len() > 3, "{:?}", config.segments);
        let secrets: Vec<&PlannedObject> = full
            .objects
            .iter()
            .filter(|o| o.kind() == ManagedKind::Secret && o.name().starts_with("big-config"))
            .collect();
        let names: Vec<&str> = secrets.iter().map(|o| o.name()).collect();
        // Every segment, then the head that names them.
        let mut expected: Vec<&str> = config.segments.iter().map(String::as_str).collect();
        expected.sort_unstable();
        expected.push("big-config");
        assert_eq!(names, expected);
        for segment in &secrets[..secrets.len() - 1] {
            assert_eq!(segment_of(segment), Some("big-config"));
            assert_eq!(segment.subsystem, Subsystem::Metrics);
            let DesiredObject::Secret(s) = &segment.object else {
                panic!("a Secret")
            };
            assert_eq!(s.metadata.owner_references.as_ref().map(Vec::len), Some(1));
        }
        let data: Vec<ConfigSecretData> = std::iter::once(secrets[secrets.len() - 1])
            .chain(
                config
                    .segments
                    .iter()
                    .map(|name| *secrets.iter().find(|o| o.name() == name).expect("planned")),
            )
            .map(|o| match &o.object {
                DesiredObject::Secret(s) => ConfigSecretData {
                    name: o.name().to_owned(),
                    data: s
                        .data
                        .iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), v.0.clone()))
                        .collect(),
                },
                _ => panic!("a Secret"),
            })
            .collect();
        assert_eq!(assembled(&data), config.text.as_str());

        let mut cache = MetricsConfigCache::new();
        for _ in 0..2 {
            let cached = plan_with_metrics(&discovery, &opts, MetricsConfig::Cache(&mut cache));
            assert!(!cached.configs[0].text.is_laid_out());
            assert!(cached.objects == full.objects);
            assert_eq!(cached.configs[0].segments, config.segments);
        }
        assert_eq!(cache.segment_cache().stored, 0, "all reused");
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
