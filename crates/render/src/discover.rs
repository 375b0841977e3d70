//! Phase 1: from one GrafanaAgent and the inputs ([`InputView`]), the hierarchy of selected
//! objects (spec 2).
//!
//! Pure and synchronous. Everything comes out ordered by (namespace, name) (fix for Q5).
//! Beside the hierarchy and the rejections, [`Discovery`] gives:
//!
//! * [`Dependencies`]: the objects selected, the selectors evaluated and the Secrets and
//!   ConfigMaps referenced, from which [`crate::index::ReverseIndex`] tells which agents an
//!   object change affects without calling the API;
//! * `to_load`: referenced Secrets/ConfigMaps that exist but whose referenced values the
//!   store does not hold at their current resourceVersion (the controller watches them
//!   metadata-only). That is not a rejection. The controller's loop is:
//!
//!   ```text
//!   loop {
//!       let d = discover(agent, &store);
//!       if d.to_load.is_empty() { break plan(&d, ..) }
//!       for (object, keys) in d.to_load {
//!           GET object; store.set_content(kind, ns, name, its resourceVersion,
//!                                         all its key names, the values of `keys`)
//!       }
//!   }
//!   ```
//!
//!   Each pass loads what the previous one found missing; an object that changed again
//!   between the watch event and the GET is caught by the next watch event. `render` loads
//!   every value from files, so `to_load` is always empty there.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use api::grafana_agent::GrafanaAgent;
use api::{
    Integration, LogsInstance, MetricsInstance, PodLogs, PodMonitor, Probe, ScrapeConfig,
    ServiceMonitor,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::asset_key::DataRef;
use crate::assets::{AssetKey, Assets};
use crate::dependencies::{Dependencies, SelectorDependency};
use crate::desired::generated_names;
use crate::input_ref::{InputRef, Kind};
use crate::journal::Journal;
use crate::references::{self, Reference};
use crate::rejection::{Reason, Rejection};
use crate::selector;
use crate::store::{Input, InputView, labels_of};

/// The label the API server sets on every namespace, its value the namespace's name.
const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// A MetricsInstance and the monitors it selected.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsInstanceNode {
    pub instance: Arc<MetricsInstance>,
    pub service_monitors: Vec<Arc<ServiceMonitor>>,
    pub pod_monitors: Vec<Arc<PodMonitor>>,
    pub probes: Vec<Arc<Probe>>,
    pub scrape_configs: Vec<Arc<ScrapeConfig>>,
}

impl MetricsInstanceNode {
    pub fn instance_ref(&self) -> InputRef {
        InputRef::of(Kind::MetricsInstance, self.instance.as_ref())
    }
}

impl LogsInstanceNode {
    pub fn instance_ref(&self) -> InputRef {
        InputRef::of(Kind::LogsInstance, self.instance.as_ref())
    }
}

/// A LogsInstance and the PodLogs it selected.
#[derive(Debug, Clone, PartialEq)]
pub struct LogsInstanceNode {
    pub instance: Arc<LogsInstance>,
    pub pod_logs: Vec<Arc<PodLogs>>,
}

/// Everything one GrafanaAgent selected, plus the values of every Secret/ConfigMap key the
/// selected objects refer to.
#[derive(Debug, Clone, PartialEq)]
pub struct Hierarchy {
    pub agent: Arc<GrafanaAgent>,
    pub metrics: Vec<MetricsInstanceNode>,
    pub logs: Vec<LogsInstanceNode>,
    pub integrations: Vec<Arc<Integration>>,
    pub assets: Assets,
    /// For each selected PodLogs whose `namespaceSelector` is a valid label selector (Alloy's
    /// spelling), the namespaces it matches, by name; none when the agent ignores namespace
    /// selectors.
    pub pod_namespaces: BTreeMap<InputRef, Vec<String>>,
}

impl Hierarchy {
    pub fn agent_ref(&self) -> InputRef {
        InputRef::of(Kind::GrafanaAgent, self.agent.as_ref())
    }

    pub fn agent_namespace(&self) -> &str {
        self.agent.metadata.namespace.as_deref().unwrap_or_default()
    }

    pub fn agent_name(&self) -> &str {
        self.agent.metadata.name.as_deref().unwrap_or_default()
    }

