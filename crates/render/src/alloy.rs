//! Runtime `alloy`: Grafana Alloy runs configs the operator writes in Alloy's own syntax
//! ([`crate::alloy_native`], `spec.alloy.configFormat: native`, the default), or the same
//! static-mode configs as the agent (`alloy run --config.format=static`), converting them at
//! start and on every reload: `configFormat: static`, the rollback, and any workload whose
//! inputs have no native translation yet. The native configs say what the converter would,
//! so both follow the rules below. The converter refuses some settings, fails hard on others
//! and silently drops a few; everything it would do is decided here, at plan time, so that
//! nothing is lost without a word (docs/alloy.md):
//!
//! * names: instance names become the labels of Alloy components (`metrics_<name>`,
//!   `logs_<name>`), which must be identifiers, distinct after Alloy replaces every other
//!   character with `_`. [`instance_name`] gives each instance such a name.
//! * Integrations: Alloy wires every integration's metrics to the instance its
//!   `autoscrape.metrics_instance` names (`default` when unset, which no operator instance is)
//!   and does not read `autoscrape.enable`. [`integration_config`] makes the instance explicit
//!   (rewritten to the instance's Alloy name) or refuses the Integration alone.
//! * job names: each scrape job becomes components labelled `metrics_<instance>_<job>` or
//!   `logs_<instance>_<job>`, sanitised; two jobs whose labels agree would fail the whole
//!   config. [`without_label_collisions`] leaves the later object out, on its field.
//! * dropped fields: [`warnings`] says, per object and field, what Alloy does instead.
//!
//! Pure: a function of the discovered hierarchy.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use api::Integration;
use api::grafana_agent::{AlloyConfigFormat, Runtime};
use api::selectors::SecretKeySelector;
use serde_json::Value;

use crate::assets::AssetKey;
use crate::discover::{Hierarchy, LogsInstanceNode, MetricsInstanceNode};
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};

/// The Alloy release runtime `alloy` deploys by default (`grafana/alloy:<this>`; `spec.image`
/// overrides it), and the one every test runs: `tools/alloy/go.mod` pins the same release,
/// `scripts/build-alloy` builds it and `scripts/build-images --alloy` tags its image with it (a
/// test below fails when the pin and this constant differ).
pub const ALLOY_VERSION: &str = "v1.19.2";
pub const ALLOY_BASE_IMAGE: &str = "grafana/alloy";

/// What runs `h`'s configs (the plan has applied the operator's `--runtime` to an agent
/// without `spec.runtime`).
pub fn runtime(h: &Hierarchy) -> Runtime {
    h.agent.spec.runtime.unwrap_or_default()
}

/// Whether `h` asks for Alloy's own syntax: runtime `alloy` with `spec.alloy.configFormat`
/// `native` or unset (each workload's config then follows its own rule: `crate::alloy_native::native_metrics`,
/// [`native_logs`], `crate::alloy_native::integrations::native_integrations`).
pub fn native_requested(h: &Hierarchy) -> bool {
    runtime(h) == Runtime::Alloy && h.agent.spec.alloy_config_format() == AlloyConfigFormat::Native
}

/// Whether `h` chose the static format itself (`spec.alloy.configFormat: static`, the
/// rollback), as opposed to a workload that falls back to it under `native`.
fn static_chosen(h: &Hierarchy) -> bool {
    runtime(h) == Runtime::Alloy && h.agent.spec.alloy_config_format() == AlloyConfigFormat::Static
}

/// Whether `h` asks for Alloy clustering (`spec.alloy.clustering.enabled` under runtime
/// `alloy`); whether it gets it is `crate::alloy_native::clustering`.
pub fn clustering_requested(h: &Hierarchy) -> bool {
    runtime(h) == Runtime::Alloy
        && h.agent
            .spec
            .alloy
            .as_ref()
            .and_then(|a| a.clustering.as_ref())
            .is_some_and(|c| c.enabled)
}

/// Whether `h`'s logs DaemonSet runs a config in Alloy's own syntax
/// ([`crate::alloy_native::logs`]): runtime `alloy` without `spec.alloy.configFormat:
/// static`, and nothing [`not_native_logs`] names. The config and the pods' arguments both
/// follow this one answer.
pub fn native_logs(h: &Hierarchy) -> bool {
    native_requested(h) && not_native_logs(h).next().is_none()
}

/// What keeps an agent's logs static under `configFormat: native`, with the field to name and
/// why: each selected LogsInstance's `additionalScrapeConfigs` (raw promtail jobs, which have
/// no native translation yet), and `spec.expandUserStrings: true` (users' strings expanded
/// from the pod's environment, which the static config's envsubst does and Alloy's syntax
/// does not).
fn not_native_logs(
    h: &Hierarchy,
) -> impl Iterator<Item = (InputRef, &'static str, &'static str)> + '_ {
    let additional = h
        .logs
        .iter()
        .filter(|node| node.instance.spec.additional_scrape_configs.is_some())
        .map(|node| {
            (
                node.instance_ref(),
                "spec.additionalScrapeConfigs",
                "has no native Alloy translation yet: the GrafanaAgent's logs config stays in static format (converted by Alloy) while it is selected",
            )
        });
    let expanded = (h.agent.spec.expand_user_strings && !h.logs.is_empty()).then(|| {
        (
            h.agent_ref(),
            "spec.expandUserStrings",
            "expands users' strings from the pods' environment, which only the static format does: the logs config stays in static format (converted by Alloy)",
        )
    });
    additional.chain(expanded)
}