    /// How many objects of `kind` the agent selected; `None` for the kinds no selector picks
    /// (the agent itself, and the Secrets, ConfigMaps and Namespaces it reads).
    pub fn selected(&self, kind: Kind) -> Option<usize> {
        let monitors =
            |count: fn(&MetricsInstanceNode) -> usize| self.metrics.iter().map(count).sum();
        match kind {
            Kind::MetricsInstance => Some(self.metrics.len()),
            Kind::LogsInstance => Some(self.logs.len()),
            Kind::Integration => Some(self.integrations.len()),
            Kind::ServiceMonitor => Some(monitors(|m| m.service_monitors.len())),
            Kind::PodMonitor => Some(monitors(|m| m.pod_monitors.len())),
            Kind::Probe => Some(monitors(|m| m.probes.len())),
            Kind::ScrapeConfig => Some(monitors(|m| m.scrape_configs.len())),
            Kind::PodLogs => Some(self.logs.iter().map(|l| l.pod_logs.len()).sum()),
            Kind::GrafanaAgent | Kind::Secret | Kind::ConfigMap | Kind::Namespace => None,
        }
    }
}

/// The result of discovery for one agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Discovery {
    pub hierarchy: Hierarchy,
    /// Objects (or parts of objects) left out, with the reason.
    pub rejections: Vec<Rejection>,
    /// What the result depends on, for mapping later changes back to this agent.
    pub dependencies: Dependencies,
    /// Referenced Secrets and ConfigMaps that exist but whose referenced values are not loaded
    /// at their current resourceVersion, with every key the hierarchy references in each.
    /// Plan only when this is empty.
    pub to_load: BTreeMap<DataRef, BTreeSet<String>>,
    /// The agent's and its members' fields that our schemas lack, as the inputs recorded them
    /// when each object arrived ([`crate::store::InputView::unknown_fields`]): one warning
    /// (Reason `UnknownField`) per object; the objects run without them.
    pub warnings: Vec<Rejection>,
    /// The inputs' [`crate::journal::Journal::revision`] it was made at, when they keep one:
    /// where [`crate::rediscover`] takes it up from.
    pub revision: Option<u64>,
}

struct Discoverer<'a, V: ?Sized> {
    inputs: &'a V,
    rejections: Vec<Rejection>,
    dependencies: Dependencies,
    /// [`Dependencies::members`] as selected, in runs of (namespace, name) order: made a set
    /// at the end at once, rather than one ordered insertion per member.
    members: Vec<InputRef>,
    assets: Assets,
    pod_namespaces: BTreeMap<InputRef, Vec<String>>,
}

impl<V: InputView + ?Sized> Discoverer<'_, V> {
    /// Objects of kind `T` selected by (`label_selector`, `namespace_selector`) from
    /// `parent`, whose namespace is the default, in (namespace, name) order. Without a
    /// namespace selector only the parent's namespace is read; with one, only the namespaces
    /// it matches. An invalid selector selects nothing and is reported against `parent` at
    /// `field`.
    fn select<T: Input>(
        &mut self,
        parent: &InputRef,
        fields: [&str; 2],
        label_selector: Option<&LabelSelector>,
        namespace_selector: Option<&LabelSelector>,
    ) -> Vec<Arc<T>> {
        let dependency = SelectorDependency::new(
            T::KIND,
            label_selector,
            namespace_selector,
            parent.namespace.clone(),
        );
        for (field, sel) in fields.into_iter().zip([label_selector, namespace_selector]) {
            if let Some(Err(e)) = sel.map(selector::validate) {
                let f = field.to_owned();
                self.rejections.push(Rejection::new(
                    parent.clone(),
                    Reason::InvalidSelector,
                    f,
                    e.to_string(),
                ));
                self.dependencies.selectors.push(dependency);
                return Vec::new();
            }
        }
        let objects = self.inputs.objects::<T>();
        let searched = if dependency.has_namespace_selector() {
            objects.len()
        } else {
            objects.count_in_namespace(&parent.namespace)
        };
        // The objects carrying the label value the selector requires, when that is fewer than
        // the objects of the namespaces it searches.
        let narrowest = dependency
            .required_label_values()
            .into_iter()
            .map(|(key, values)| (objects.count_labelled(key, &values), key, values))
            .min_by_key(|(count, _, _)| *count)
            .filter(|(count, _, _)| *count < searched);
        let selected: Vec<Arc<T>> = if let Some((_, key, values)) = narrowest {
            // The candidates come by namespace: decide each namespace once.
            let mut namespace_decided: Option<(&str, bool)> = None;
            objects
                .labelled(key, &values)
                .into_iter()
                .filter(|(ns, _)| match namespace_decided {
                    Some((decided, selected)) if decided == *ns => selected,
                    _ => {
                        let selected =
                            dependency.matches_namespace(ns, self.inputs.namespace_labels(ns));
                        namespace_decided = Some((ns, selected));
                        selected
                    }
                })
                .map(|(_, c)| c)
                .filter(|c| dependency.matches_labels(labels_of(c.as_ref())))
                .cloned()
                .collect()
        } else if dependency.has_namespace_selector() {
            objects
                .namespaces()
                .filter(|ns| dependency.matches_namespace(ns, self.inputs.namespace_labels(ns)))
                .flat_map(|ns| objects.in_namespace(ns))
                .filter(|c| dependency.matches_labels(labels_of(c.as_ref())))
                .cloned()
                .collect()
        } else {
            objects
                .in_namespace(&parent.namespace)
                .filter(|c| dependency.matches_labels(labels_of(c.as_ref())))
                .cloned()
                .collect()
        };
        self.members
            .extend(selected.iter().map(|o| InputRef::of(T::KIND, o.as_ref())));
        self.dependencies.selectors.push(dependency);
        selected
    }

    /// The namespaces `pod_logs`' label `namespaceSelector` matches (Alloy's spelling), kept
    /// in [`Hierarchy::pod_namespaces`]; the selector and the namespaces matched are depended
    /// on, so a namespace that starts or stops matching reconciles the agent. Every namespace
    /// carries `kubernetes.io/metadata.name` with its name (the API server sets it; files may
    /// leave it out). An invalid selector is left to the config, which rejects the PodLogs.
    fn pod_namespaces(&mut self, pod_logs: &PodLogs) {
        let Some(selector) = pod_logs
            .spec
            .namespace_selector
            .as_ref()
            // An empty selector is every namespace: nothing to look up.
            .filter(|s| !s.selects_every_namespace())
            .and_then(|s| s.label_selector())
        else {
            return;
        };
        let me = InputRef::of(Kind::PodLogs, pod_logs);
        if self.pod_namespaces.contains_key(&me) {
            return;
        }
        self.dependencies.selectors.push(SelectorDependency::new(
            Kind::Namespace,
            None,
            Some(&selector),
            me.namespace.clone(),
        ));
        let Ok(matcher) = selector::LabelMatcher::new(Some(&selector)) else {
            return;
        };
        let matched: Vec<String> = self
            .inputs
            .namespace_names()
            .into_iter()
            .filter(|name| {
                let labels = self.inputs.namespace_labels(name);
                if labels.contains_key(NAMESPACE_NAME_LABEL) {
                    matcher.matches(labels)
                } else {
                    let mut named = labels.clone();
                    named.insert(NAMESPACE_NAME_LABEL.to_owned(), (*name).to_owned());
                    matcher.matches(&named)
                }
            })
            .map(str::to_owned)
            .collect();
        self.dependencies.namespaces.extend(matched.iter().cloned());
        self.pod_namespaces.insert(me, matched);
    }

    /// Resolves `refs` of `owner` into the asset store. Returns false (and reports) when a
    /// referenced Secret exists without the key (unless the selector is optional), or its
    /// file name collides.
    fn resolve(&mut self, owner: &InputRef, refs: &[Reference]) -> bool {
        let mut ok = true;
        for Reference {
            field,
            key,
            optional,
        } in refs
        {
            // A key resolved before was depended on then: most monitors of a namespace share
            // the same few Secrets.
            let outcome = match self.assets.resolved_before(key) {
                Some(outcome) => outcome,
                None => {
                    self.depend_on(key);
                    self.assets.resolve(self.inputs, key)
                }
            };
            let optional_and_missing =
                *optional && matches!(outcome, Err(crate::assets::AssetError::KeyMissing(_)));
            if let Err(e) = outcome
                && !optional_and_missing
            {
                self.rejections.push(Rejection::new(
                    owner.clone(),
                    Reason::of_asset_error(&e),
                    field.clone(),
                    e.to_string(),
                ));
                ok = false;
            }
        }
        ok
    }

    fn depend_on(&mut self, key: &AssetKey) {
        let object = InputRef::new(key.source.kind(), &key.namespace, &key.name);
        let keys = self.dependencies.references.entry(object).or_default();
        if !keys.contains(&key.key) {
            keys.insert(key.key.clone());
        }
    }

    /// Keeps the leaf objects whose references all resolve; reports the others.
    fn resolved_leaves<T: Input>(&mut self, objects: Vec<Arc<T>>) -> Vec<Arc<T>> {
        let store = self.inputs.objects::<T>();
        objects
            .into_iter()
            .filter(|o| {
                let r = InputRef::of(T::KIND, o.as_ref());
                match store.references(&r.namespace, &r.name) {
                    Some(refs) => self.resolve(&r, refs),
                    None => self.resolve(&r, &o.references()),
                }
            })
            .collect()
    }
}