/// `text` as Alloy's identifier sanitiser leaves it: every character other than an ASCII
/// letter, digit or `_` becomes `_`, and a leading digit gets a `_` before it.
pub fn identifier(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) || out.is_empty() {
        out.insert(0, '_');
    }
    out
}

/// Identifiers for `keys` (`<namespace>/<name>`), in order: `<namespace>_<name>` sanitised,
/// with `_2`, `_3`, ... after the first when two would be equal (`a-b/c` and `a/b-c`).
fn unique_identifiers(keys: impl Iterator<Item = String>) -> BTreeMap<String, String> {
    let keys: Vec<String> = keys.collect();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut out = BTreeMap::new();
    // Plain ones first, so that a suffixed name never takes another's plain one.
    let plain: Vec<String> = keys.iter().map(|k| identifier(k)).collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &plain {
        *counts.entry(p.as_str()).or_default() += 1;
    }
    taken.extend(plain.iter().cloned());
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for (key, p) in keys.iter().zip(&plain) {
        let name = if seen.insert(p.as_str()) {
            p.clone()
        } else {
            (2..)
                .map(|n| format!("{p}_{n}"))
                .find(|candidate| !taken.contains(candidate))
                .unwrap_or_default()
        };
        taken.insert(name.clone());
        out.insert(key.clone(), name);
    }
    out
}

/// The name `instance` (a MetricsInstance or LogsInstance of `h`) has in the configs: its
/// key `<namespace>/<name>` with the agent, a collision-free identifier with Alloy.
pub fn instance_name(h: &Hierarchy, instance: &InputRef) -> String {
    let key = instance.key();
    if runtime(h) != Runtime::Alloy {
        return key;
    }
    let names = match instance.kind {
        Kind::LogsInstance => unique_identifiers(h.logs.iter().map(|n| n.instance_ref().key())),
        _ => unique_identifiers(h.metrics.iter().map(|n| n.instance_ref().key())),
    };
    names.get(&key).cloned().unwrap_or_else(|| identifier(&key))
}

/// The agent's positions file of logs instance `key` under `directory`: with Alloy it is
/// given explicitly, so that the renamed instance keeps reading (and Alloy imports) it.
pub fn positions_file(directory: &str, key: &str) -> String {
    format!("{directory}/{key}.yml")
}

/// Integrations the agent runs (integrations-next names, the `<name>_configs` keys) that
/// Alloy's static converter refuses (an error: the whole config would not load). It converts
/// every other one the agent knows (agent, apache_http, app_agent_receiver, blackbox,
/// eventhandler, snmp and the exporters from azure to windows).
const REFUSED_INTEGRATIONS: &[(&str, &str)] = &[
    (
        "vsphere",
        " (removed in Alloy v1.0; otelcol.receiver.vcenter replaces it)",
    ),
    ("catchpoint", ""),
];

/// Integrations that export no metrics of their own: no metrics instance is wired to them.
const WITHOUT_METRICS: &[&str] = &["eventhandler"];