/// Builds the hierarchy of `agent` from `inputs` (spec 2.2), rejecting only the objects at
/// fault.
pub fn discover<V: InputView + ?Sized>(agent: &Arc<GrafanaAgent>, inputs: &V) -> Discovery {
    let mut d = Discoverer {
        inputs,
        rejections: Vec::new(),
        dependencies: Dependencies::default(),
        members: Vec::new(),
        assets: Assets::default(),
        pod_namespaces: BTreeMap::new(),
    };
    let agent_ref = InputRef::of(Kind::GrafanaAgent, agent.as_ref());
    let spec = &agent.spec;
    d.resolve(&agent_ref, &references::of_agent(agent));

    let metrics = spec.metrics.as_ref();
    let metrics_instances = d.select::<MetricsInstance>(
        &agent_ref,
        [
            "spec.metrics.instanceSelector",
            "spec.metrics.instanceNamespaceSelector",
        ],
        metrics.and_then(|m| m.instance_selector.as_ref()),
        metrics.and_then(|m| m.instance_namespace_selector.as_ref()),
    );
    let deny_fs = denies_file_access(agent);
    let metrics = metrics_instances
        .into_iter()
        .map(|instance| {
            let me = InputRef::of(Kind::MetricsInstance, instance.as_ref());
            d.resolve(&me, &references::of_metrics_instance(&instance));
            let s = &instance.spec;
            let sms = d.select::<ServiceMonitor>(
                                &me,
                ["spec.serviceMonitorSelector", "spec.serviceMonitorNamespaceSelector"],
                s.service_monitor_selector.as_ref(),
                s.service_monitor_namespace_selector.as_ref(),
            );
            let sms: Vec<_> = sms
                .into_iter()
                .filter(|sm| {
                    let denied = deny_fs.then(|| file_access(sm)).flatten();
                    if let Some(field) = &denied {
                        d.rejections.push(Rejection::new(
                            InputRef::of(Kind::ServiceMonitor, sm.as_ref()),
                            Reason::FileAccessDenied,
                            field.clone(),
                            format!(
                                "reads a file from the agent's filesystem, which GrafanaAgent {} denies (spec.metrics.arbitraryFSAccessThroughSMs.deny, true unless set to false)",
                                agent_ref.key()
                            ),
                        ));
                    }
                    denied.is_none()
                })
                .collect();
            let pms = d.select::<PodMonitor>(
                                &me,
                ["spec.podMonitorSelector", "spec.podMonitorNamespaceSelector"],
                s.pod_monitor_selector.as_ref(),
                s.pod_monitor_namespace_selector.as_ref(),
            );
            let probes = d.select::<Probe>(
                                &me,
                ["spec.probeSelector", "spec.probeNamespaceSelector"],
                s.probe_selector.as_ref(),
                s.probe_namespace_selector.as_ref(),
            );
            let scrape_configs: Vec<_> = d
                .select::<ScrapeConfig>(
                    &me,
                    [
                        "spec.scrapeConfigSelector",
                        "spec.scrapeConfigNamespaceSelector",
                    ],
                    s.scrape_config_selector.as_ref(),
                    s.scrape_config_namespace_selector.as_ref(),
                )
                .into_iter()
                .filter(|sc| {
                    let denied = deny_fs
                        .then(|| scrape_config_file_access(sc))
                        .flatten();
                    if let Some(field) = &denied {
                        d.rejections.push(Rejection::new(
                            InputRef::of(Kind::ScrapeConfig, sc.as_ref()),
                            Reason::FileAccessDenied,
                            field.clone(),
                            format!(
                                "reads files from the agent's filesystem, which GrafanaAgent {} denies (spec.metrics.arbitraryFSAccessThroughSMs.deny, true unless set to false)",
                                agent_ref.key()
                            ),
                        ));
                    }
                    denied.is_none()
                })
                .collect();
            MetricsInstanceNode {
                service_monitors: d.resolved_leaves(sms),
                pod_monitors: d.resolved_leaves(pms),
                probes: d.resolved_leaves(probes),
                scrape_configs: d.resolved_leaves(scrape_configs),
                instance,
            }
        })
        .collect();

    let logs_spec = spec.logs.as_ref();
    let ignore_namespace_selectors = logs_spec.is_some_and(|l| l.ignore_namespace_selectors);
    let logs_instances = d.select::<LogsInstance>(
        &agent_ref,
        [
            "spec.logs.instanceSelector",
            "spec.logs.instanceNamespaceSelector",
        ],
        logs_spec.and_then(|l| l.instance_selector.as_ref()),
        logs_spec.and_then(|l| l.instance_namespace_selector.as_ref()),
    );
    let logs = logs_instances
        .into_iter()
        .map(|instance| {
            let me = InputRef::of(Kind::LogsInstance, instance.as_ref());
            d.resolve(&me, &references::of_logs_instance(&instance));
            let pod_logs = d.select::<PodLogs>(
                &me,
                ["spec.podLogsSelector", "spec.podLogsNamespaceSelector"],
                instance.spec.pod_logs_selector.as_ref(),
                instance.spec.pod_logs_namespace_selector.as_ref(),
            );
            if !ignore_namespace_selectors {
                for p in &pod_logs {
                    d.pod_namespaces(p);
                }
            }
            LogsInstanceNode { pod_logs, instance }
        })
        .collect();

    let integrations_spec = spec.integrations.as_ref();
    let integrations = d.select::<Integration>(
        &agent_ref,
        [
            "spec.integrations.selector",
            "spec.integrations.namespaceSelector",
        ],
        integrations_spec.and_then(|i| i.selector.as_ref()),
        integrations_spec.and_then(|i| i.namespace_selector.as_ref()),
    );
    let integrations = d.resolved_leaves(integrations);

    d.rejections.extend(name_collisions(agent, inputs));
    d.rejections.sort();
    d.rejections.dedup();
    d.dependencies.members = std::mem::take(&mut d.members).into_iter().collect();
    let to_load = not_loaded(&d.assets, &d.dependencies);
    let warnings = unknown_field_warnings(inputs, &agent_ref, &d.dependencies);
    Discovery {
        hierarchy: Hierarchy {
            agent: agent.clone(),
            metrics,
            logs,
            integrations,
            assets: d.assets,
            pod_namespaces: d.pod_namespaces,
        },
        rejections: d.rejections,
        dependencies: d.dependencies,
        to_load,
        warnings,
        revision: inputs.journal().map(Journal::revision),
    }
}