/// The config of `integration` as Alloy must get it (`config` is the agent's, keys sorted),
/// or why Alloy cannot run it. Only for runtime `alloy`:
///
/// * `autoscrape.metrics_instance` is always explicit: the instance named (`<ns>/<name>`, or
///   its Alloy name) rewritten to its Alloy name; unset, the agent's first MetricsInstance.
///   Naming no instance of the agent, or an agent without any, refuses the Integration (the
///   converter fails the whole config on it).
/// * `logs_instance` (eventhandler) is rewritten likewise.
/// * names and fields the converter refuses refuse the Integration.
pub fn integration_config(
    h: &Hierarchy,
    integration: &Integration,
    config: Value,
) -> Result<Value, Rejection> {
    let me = InputRef::of(Kind::Integration, integration);
    let refuse = |field: String, message: String| {
        Rejection::new(me.clone(), Reason::AlloyRefuses, field, message)
    };
    let name = integration.spec.name.as_str();
    if let Some((_, why)) = REFUSED_INTEGRATIONS.iter().find(|(n, _)| *n == name) {
        return Err(refuse(
            "spec.name".to_owned(),
            format!(
                "runtime alloy: Alloy's static converter does not convert the {name:?} integration{why}; run this agent with runtime agent, or replace the integration"
            ),
        ));
    }
    let Value::Object(mut map) = config else {
        return Ok(config);
    };
    if name == "app_agent_receiver"
        && map
            .get("traces_instance")
            .is_some_and(|v| !v.is_null() && v != "")
    {
        return Err(refuse(
            "spec.config.traces_instance".to_owned(),
            "runtime alloy: Alloy's static converter refuses app_agent_receiver traces_instance (the operator runs no traces instance)".to_owned(),
        ));
    }
    if name == "eventhandler" {
        // Whole seconds, as the agent's eventhandler reads them (a string is no value there).
        for (key, default) in [
            ("send_timeout", 60),
            ("informer_resync", 120),
            ("flush_interval", 10),
        ] {
            if let Some(v) = map.get(key).filter(|v| !v.is_null())
                && v.as_i64() != Some(default)
            {
                return Err(refuse(
                    format!("spec.config.{key}"),
                    format!(
                        "runtime alloy: Alloy's static converter refuses eventhandler {key} other than its default {default} (seconds)"
                    ),
                ));
            }
        }
        if let Some(Value::String(logs)) = map.get("logs_instance") {
            let alloy_name = resolve(h, Kind::LogsInstance, logs).ok_or_else(|| {
                refuse(
                    "spec.config.logs_instance".to_owned(),
                    format!(
                        "runtime alloy: {logs:?} is not a LogsInstance of this agent; Alloy refuses the whole config over it"
                    ),
                )
            })?;
            map.insert("logs_instance".to_owned(), Value::String(alloy_name));
        }
    }
    if WITHOUT_METRICS.contains(&name) {
        return Ok(Value::Object(map));
    }
    let mut autoscrape = match map.remove("autoscrape") {
        Some(Value::Object(a)) => a,
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(other) => {
            map.insert("autoscrape".to_owned(), other);
            return Ok(Value::Object(map));
        }
    };
    let instance = match autoscrape.get("metrics_instance") {
        Some(Value::String(named)) => resolve(h, Kind::MetricsInstance, named).ok_or_else(|| {
            refuse(
                "spec.config.autoscrape.metrics_instance".to_owned(),
                format!(
                    "runtime alloy: {named:?} is not a MetricsInstance of this agent; Alloy refuses the whole config over an integration whose metrics_instance it cannot find"
                ),
            )
        })?,
        _ => {
            let first = h.metrics.first().ok_or_else(|| {
                refuse(
                    "spec.config.autoscrape.metrics_instance".to_owned(),
                    "runtime alloy: Alloy ships every integration's metrics through a MetricsInstance (it does not read autoscrape.enable) and this agent selects none; select a MetricsInstance with spec.metrics.instanceSelector".to_owned(),
                )
            })?;
            instance_name(h, &first.instance_ref())
        }
    };
    autoscrape.insert("metrics_instance".to_owned(), Value::String(instance));
    map.insert("autoscrape".to_owned(), Value::Object(autoscrape));
    Ok(Value::Object(map))
}

/// The label of the components Alloy makes of `integration`'s scrape
/// (`prometheus.scrape.integrations_<instance or name>`), which must differ from every other
/// Integration's in the same workload; `None` for an integration without metrics.
pub fn integration_label(integration: &Integration) -> Option<String> {
    let name = integration.spec.name.as_str();
    if WITHOUT_METRICS.contains(&name) {
        return None;
    }
    let instance = integration
        .spec
        .config
        .get("instance")
        .and_then(Value::as_str)
        .filter(|i| !i.is_empty())
        .unwrap_or(name);
    Some(identifier(&format!("integrations_{instance}")))
}

/// The Alloy name of the instance of `kind` that `named` designates (its `<ns>/<name>` key
/// or already its Alloy name).
fn resolve(h: &Hierarchy, kind: Kind, named: &str) -> Option<String> {
    let keys: Vec<InputRef> = match kind {
        Kind::LogsInstance => h.logs.iter().map(|n| n.instance_ref()).collect(),
        _ => h.metrics.iter().map(|n| n.instance_ref()).collect(),
    };
    keys.iter()
        .map(|r| (r.key(), instance_name(h, r)))
        .find(|(key, alloy)| key == named || alloy == named)
        .map(|(_, alloy)| alloy)
}

/// The component labels already given out in one config, each with who holds it and for
/// what (for the message of the object that comes later).
#[derive(Default)]
struct Labels {
    holders: BTreeMap<String, (InputRef, String)>,
}

/// A label two jobs would share: the label, what of the later object gets it, and who
/// holds it already.
struct Collision {
    label: String,
    what: String,
    holder: String,
}

impl Labels {
    /// Claims `labels` (each label with what gets it, e.g. `scrape job ...`) for `object`:
    /// all of them, or none when one is held by another object or twice by `object`.
    fn claim(&mut self, object: &InputRef, labels: Vec<(String, String)>) -> Result<(), Collision> {
        let mut mine: BTreeMap<&str, &str> = BTreeMap::new();
        for (label, what) in &labels {
            let holder = match self.holders.get(label) {
                Some((holder, theirs)) if holder != object => Some(format!("{theirs} of {holder}")),
                _ => mine
                    .insert(label, what)
                    .map(|earlier| format!("its {earlier}")),
            };
            if let Some(holder) = holder {
                return Err(Collision {
                    label: label.clone(),
                    what: what.clone(),
                    holder,
                });
            }
        }
        for (label, what) in labels {
            self.holders.insert(label, (object.clone(), what));
        }
        Ok(())
    }
}