/// One warning per object of the agent's (itself included) with fields our schemas lack.
pub(crate) fn unknown_field_warnings<V: InputView + ?Sized>(
    inputs: &V,
    agent: &InputRef,
    dependencies: &Dependencies,
) -> Vec<Rejection> {
    // The few objects with unknown fields, not every member: nothing to do in the usual case.
    inputs
        .unknown_fields()
        .iter()
        .filter(|(object, _)| *object == agent || dependencies.members.contains(object))
        .map(|(object, fields)| Rejection::unknown_fields(object.clone(), fields))
        .collect()
}

/// Whether `agent` denies monitors that read the agent's own files (issue 38: a deliberate
/// fix of upstream's default, docs/compatibility.md): unless it allows it explicitly.
pub(crate) fn denies_file_access(agent: &GrafanaAgent) -> bool {
    agent
        .spec
        .metrics
        .as_ref()
        .and_then(|m| m.arbitrary_fs_access_through_sms.as_ref())
        .and_then(|a| a.deny)
        .unwrap_or(true)
}

/// Issue 38, item 6: what `agent` generates ([`generated_names`]) against what every other
/// GrafanaAgent of its namespace in `inputs` generates. The later of two agents that share an
/// object's kind and name (by `creationTimestamp`, then by name) is refused whole: one
/// rejection per earlier agent, naming it and the first object both generate. The earlier
/// keeps working (a refused agent still holds its names). Only agents one of whose names
/// starts with the other's can collide: the others are not looked at.
pub fn name_collisions<V: InputView + ?Sized>(agent: &GrafanaAgent, inputs: &V) -> Vec<Rejection> {
    let me = InputRef::of(Kind::GrafanaAgent, agent);
    let order = |a: &GrafanaAgent| {
        (
            a.metadata.creation_timestamp.as_ref().map(|t| t.0),
            a.metadata.name.clone().unwrap_or_default(),
        )
    };
    let my_order = order(agent);
    let mut mine: Option<Vec<_>> = None;
    let mut rejections = Vec::new();
    for other in inputs.objects::<GrafanaAgent>().in_namespace(&me.namespace) {
        let name = other.metadata.name.as_deref().unwrap_or_default();
        let related = name.starts_with(me.name.as_str()) || me.name.starts_with(name);
        if name == me.name || !related || order(other) > my_order {
            continue;
        }
        let mine = mine.get_or_insert_with(|| generated_names(agent));
        let theirs: BTreeSet<_> = generated_names(other).into_iter().collect();
        if let Some((kind, object)) = mine.iter().find(|n| theirs.contains(*n)) {
            rejections.push(Rejection::new(
                me.clone(),
                Reason::NameCollision,
                "metadata.name".to_owned(),
                format!(
                    "would generate {kind} {object}, which GrafanaAgent {}/{name} (created earlier) generates too: this agent is left out whole, nothing of it is written, until one of the two is renamed or no longer generates {kind} {object}",
                    me.namespace
                ),
            ));
        }
    }
    rejections
}