/// The job names in the `additionalScrapeConfigs` value `sel` of an instance in `namespace`,
/// by item; `None` when the value cannot be read or parsed (rendering reports that).
fn additional_job_names(
    h: &Hierarchy,
    namespace: &str,
    sel: &SecretKeySelector,
) -> Option<(AssetKey, Vec<String>)> {
    let key = AssetKey::secret(namespace, sel);
    let text = h.assets.value(&key).ok()?;
    let items: Vec<Value> = serde_saphyr::from_str(&text).ok()?;
    let names = items
        .iter()
        .map(|item| {
            item.get("job_name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    Some((key, names))
}

/// Claims the labels of an instance's `additionalScrapeConfigs` items; `Err` with the
/// rejection of the instance's field when one collides. A name exactly equal to an earlier
/// job's is left to rendering, which refuses it for any runtime. The message names items by
/// position, never by their job name (a Secret's value).
fn claim_additional(
    taken: &mut Labels,
    instance: &InputRef,
    source: &AssetKey,
    names: &[String],
    label: impl Fn(&str) -> String,
    generated: &BTreeSet<String>,
) -> Result<(), Rejection> {
    let mut seen = BTreeSet::new();
    if names
        .iter()
        .any(|n| generated.contains(n) || !seen.insert(n.as_str()))
    {
        return Ok(());
    }
    let labels = names
        .iter()
        .enumerate()
        .filter(|(_, n)| !n.is_empty())
        .map(|(i, n)| {
            (
                label(n),
                format!("additional scrape config {source} item [{i}]"),
            )
        })
        .collect();
    taken.claim(instance, labels).map_err(|c| {
        Rejection::new(
            instance.clone(),
            Reason::AlloyRefuses,
            "spec.additionalScrapeConfigs".to_owned(),
            format!(
                "runtime alloy: the job_name of {} gives the same Alloy component label as {}; Alloy's converter refuses the whole config over two components of one label, so the additional scrape configs are left out: rename one of the jobs",
                c.what, c.holder
            ),
        )
    })
}

/// The rejection of a monitor or PodLogs (of `instance`) whose job label collides.
fn collision(object: InputRef, instance: &InputRef, c: Collision) -> Rejection {
    let kind = object.kind;
    Rejection::new(
        object,
        Reason::AlloyRefuses,
        "metadata.name".to_owned(),
        format!(
            "runtime alloy: in {instance}, its {} becomes the Alloy component label {}, as the {} does; Alloy's converter refuses the whole config over two components of one label, so this {kind} is left out: rename one of them",
            c.what, c.label, c.holder
        ),
    )
}

/// `h` without what would give two of Alloy's components one label, and the rejections of
/// what was left out. Alloy names the components of a scrape job after its instance and
/// job (`metrics_<instance>_<job>`, `logs_<instance>_<job>`) with every character other
/// than a letter, digit or `_` replaced by `_`, so ServiceMonitors `a-b/c` and `a/b-c`
/// (jobs `serviceMonitor/a-b/c/0`, `serviceMonitor/a/b-c/0`) agree, and its converter then
/// refuses the whole config. Walking each config in order (instances in discovery order;
/// in each, ServiceMonitors, PodMonitors, Probes and ScrapeConfigs or PodLogs, then the
/// `additionalScrapeConfigs`), the later object is left out: a monitor or PodLogs on
/// `metadata.name`, an instance's additional scrape configs on
/// `spec.additionalScrapeConfigs`. Job names are kept as they are, since a job name is
/// the `job` label of the samples of a job that does not set one. Borrowed when nothing
/// collides, and always for runtime `agent`.
pub fn without_label_collisions(h: &Hierarchy) -> (Cow<'_, Hierarchy>, Vec<Rejection>) {
    if runtime(h) != Runtime::Alloy {
        return (Cow::Borrowed(h), Vec::new());
    }
    let mut rejections = Vec::new();
    let mut taken = Labels::default();
    let mut metrics = Vec::new();
    for node in &h.metrics {
        let instance = node.instance_ref();
        let name = instance_name(h, &instance);
        let label = |job: &str| identifier(&format!("metrics_{name}_{job}"));
        let mut generated = BTreeSet::new();
        // `discoveries`: a ScrapeConfig's discovery components by kind, with how many; the
        // first of a kind takes the job's label, the next `<label>_2`, ... (the converter's
        // labels): claimed per kind, so that another job whose label is one of those cannot
        // give two discovery components of one kind one label.
        let mut keep =
            |object: InputRef, jobs: Vec<String>, discoveries: &[(&str, usize)]| -> bool {
                let mut labels: Vec<(String, String)> = jobs
                    .iter()
                    .map(|job| (label(job), format!("scrape job {job}")))
                    .collect();
                for job in &jobs {
                    for (kind, count) in discoveries {
                        for n in 1..=*count {
                            let own = match n {
                                1 => label(job),
                                n => format!("{}_{n}", label(job)),
                            };
                            labels.push((
                                format!("{kind} {own}"),
                                format!("{kind} {n} of scrape job {job}"),
                            ));
                        }
                    }
                }
                match taken.claim(&object, labels) {
                    Ok(()) => {
                        generated.extend(jobs);
                        true
                    }
                    Err(c) => {
                        rejections.push(collision(object, &instance, c));
                        false
                    }
                }
            };
        let service_monitors: Vec<_> = node
            .service_monitors
            .iter()
            .filter(|m| {
                let r = InputRef::of(Kind::ServiceMonitor, m.as_ref());
                let jobs = (0..m.spec.endpoints.len())
                    .map(|i| format!("serviceMonitor/{}/{}/{i}", r.namespace, r.name))
                    .collect();
                keep(r, jobs, &[])
            })
            .cloned()
            .collect();
        let pod_monitors: Vec<_> = node
            .pod_monitors
            .iter()
            .filter(|m| {
                let r = InputRef::of(Kind::PodMonitor, m.as_ref());
                let jobs = (0..m.spec.pod_metrics_endpoints.len())
                    .map(|i| format!("podMonitor/{}/{}/{i}", r.namespace, r.name))
                    .collect();
                keep(r, jobs, &[])
            })
            .cloned()
            .collect();
        let probes: Vec<_> = node
            .probes
            .iter()
            .filter(|p| {
                let r = InputRef::of(Kind::Probe, p.as_ref());
                let jobs = vec![format!("probe/{}/{}", r.namespace, r.name)];
                keep(r, jobs, &[])
            })
            .cloned()
            .collect();
        let scrape_configs: Vec<_> = node
            .scrape_configs
            .iter()
            .filter(|s| {
                let r = InputRef::of(Kind::ScrapeConfig, s.as_ref());
                let jobs = vec![format!("scrapeConfig/{}/{}", r.namespace, r.name)];
                let spec = &s.spec;
                let discoveries = [
                    ("discovery.consul", spec.consul_sd_configs.len()),
                    ("discovery.dns", spec.dns_sd_configs.len()),
                    ("discovery.ec2", spec.ec2_sd_configs.len()),
                    ("discovery.file", spec.file_sd_configs.len()),
                    ("discovery.http", spec.http_sd_configs.len()),
                    ("discovery.kubernetes", spec.kubernetes_sd_configs.len()),
                ];
                keep(r, jobs, &discoveries)
            })
            .cloned()
            .collect();
        let mut instance_object = node.instance.clone();
        if let Some(sel) = &node.instance.spec.additional_scrape_configs
            && let Some((source, names)) = additional_job_names(h, &instance.namespace, sel)
            && let Err(r) =
                claim_additional(&mut taken, &instance, &source, &names, label, &generated)
        {
            rejections.push(r);
            let mut stripped = node.instance.as_ref().clone();
            stripped.spec.additional_scrape_configs = None;
            instance_object = Arc::new(stripped);
        }
        metrics.push(MetricsInstanceNode {
            instance: instance_object,
            service_monitors,
            pod_monitors,
            probes,
            scrape_configs,
        });
    }
    let mut taken = Labels::default();
    let mut logs = Vec::new();
    for node in &h.logs {
        let instance = node.instance_ref();
        let name = instance_name(h, &instance);
        let label = |job: &str| format!("logs_{name}_{}", identifier(job));
        let mut generated = BTreeSet::new();
        let pod_logs: Vec<_> = node
            .pod_logs
            .iter()
            .filter(|p| {
                let r = InputRef::of(Kind::PodLogs, p.as_ref());
                let job = format!("podLogs/{}/{}", r.namespace, r.name);
                let labels = vec![(label(&job), format!("scrape job {job}"))];
                match taken.claim(&r, labels) {
                    Ok(()) => {
                        generated.insert(job);
                        true
                    }
                    Err(c) => {
                        rejections.push(collision(r, &instance, c));
                        false
                    }
                }
            })
            .cloned()
            .collect();
        let mut instance_object = node.instance.clone();
        if let Some(sel) = &node.instance.spec.additional_scrape_configs
            && let Some((source, names)) = additional_job_names(h, &instance.namespace, sel)
            && let Err(r) =
                claim_additional(&mut taken, &instance, &source, &names, label, &generated)
        {
            rejections.push(r);
            let mut stripped = node.instance.as_ref().clone();
            stripped.spec.additional_scrape_configs = None;
            instance_object = Arc::new(stripped);
        }
        logs.push(LogsInstanceNode {
            instance: instance_object,
            pod_logs,
        });
    }
    if rejections.is_empty() {
        return (Cow::Borrowed(h), rejections);
    }
    let filtered = Hierarchy {
        metrics,
        logs,
        ..h.clone()
    };
    (Cow::Owned(filtered), rejections)
}

/// Whether a MetricsInstance sets a field.
type IsSet = fn(&api::MetricsInstance) -> bool;

/// What Alloy does differently from the agent with `h`'s objects, each on the object and
/// field concerned: settings it drops (and what it does instead). Empty for runtime `agent`.
/// `metrics_kept_static`: what keeps the metrics config static under `configFormat: native`
/// (`crate::alloy_native::metrics_kept_static`, asked by the caller: this module sits below
/// the native writer).
pub fn warnings(
    h: &Hierarchy,
    metrics_kept_static: &[(InputRef, &'static str, String)],
) -> Vec<Rejection> {
    let native_metrics = native_requested(h) && metrics_kept_static.is_empty();
    if runtime(h) != Runtime::Alloy {
        return Vec::new();
    }
    let mut out = Vec::new();
    let agent = h.agent_ref();
    let spec = &h.agent.spec;
    if spec.version.as_deref().is_some_and(|v| !v.is_empty()) {
        out.push(Rejection::new(
            agent.clone(),
            Reason::AlloyDifference,
            "spec.version".to_owned(),
            format!(
                "is a Grafana Agent tag and not used with runtime alloy: the pods run {}:{} unless spec.image names another image",
                ALLOY_BASE_IMAGE, ALLOY_VERSION
            ),
        ));
    }
    if spec.enable_config_read_api {
        out.push(Rejection::new(
            agent.clone(),
            Reason::AlloyDifference,
            "spec.enableConfigReadAPI".to_owned(),
            "Alloy has no config read API (/-/config); its web UI on the same port shows the converted configuration instead",
        ));
    }
    let wal_fields: [(&str, IsSet, &str); 5] = [
        (
            "spec.walTruncateFrequency",
            |m| {
                m.spec
                    .wal_truncate_frequency
                    .as_deref()
                    .is_some_and(|v| !v.is_empty())
            },
            "Alloy truncates the WAL every 2h (prometheus.remote_write wal.truncate_frequency)",
        ),
        (
            "spec.minWALTime",
            |m| {
                m.spec
                    .min_wal_time
                    .as_deref()
                    .is_some_and(|v| !v.is_empty())
            },
            "Alloy keeps samples at least 5m (wal.min_keepalive_time)",
        ),
        (
            "spec.maxWALTime",
            |m| {
                m.spec
                    .max_wal_time
                    .as_deref()
                    .is_some_and(|v| !v.is_empty())
            },
            "Alloy keeps samples at most 8h (wal.max_keepalive_time)",
        ),
        (
            "spec.remoteFlushDeadline",
            |m| {
                m.spec
                    .remote_flush_deadline
                    .as_deref()
                    .is_some_and(|v| !v.is_empty())
            },
            "Alloy has no flush deadline on shutdown: unsent samples stay in the WAL on the data volume for the next start",
        ),
        (
            "spec.writeStaleOnShutdown",
            |m| m.spec.write_stale_on_shutdown == Some(true),
            "Alloy writes no staleness markers on shutdown",
        ),
    ];
    // The native config writes the first three (prometheus.remote_write's wal block).
    let native = native_metrics;
    for node in &h.metrics {
        let instance = node.instance.as_ref();
        for (i, (field, set, instead)) in wal_fields.iter().enumerate() {
            if set(instance) && !(native && i < 3) {
                out.push(Rejection::new(
                    node.instance_ref(),
                    Reason::AlloyDifference,
                    (*field).to_owned(),
                    format!("not used by Alloy (its static converter drops it): {instead}"),
                ));
            }
        }
    }
    if static_chosen(h) {
        out.push(Rejection::new(
            agent.clone(),
            Reason::AlloyDifference,
            "spec.alloy.configFormat".to_owned(),
            "is static, the rollback kept for one release: Alloy converts the generated static-mode configs itself (its converter is a public preview, outside Alloy's compatibility promise) instead of running the configs the operator writes in Alloy's syntax; remove the field to run those (native, the default)",
        ));
    }
    if clustering_requested(h) && !native_metrics && !h.metrics.is_empty() {
        let why = if static_chosen(h) {
            "is not used with spec.alloy.configFormat: static (the converter writes clustering off)"
        } else {
            "is not used while a MetricsInstance keeps the metrics config in static format (its spec.additionalScrapeConfigs, warned about on it): Alloy clusters only a native metrics config"
        };
        out.push(Rejection::new(
            agent.clone(),
            Reason::AlloyDifference,
            "spec.alloy.clustering.enabled".to_owned(),
            format!(
                "{why}; the metrics run one StatefulSet per shard, split by relabel rules, as without clustering"
            ),
        ));
    }
    if native_requested(h) {
        for (object, field, why) in not_native_logs(h) {
            out.push(Rejection::new(
                object,
                Reason::AlloyDifference,
                field.to_owned(),
                why,
            ));
        }
        for (object, field, why) in metrics_kept_static {
            out.push(Rejection::new(
                object.clone(),
                Reason::AlloyDifference,
                (*field).to_owned(),
                why.clone(),
            ));
        }
    }
    for integration in &h.integrations {
        if integration.spec.name == "snmp" {
            out.extend(snmp_walk_params_without_retries(integration));
        }
        if WITHOUT_METRICS.contains(&integration.spec.name.as_str()) {
            continue;
        }
        let enabled = integration
            .spec
            .config
            .get("autoscrape")
            .and_then(|a| a.get("enable"))
            .and_then(Value::as_bool);
        if enabled != Some(true) {
            out.push(Rejection::new(
                InputRef::of(Kind::Integration, integration.as_ref()),
                Reason::AlloyDifference,
                "spec.config.autoscrape.enable".to_owned(),
                format!(
                    "is {}, and Alloy does not read it: Alloy scrapes the integration and ships its metrics through its metrics_instance",
                    match enabled {
                        Some(false) => "false",
                        _ => "unset (false: the operator disables autoscrape globally)",
                    }
                ),
            ));
        }
    }
    out.sort();
    out
}

/// A snmp `walk_params` entry without `retries`: the agent then keeps the module's retries,
/// while Alloy's `walk_param` block has no unset value (the converter and the native writer
/// alike leave it out, which Alloy reads as 0).
fn snmp_walk_params_without_retries(integration: &Integration) -> Vec<Rejection> {
    let Some(Value::Object(params)) = integration.spec.config.get("walk_params") else {
        return Vec::new();
    };
    params
        .iter()
        .filter(|(_, p)| p.get("retries").is_none_or(Value::is_null))
        .map(|(name, _)| {
            Rejection::new(
                InputRef::of(Kind::Integration, integration),
                Reason::AlloyDifference,
                format!("spec.config.walk_params.{name}.retries"),
                "is unset: the agent then keeps the module's retries, but Alloy's walk_param block has no unset value and its targets are walked without retries (0); set retries to keep them".to_owned(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of the repository, by its path from the root.
    fn repo_file(path: &str) -> String {
        let full = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
    }

    /// One version everywhere: the default image's tag is the release tools/alloy builds for
    /// the tests (and scripts/build-images tags), so the tests run what the operator deploys.
    #[test]
    fn the_default_alloy_is_the_alloy_the_tests_build() {
        let go_mod = repo_file("tools/alloy/go.mod");
        let pinned: Vec<&str> = go_mod
            .lines()
            .filter_map(|line| line.strip_prefix("require github.com/grafana/alloy "))
            .map(str::trim)
            .collect();
        assert_eq!(
            pinned,
            [ALLOY_VERSION],
            "tools/alloy/go.mod's `require github.com/grafana/alloy <version>` line and \
             ALLOY_VERSION must name the same release"
        );
        // The docs and the CRD descriptions that name the default image name this one.
        let tag = format!("{ALLOY_BASE_IMAGE}:");
        for path in [
            "README.md",
            "docs/alloy.md",
            "docs/crd-reference.md",
            "deploy/crds/crds.yaml",
            "crates/api/src/grafana_agent.rs",
        ] {
            let text = repo_file(path);
            let tags: BTreeSet<&str> = text
                .match_indices(&tag)
                .map(|(at, _)| {
                    let rest = &text[at + tag.len()..];
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
                        .unwrap_or(rest.len());
                    rest[..end].trim_end_matches('.')
                })
                .collect();
            assert!(
                tags.iter().all(|t| *t == ALLOY_VERSION),
                "{path} names {tag}{tags:?}, not {tag}{ALLOY_VERSION}"
            );
        }
    }

    #[test]
    fn identifiers_are_what_alloy_sanitises_to() {
        assert_eq!(identifier("operator/default"), "operator_default");
        assert_eq!(identifier("a-b.c/d"), "a_b_c_d");
        assert_eq!(identifier("1st/x"), "_1st_x");
    }

    /// The agent, instances and monitors of `testdata/workloads/alloy-label-collisions`,
    /// planned with `runtime`: the rejections and the config texts.
    fn plan_collisions(runtime: Runtime) -> (Vec<String>, String) {
        let text = include_str!("../../../testdata/workloads/alloy-label-collisions/input.yaml");
        let mut loader = crate::manifest::Loader::new();
        loader.add_source("input.yaml", text);
        let store = loader.finish().store;
        let opts = crate::PlanOptions {
            runtime,
            ..Default::default()
        };
        let plans = crate::output::plan_all(&store, &opts, None);
        let plan = &plans[0];
        let mut rejections: Vec<String> = plan
            .rejections
            .iter()
            .map(|r| format!("{} {}", r.object, r.field.as_deref().unwrap_or_default()))
            .collect();
        rejections.sort();
        let configs = plan
            .configs
            .iter()
            .map(|c| c.text.as_str().to_owned())
            .collect::<Vec<_>>()
            .join("\n");
        (rejections, configs)
    }

    #[test]
    fn jobs_whose_alloy_labels_collide_leave_the_later_object_out() {
        let (rejections, configs) = plan_collisions(Runtime::Alloy);
        assert_eq!(
            rejections,
            [
                "LogsInstance monitoring/primary spec.additionalScrapeConfigs",
                "MetricsInstance monitoring/primary spec.additionalScrapeConfigs",
                "PodLogs a-p/q metadata.name",
                "PodMonitor a-x/z metadata.name",
                "ServiceMonitor a-b/c metadata.name",
            ]
        );
        for kept in [
            "job_name: serviceMonitor/a/b-c/0",
            "job_name: serviceMonitor/a-b/kept/0",
            "job_name: podMonitor/a/x-z/0",
            "job_name: podLogs/a/p-q",
        ] {
            assert!(configs.contains(kept), "{kept} missing:\n{configs}");
        }
        for left_out in ["a-b/c/", "a-x/z/", "podLogs/a-p/q", "extra", "p_q"] {
            assert!(!configs.contains(left_out), "{left_out} in:\n{configs}");
        }
    }

    #[test]
    fn the_agent_runs_jobs_whose_names_differ_only_in_punctuation() {
        let (rejections, configs) = plan_collisions(Runtime::Agent);
        assert_eq!(rejections, Vec::<String>::new());
        for job in ["serviceMonitor/a-b/c/1", "extra_job", "podLogs/a-p/q"] {
            assert!(configs.contains(job), "{job} missing:\n{configs}");
        }
    }

    /// What the plan of a GrafanaAgent of runtime alloy gives: its warnings (`<field>:
    /// <message>`), whether its metrics and logs configs are in Alloy's syntax, and how many
    /// StatefulSets it runs.
    struct PlannedAlloyAgent {
        warnings: Vec<String>,
        native_metrics: bool,
        native_logs: bool,
        statefulsets: usize,
    }

    /// Plans a GrafanaAgent of runtime alloy with 2 shards, a MetricsInstance and a
    /// LogsInstance, whose spec has `spec_lines` (YAML at the spec's indentation) as well.
    fn plan_alloy_agent(spec_lines: &str) -> PlannedAlloyAgent {
        let text = format!(
            "apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {{name: agent, namespace: monitoring}}
spec:
  runtime: alloy
{spec_lines}  metrics:
    shards: 2
    instanceSelector: {{}}
  logs:
    instanceSelector: {{}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: primary, namespace: monitoring}}
spec:
  remoteWrite:
  - url: http://mimir/api/v1/push
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {{name: primary, namespace: monitoring}}
spec:
  clients:
  - url: http://loki/loki/api/v1/push
"
        );
        let mut loader = crate::manifest::Loader::new();
        loader.add_source("input.yaml", &text);
        let loaded = loader.finish();
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let plans = crate::output::plan_all(&loaded.store, &crate::PlanOptions::default(), None);
        let plan = &plans[0];
        assert!(plan.rejections.is_empty(), "{:?}", plan.rejections);
        let native = |subsystem| {
            plan.configs
                .iter()
                .find(|c| c.subsystem == subsystem)
                .expect("a config of each subsystem")
                .alloy_syntax
        };
        PlannedAlloyAgent {
            warnings: plan
                .warnings
                .iter()
                .map(|w| format!("{}: {}", w.field.as_deref().unwrap_or_default(), w.message))
                .collect(),
            native_metrics: native(crate::desired::Subsystem::Metrics),
            native_logs: native(crate::desired::Subsystem::Logs),
            statefulsets: plan
                .objects
                .iter()
                .filter(|o| matches!(o.object, crate::desired::DesiredObject::StatefulSet(_)))
                .count(),
        }
    }

    #[test]
    fn runtime_alloy_writes_alloy_syntax_unless_static_is_chosen() {
        let default = plan_alloy_agent("");
        assert!(
            default.native_metrics && default.native_logs,
            "no spec.alloy: native"
        );
        assert_eq!(default.warnings, Vec::<String>::new());

        let rollback = plan_alloy_agent("  alloy: {configFormat: static}\n");
        assert!(!rollback.native_metrics && !rollback.native_logs);
        assert_eq!(rollback.warnings.len(), 1, "{:?}", rollback.warnings);
        assert!(
            rollback.warnings[0].starts_with("spec.alloy.configFormat: is static, the rollback"),
            "{:?}",
            rollback.warnings
        );
    }

    /// A workload that falls back to the static format under `native` (the default) is
    /// warned about on what keeps it static, never as the rollback; the others stay native.
    #[test]
    fn a_workload_that_falls_back_to_static_is_told_apart_from_the_rollback() {
        let fallback = plan_alloy_agent("  expandUserStrings: true\n");
        assert!(fallback.native_metrics && !fallback.native_logs);
        assert_eq!(fallback.warnings.len(), 1, "{:?}", fallback.warnings);
        assert!(
            fallback.warnings[0].starts_with("spec.expandUserStrings: expands users' strings")
                && fallback.warnings[0].contains("the logs config stays in static format"),
            "{:?}",
            fallback.warnings
        );
    }

    #[test]
    fn clustering_alone_clusters_and_static_says_why_it_does_not() {
        let clustered = plan_alloy_agent("  alloy: {clustering: {enabled: true}}\n");
        assert!(clustered.native_metrics);
        assert_eq!(clustered.warnings, Vec::<String>::new());
        assert_eq!(
            clustered.statefulsets, 1,
            "one StatefulSet of 2 clustered pods"
        );

        let rollback =
            plan_alloy_agent("  alloy: {configFormat: static, clustering: {enabled: true}}\n");
        assert_eq!(rollback.statefulsets, 2, "one StatefulSet per shard");
        assert!(
            rollback.warnings.iter().any(|w| w.starts_with(
                "spec.alloy.clustering.enabled: is not used with spec.alloy.configFormat: static"
            )),
            "{:?}",
            rollback.warnings
        );
    }

    #[test]
    fn names_equal_after_sanitising_get_distinct_suffixes() {
        let names = unique_identifiers(
            ["a-b/c", "a/b-c", "a_b_c_2/x", "z/y"]
                .into_iter()
                .map(String::from),
        );
        assert_eq!(names["a-b/c"], "a_b_c");
        assert_eq!(names["a/b-c"], "a_b_c_2");
        assert_eq!(names["z/y"], "z_y");
        let values: BTreeSet<&String> = names.values().collect();
        assert_eq!(values.len(), names.len(), "{names:?}");
    }
}