/// The referenced objects with a value not loaded, each with all its referenced keys (the
/// controller replaces an object's content whole, so it reads every key it needs at once).
fn not_loaded(assets: &Assets, dependencies: &Dependencies) -> BTreeMap<DataRef, BTreeSet<String>> {
    let mut to_load = BTreeMap::new();
    for key in assets.not_loaded() {
        let object = DataRef::new(key.source, &key.namespace, &key.name);
        if to_load.contains_key(&object) {
            continue;
        }
        if let Some(keys) = dependencies.references.get(&object.input_ref()) {
            to_load.insert(object, keys.clone());
        }
    }
    to_load
}

/// The first field of `sm` that reads a file from the agent's filesystem (spec 2.3).
/// The first field of `sc` that makes the agent read a file of its own filesystem: a file
/// discovery (the agent reads target lists from its pods' files). Every other file setting
/// of prometheus-operator's ScrapeConfig names a Secret or ConfigMap key instead.
pub(crate) fn scrape_config_file_access(sc: &ScrapeConfig) -> Option<String> {
    (!sc.spec.file_sd_configs.is_empty()).then(|| "spec.fileSDConfigs".to_owned())
}

pub(crate) fn file_access(sm: &ServiceMonitor) -> Option<String> {
    sm.spec.endpoints.iter().enumerate().find_map(|(i, e)| {
        let set = |s: &Option<String>| s.as_deref().is_some_and(|v| !v.is_empty());
        if set(&e.bearer_token_file) {
            return Some(format!("spec.endpoints[{i}].bearerTokenFile"));
        }
        let tls = &e.tls_config.as_ref()?.tls;
        [
            ("caFile", &tls.ca_file),
            ("certFile", &tls.cert_file),
            ("keyFile", &tls.key_file),
        ]
        .into_iter()
        .find(|(_, v)| set(v))
        .map(|(name, _)| format!("spec.endpoints[{i}].tlsConfig.{name}"))
    })
}
