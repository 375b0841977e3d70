//! `explain`: why one monitor, PodLogs, instance or Integration is (not) part of each
//! GrafanaAgent's config.
//!
//! Selection is decided by [`discover`] and [`SelectorDependency`] (the code discovery
//! selects with); only the reason for a "no" is worked out here, from the selector module's
//! first unmatched requirement. Job names come from the agent.yml that [`plan`] renders.

use std::collections::BTreeMap;
use std::sync::Arc;

use api::grafana_agent::GrafanaAgent;
use api::{Integration, LogsInstance, MetricsInstance, PodLogs, PodMonitor, Probe, ServiceMonitor};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::Serialize;

use crate::dependencies::SelectorDependency;
use crate::desired::PlanOptions;
use crate::discover::{Discovery, discover};
use crate::input_ref::{InputRef, Kind};
use crate::plan::{Plan, plan};
use crate::selector::{LabelMatcher, Unmatched};
use crate::store::{Input, InputView, Labels, labels_of};

/// Why `explain` could not explain.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    #[error("{0} not found")]
    NotFound(InputRef),
    #[error(
        "{0}: explain takes ServiceMonitors, PodMonitors, Probes, ScrapeConfigs, PodLogs, MetricsInstances, LogsInstances and Integrations"
    )]
    UnsupportedKind(Kind),
}

/// An object, as `explain -o json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObjectName {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl From<&InputRef> for ObjectName {
    fn from(r: &InputRef) -> Self {
        ObjectName {
            kind: r.kind.to_string(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
        }
    }
}

/// The explanation for one object: one step per GrafanaAgent (and, for monitors and PodLogs,
/// per instance of that agent's kind).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    pub object: ObjectName,
    pub steps: Vec<Step>,
    /// Why the object is not in the input at all: the errors it was refused with when read
    /// (a value of the wrong type, one our CRDs' checks refuse, ...). No agent sees it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
}

impl Explanation {
    /// The explanation for an object refused when read, with the errors it was refused with.
    pub fn refused(target: &InputRef, errors: Vec<String>) -> Self {
        Explanation {
            object: target.into(),
            steps: Vec::new(),
            refused: errors,
        }
    }
}

/// One GrafanaAgent (and instance) on the way to the object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub agent: ObjectName,
    /// The instance between the agent and a monitor or PodLogs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<ObjectName>,
    pub outcome: Outcome,
}

/// What happened to the object on this step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "result", rename_all = "camelCase")]
pub enum Outcome {
    /// The agent does not select the instance, so nothing under it is considered.
    InstanceNotSelected { reason: NotSelected },
    /// The object is not selected.
    NotSelected { reason: NotSelected },
    /// Selected, but left out.
    Rejected { rejections: Vec<RejectionView> },
    /// Selected and rendered into these scrape jobs (or integration configs); `dropped` lists
    /// the parts of it left out, `warnings` what the runtime (Alloy) does differently from
    /// what the object asks for (reason `AlloyDifference`: the object runs).
    Rendered {
        jobs: Vec<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        dropped: Vec<RejectionView>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<RejectionView>,
        /// The instance's scrape class a monitor, Probe or ScrapeConfig took (the one it names,
        /// else the instance's default), if any.
        #[serde(rename = "scrapeClass", skip_serializing_if = "Option::is_none")]
        scrape_class: Option<String>,
    },
}

/// A rejection, as `explain -o json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RejectionView {
    /// Whose rejection it is, when it is not the explained object's own: the instance (or
    /// agent) whose rejection left the object out with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
}

/// The first reason a selector leaves an object out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotSelected {
    /// The object whose selector it is.
    pub selector_of: ObjectName,
    /// The selector's field path, e.g. `spec.serviceMonitorNamespaceSelector`.
    pub field: String,
    pub cause: Cause,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "cause",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Cause {
    /// The selector is not set: it selects nothing.
    NilSelector,
    /// The selector is invalid: it selects nothing until it is fixed.
    InvalidSelector { error: String },
    /// No namespace selector: only the selecting object's own namespace is searched.
    OtherNamespace { searched: String, namespace: String },
    /// A requirement (`matchLabels.KEY` or `matchExpressions[i]`) is not met by the labels of
    /// the object or, for a namespace selector, of its namespace.
    Requirement {
        requirement: String,
        expression: String,
        key: String,
        /// Whose labels: the object or `Namespace NAME`.
        labels_of: String,
        /// The value they have for `key`, if any.
        value: Option<String>,
    },
}

/// Explains why `target` is (not) in each GrafanaAgent's config, in agent order.
pub fn explain<V: InputView + ?Sized>(
    inputs: &V,
    target: &InputRef,
    opts: &PlanOptions,
) -> Result<Explanation, ExplainError> {
    let target_labels = match target.kind {
        Kind::ServiceMonitor => labels_in::<ServiceMonitor, _>(inputs, target),
        Kind::PodMonitor => labels_in::<PodMonitor, _>(inputs, target),
        Kind::Probe => labels_in::<Probe, _>(inputs, target),
        Kind::ScrapeConfig => labels_in::<api::ScrapeConfig, _>(inputs, target),
        Kind::PodLogs => labels_in::<PodLogs, _>(inputs, target),
        Kind::MetricsInstance => labels_in::<MetricsInstance, _>(inputs, target),
        Kind::LogsInstance => labels_in::<LogsInstance, _>(inputs, target),
        Kind::Integration => labels_in::<Integration, _>(inputs, target),
        other => return Err(ExplainError::UnsupportedKind(other)),
    }
    .ok_or_else(|| ExplainError::NotFound(target.clone()))?;
    let subject = Subject {
        target,
        labels: &target_labels,
        namespace_labels: inputs.namespace_labels(&target.namespace),
    };
    let mut steps = Vec::new();
    for agent in inputs.objects::<GrafanaAgent>().iter() {
        let discovery = discover(agent, inputs);
        let planned = plan(&discovery, opts);
        let agent_ref = InputRef::of(Kind::GrafanaAgent, agent.as_ref());
        let ctx = AgentContext {
            agent_ref: &agent_ref,
            discovery: &discovery,
            plan: &planned,
            jobs: JobIndex::of(
                &planned,
                &crate::plan::with_runtime(&discovery.hierarchy, opts),
            ),
        };
        match target.kind {
            Kind::MetricsInstance | Kind::LogsInstance | Kind::Integration => {
                steps.push(Step {
                    agent: (&agent_ref).into(),
                    instance: None,
                    outcome: ctx.direct(agent, &subject),
                });
            }
            Kind::PodLogs => {
                for instance in inputs.objects::<LogsInstance>().iter() {
                    let s = &instance.spec;
                    let selector = ChildSelector {
                        fields: ["spec.podLogsSelector", "spec.podLogsNamespaceSelector"],
                        label: s.pod_logs_selector.as_ref(),
                        namespace: s.pod_logs_namespace_selector.as_ref(),
                    };
                    let ns_labels = inputs.namespace_labels(namespace_of(instance.as_ref()));
                    steps.push(ctx.leaf(agent, instance, ns_labels, selector, &subject));
                }
            }
            _ => {
                for instance in inputs.objects::<MetricsInstance>().iter() {
                    let s = &instance.spec;
                    let selector = match target.kind {
                        Kind::ServiceMonitor => ChildSelector {
                            fields: [
                                "spec.serviceMonitorSelector",
                                "spec.serviceMonitorNamespaceSelector",
                            ],
                            label: s.service_monitor_selector.as_ref(),
                            namespace: s.service_monitor_namespace_selector.as_ref(),
                        },
                        Kind::PodMonitor => ChildSelector {
                            fields: [
                                "spec.podMonitorSelector",
                                "spec.podMonitorNamespaceSelector",
                            ],
                            label: s.pod_monitor_selector.as_ref(),
                            namespace: s.pod_monitor_namespace_selector.as_ref(),
                        },
                        Kind::ScrapeConfig => ChildSelector {
                            fields: [
                                "spec.scrapeConfigSelector",
                                "spec.scrapeConfigNamespaceSelector",
                            ],
                            label: s.scrape_config_selector.as_ref(),
                            namespace: s.scrape_config_namespace_selector.as_ref(),
                        },
                        _ => ChildSelector {
                            fields: ["spec.probeSelector", "spec.probeNamespaceSelector"],
                            label: s.probe_selector.as_ref(),
                            namespace: s.probe_namespace_selector.as_ref(),
                        },
                    };
                    let ns_labels = inputs.namespace_labels(namespace_of(instance.as_ref()));
                    steps.push(ctx.leaf(agent, instance, ns_labels, selector, &subject));
                }
            }
        }
    }
    Ok(Explanation {
        object: target.into(),
        steps,
        refused: Vec::new(),
    })
}

fn namespace_of<T: Input>(object: &T) -> &str {
    object.meta().namespace.as_deref().unwrap_or_default()
}

fn labels_in<T: Input, V: InputView + ?Sized>(inputs: &V, target: &InputRef) -> Option<Labels> {
    inputs
        .objects::<T>()
        .get(&target.namespace, &target.name)
        .map(|o| labels_of(o.as_ref()).clone())
}

/// The object being explained, with its labels and its namespace's.
struct Subject<'a> {
    target: &'a InputRef,
    labels: &'a Labels,
    namespace_labels: &'a Labels,
}

/// A selector pair of a selecting object and the field paths they are written at.
#[derive(Clone, Copy)]
struct ChildSelector<'a> {
    fields: [&'static str; 2],
    label: Option<&'a LabelSelector>,
    namespace: Option<&'a LabelSelector>,
}

struct AgentContext<'a> {
    agent_ref: &'a InputRef,
    discovery: &'a Discovery,
    plan: &'a Plan,
    jobs: JobIndex,
}

impl AgentContext<'_> {
    /// An instance or Integration, selected by the agent itself.
    fn direct(&self, agent: &GrafanaAgent, subject: &Subject<'_>) -> Outcome {
        let target = subject.target;
        if !self.discovery.dependencies.members.contains(target) {
            let selector = agent_selector(agent, target.kind);
            let reason = why_not(self.agent_ref, selector, subject);
            return Outcome::NotSelected { reason };
        }
        let jobs = match target.kind {
            Kind::Integration => self.integration_jobs(target),
            _ => self.jobs.of_instance(target),
        };
        self.selected(target, None, jobs)
    }

    /// A monitor or PodLogs, through `instance`.
    fn leaf<I: Input>(
        &self,
        agent: &GrafanaAgent,
        instance: &Arc<I>,
        instance_namespace_labels: &Labels,
        selector: ChildSelector<'_>,
        subject: &Subject<'_>,
    ) -> Step {
        let instance_ref = InputRef::of(I::KIND, instance.as_ref());
        let step = |outcome| Step {
            agent: self.agent_ref.into(),
            instance: Some((&instance_ref).into()),
            outcome,
        };
        if !self.discovery.dependencies.members.contains(&instance_ref) {
            let instance_subject = Subject {
                target: &instance_ref,
                labels: labels_of(instance.as_ref()),
                namespace_labels: instance_namespace_labels,
            };
            let reason = why_not(
                self.agent_ref,
                agent_selector(agent, I::KIND),
                &instance_subject,
            );
            return step(Outcome::InstanceNotSelected { reason });
        }
        let dependency = SelectorDependency::new(
            subject.target.kind,
            selector.label,
            selector.namespace,
            instance_ref.namespace.clone(),
        );
        let target = subject.target;
        if !dependency.matches(
            target.kind,
            &target.namespace,
            subject.labels,
            subject.namespace_labels,
        ) {
            return step(Outcome::NotSelected {
                reason: why_not(&instance_ref, selector, subject),
            });
        }
        let jobs = self.jobs.of_leaf(&instance_ref, target);
        step(self.selected(target, Some(&instance_ref), jobs))
    }

    /// The outcome for a selected object: rejected when it produced nothing and was
    /// reported, else rendered. An object left out without a rejection of its own was left
    /// out with what holds it: the rejections of its instance (`via`), else of the agent, say
    /// why.
    fn selected(
        &self,
        target: &InputRef,
        via: Option<&InputRef>,
        jobs: Option<Vec<String>>,
    ) -> Outcome {
        let views = |list: &[crate::rejection::Rejection],
                     object: &InputRef,
                     whose: Option<ObjectName>|
         -> Vec<RejectionView> {
            list.iter()
                .filter(|r| r.object == *object)
                .map(|r| RejectionView {
                    object: whose.clone(),
                    field: r.field.clone(),
                    message: r.message.clone(),
                })
                .collect()
        };
        let rejections_of = |object: &InputRef, whose| views(&self.plan.rejections, object, whose);
        let rejections = rejections_of(target, None);
        match jobs {
            Some(jobs) if !jobs.is_empty() || rejections.is_empty() => Outcome::Rendered {
                jobs,
                dropped: rejections,
                warnings: views(&self.plan.warnings, target, None),
                scrape_class: via.and_then(|instance| self.scrape_class_of(instance, target)),
            },
            None if rejections.is_empty() => {
                let mut holders: Vec<&InputRef> = via.into_iter().collect();
                holders.push(self.agent_ref);
                let rejections = holders
                    .into_iter()
                    .map(|h| rejections_of(h, Some(h.into())))
                    .find(|r| !r.is_empty())
                    .unwrap_or_default();
                Outcome::Rejected { rejections }
            }
            _ => Outcome::Rejected { rejections },
        }
    }

    /// The scrape class `target` (a ServiceMonitor, PodMonitor, Probe or ScrapeConfig) took in
    /// `instance`'s jobs:
    /// the one it names, else the instance's default (the first `default: true` among the
    /// first class of each name, as rendering resolves it).
    fn scrape_class_of(&self, instance: &InputRef, target: &InputRef) -> Option<String> {
        let node = self
            .discovery
            .hierarchy
            .metrics
            .iter()
            .find(|n| n.instance_ref() == *instance)?;
        let named = match target.kind {
            Kind::ServiceMonitor => node
                .service_monitors
                .iter()
                .find(|m| InputRef::of(Kind::ServiceMonitor, m.as_ref()) == *target)?
                .spec
                .scrape
                .scrape_class
                .clone(),
            Kind::PodMonitor => node
                .pod_monitors
                .iter()
                .find(|m| InputRef::of(Kind::PodMonitor, m.as_ref()) == *target)?
                .spec
                .scrape
                .scrape_class
                .clone(),
            Kind::Probe => node
                .probes
                .iter()
                .find(|m| InputRef::of(Kind::Probe, m.as_ref()) == *target)?
                .spec
                .scrape_class
                .clone(),
            Kind::ScrapeConfig => node
                .scrape_configs
                .iter()
                .find(|m| InputRef::of(Kind::ScrapeConfig, m.as_ref()) == *target)?
                .spec
                .scrape_class
                .clone(),
            _ => return None,
        };
        named.or_else(|| {
            let mut seen = std::collections::BTreeSet::new();
            node.instance
                .spec
                .scrape_classes
                .iter()
                .filter(|c| seen.insert(c.name.as_str()))
                .find(|c| c.default == Some(true))
                .map(|c| c.name.clone())
        })
    }

    fn integration_jobs(&self, target: &InputRef) -> Option<Vec<String>> {
        self.discovery
            .hierarchy
            .integrations
            .iter()
            .find(|i| InputRef::of(Kind::Integration, i.as_ref()) == *target)
            .filter(|i| crate::config::integrations::check(i).is_ok())
            .map(|i| vec![format!("integrations/{}", i.spec.name)])
    }
}

/// The agent's selector pair for instances (or Integrations) of `kind`.
fn agent_selector(agent: &GrafanaAgent, kind: Kind) -> ChildSelector<'_> {
    let spec = &agent.spec;
    match kind {
        Kind::MetricsInstance => {
            let m = spec.metrics.as_ref();
            ChildSelector {
                fields: [
                    "spec.metrics.instanceSelector",
                    "spec.metrics.instanceNamespaceSelector",
                ],
                label: m.and_then(|m| m.instance_selector.as_ref()),
                namespace: m.and_then(|m| m.instance_namespace_selector.as_ref()),
            }
        }
        Kind::LogsInstance => {
            let l = spec.logs.as_ref();
            ChildSelector {
                fields: [
                    "spec.logs.instanceSelector",
                    "spec.logs.instanceNamespaceSelector",
                ],
                label: l.and_then(|l| l.instance_selector.as_ref()),
                namespace: l.and_then(|l| l.instance_namespace_selector.as_ref()),
            }
        }
        _ => {
            let i = spec.integrations.as_ref();
            ChildSelector {
                fields: [
                    "spec.integrations.selector",
                    "spec.integrations.namespaceSelector",
                ],
                label: i.and_then(|i| i.selector.as_ref()),
                namespace: i.and_then(|i| i.namespace_selector.as_ref()),
            }
        }
    }
}

/// The first reason `selector` (of `parent`) leaves `subject` out, in discovery's order:
/// an invalid selector, then the namespace (the namespace selector, or the parent's own
/// namespace without one), then the labels.
fn why_not(parent: &InputRef, selector: ChildSelector<'_>, subject: &Subject<'_>) -> NotSelected {
    let [label_field, namespace_field] = selector.fields;
    let reason = |field: &str, cause| NotSelected {
        selector_of: parent.into(),
        field: field.to_owned(),
        cause,
    };
    let label = LabelMatcher::new(selector.label);
    let namespace = selector.namespace.map(|s| LabelMatcher::new(Some(s)));
    let label = match label {
        Ok(m) => m,
        Err(e) => {
            return reason(
                label_field,
                Cause::InvalidSelector {
                    error: e.to_string(),
                },
            );
        }
    };
    let target = subject.target;
    match namespace {
        Some(Err(e)) => {
            return reason(
                namespace_field,
                Cause::InvalidSelector {
                    error: e.to_string(),
                },
            );
        }
        Some(Ok(ns)) => {
            if let Some(unmatched) = ns.first_unmatched(subject.namespace_labels) {
                let whose = format!("Namespace {}", target.namespace);
                let cause = cause_of(unmatched, whose, subject.namespace_labels);
                return reason(namespace_field, cause);
            }
        }
        None if target.namespace != parent.namespace => {
            let cause = Cause::OtherNamespace {
                searched: parent.namespace.clone(),
                namespace: target.namespace.clone(),
            };
            return reason(namespace_field, cause);
        }
        None => {}
    }
    match label.first_unmatched(subject.labels) {
        Some(unmatched) => reason(
            label_field,
            cause_of(unmatched, target.to_string(), subject.labels),
        ),
        // Discovery left it out but every selector matches: only an inconsistency between
        // this module and discovery could get here; say so rather than invent a reason.
        None => reason(
            label_field,
            Cause::InvalidSelector {
                error: "selects the object, yet discovery left it out".to_owned(),
            },
        ),
    }
}

fn cause_of(unmatched: Unmatched<'_>, whose: String, labels: &Labels) -> Cause {
    match unmatched {
        Unmatched::NilSelector => Cause::NilSelector,
        Unmatched::Requirement(r) => Cause::Requirement {
            requirement: r.source.to_string(),
            expression: r.expression.to_string(),
            key: r.key().to_owned(),
            labels_of: whose,
            value: labels.get(r.key()).cloned(),
        },
    }
}

/// The scrape job names of each instance in the rendered metrics and logs agent.yml, by
/// instance `namespace/name`. `None` for an instance absent from the config.
#[derive(Default)]
struct JobIndex {
    metrics: BTreeMap<String, Vec<String>>,
    logs: BTreeMap<String, Vec<String>>,
}

impl JobIndex {
    fn of(plan: &Plan, h: &crate::discover::Hierarchy) -> JobIndex {
        let mut index = JobIndex::default();
        // The configs name instances as the runtime needs (Alloy: identifiers): back to keys.
        let keys: BTreeMap<String, String> = h
            .metrics
            .iter()
            .map(|n| n.instance_ref())
            .chain(h.logs.iter().map(|n| n.instance_ref()))
            .map(|r| (crate::alloy::instance_name(h, &r), r.key()))
            .collect();
        let agent = &plan.agent.name;
        for config in &plan.configs {
            let (into, logs) = if config.secret_name == format!("{agent}-config") {
                (&mut index.metrics, false)
            } else if config.secret_name == format!("{agent}-logs-config") {
                (&mut index.logs, true)
            } else {
                continue;
            };
            let instances = if config.alloy_syntax {
                typed_jobs(h, logs)
            } else {
                let Ok(doc) = serde_saphyr::from_str::<AgentYml>(config.text.as_str()) else {
                    continue;
                };
                let section = if logs { doc.logs } else { doc.metrics };
                section
                    .map(|s| s.configs)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|i| {
                        (
                            i.name,
                            i.scrape_configs.into_iter().map(|j| j.job_name).collect(),
                        )
                    })
                    .collect()
            };
            for (name, jobs) in instances {
                let key = keys.get(&name).cloned().unwrap_or(name);
                into.entry(key).or_default().extend(jobs);
            }
        }
        index
    }

    fn of_instance(&self, instance: &InputRef) -> Option<Vec<String>> {
        let by_instance = match instance.kind {
            Kind::LogsInstance => &self.logs,
            _ => &self.metrics,
        };
        by_instance.get(&instance.key()).cloned()
    }

    /// The jobs of `leaf` in `instance`'s config (`None` when the instance has none).
    fn of_leaf(&self, instance: &InputRef, leaf: &InputRef) -> Option<Vec<String>> {
        let key = leaf.key();
        let own = |job: &String| match leaf.kind {
            Kind::ServiceMonitor => job.starts_with(&format!("serviceMonitor/{key}/")),
            Kind::PodMonitor => job.starts_with(&format!("podMonitor/{key}/")),
            Kind::Probe => *job == format!("probe/{key}"),
            Kind::ScrapeConfig => *job == format!("scrapeConfig/{key}"),
            _ => *job == format!("podLogs/{key}"),
        };
        self.of_instance(instance)
            .map(|jobs| jobs.into_iter().filter(own).collect())
    }
}

/// The job names of each instance (by its name in the configs) of `h`'s metrics (or, with
/// `logs`, logs) config in Alloy's syntax: that text is written from the typed static document
/// of the hierarchy the plan renders (without the objects whose component labels collide), so
/// its jobs are that document's.
fn typed_jobs(h: &crate::discover::Hierarchy, logs: bool) -> Vec<(String, Vec<String>)> {
    let (rendered, _) = crate::alloy::without_label_collisions(h);
    let h = &*rendered;
    if logs {
        let section = crate::config::logs::render(h).and_then(|r| r.config.logs);
        section
            .map(|s| s.configs)
            .unwrap_or_default()
            .into_iter()
            .map(|i| {
                let jobs = i.scrape_configs.iter().map(|j| j.job_name().to_owned());
                (i.name, jobs.collect())
            })
            .collect()
    } else {
        let section = crate::config::metrics::render(h).and_then(|r| r.config.metrics);
        section
            .map(|s| s.configs)
            .unwrap_or_default()
            .into_iter()
            .map(|i| {
                let jobs = i.scrape_configs.iter().map(|j| j.job_name().to_owned());
                (i.name, jobs.collect())
            })
            .collect()
    }
}

/// The parts of agent.yml `explain` reads.
#[derive(serde::Deserialize)]
struct AgentYml {
    metrics: Option<Section>,
    logs: Option<Section>,
}

#[derive(serde::Deserialize)]
struct Section {
    #[serde(default)]
    configs: Vec<InstanceConfig>,
}

#[derive(serde::Deserialize)]
struct InstanceConfig {
    name: String,
    #[serde(default)]
    scrape_configs: Vec<JobConfig>,
}

#[derive(serde::Deserialize)]
struct JobConfig {
    job_name: String,
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let o = &self.object;
        writeln!(f, "{} {}/{}", o.kind, o.namespace, o.name)?;
        if !self.refused.is_empty() {
            writeln!(
                f,
                "  refused when read from the input, so no GrafanaAgent sees it:"
            )?;
            for e in &self.refused {
                writeln!(f, "    {e}")?;
            }
            return Ok(());
        }
        if self.steps.is_empty() {
            return writeln!(
                f,
                "  no GrafanaAgent (or no instance of the kind that selects it) exists"
            );
        }
        for step in &self.steps {
            write_step(f, step)?;
        }
        Ok(())
    }
}

/// `GrafanaAgent NS/NAME`, with ` > KIND NS/NAME` for the instance of a monitor or PodLogs.
fn pair(step: &Step) -> String {
    let a = &step.agent;
    let mut text = format!("GrafanaAgent {}/{}", a.namespace, a.name);
    if let Some(i) = &step.instance {
        text.push_str(&format!(" > {} {}/{}", i.kind, i.namespace, i.name));
    }
    text
}

fn write_step(f: &mut std::fmt::Formatter<'_>, step: &Step) -> std::fmt::Result {
    write!(f, "  {}", pair(step))?;
    match &step.outcome {
        Outcome::InstanceNotSelected { reason } => {
            writeln!(f, ": instance not selected: {reason}")?
        }
        Outcome::NotSelected { reason } => writeln!(f, ": not selected: {reason}")?,
        Outcome::Rejected { rejections } => {
            writeln!(f, ": selected but rejected")?;
            for r in rejections {
                writeln!(f, "      {r}")?;
            }
        }
        Outcome::Rendered {
            jobs,
            dropped,
            warnings,
            scrape_class,
        } => {
            if jobs.is_empty() {
                writeln!(f, ": selected and rendered (no jobs)")?;
            } else {
                writeln!(f, ": selected, jobs: {}", jobs.join(", "))?;
            }
            if let Some(class) = scrape_class {
                writeln!(f, "      scrape class: {class}")?;
            }
            for r in dropped {
                writeln!(f, "      dropped: {r}")?;
            }
            for r in warnings {
                writeln!(f, "      runtime difference: {r}")?;
            }
        }
    }
    Ok(())
}

/// At most this many agents (or agent > instance pairs) are named on a line of the summary.
const NAMED: usize = 3;

/// `explain`'s default text ([`Explanation::summary`]).
pub struct Summary<'a>(&'a Explanation);

impl Explanation {
    /// The text `explain` prints without `--all`: the agents (and instances) that select the
    /// object first, one line each as in the full text (`Display`); then those that leave it
    /// out, grouped by reason (the selector's kind and field, the requirement and what the
    /// object or its Namespace has): one line per reason with a count and the first
    /// [`NAMED`] of them, most frequent reason first. A reason only one of them gives is
    /// printed as in the full text. A large cluster's answer for one monitor was 171 lines,
    /// one per agent and instance, for one line that mattered.
    pub fn summary(&self) -> Summary<'_> {
        Summary(self)
    }
}

/// What steps that leave the object out for the same reason share: the outcome, the
/// selector's kind and field, and the cause less the selector's own value.
fn group_key(outcome: &Outcome) -> Option<String> {
    let (what, reason) = match outcome {
        Outcome::InstanceNotSelected { reason } => ("instances not selected", reason),
        Outcome::NotSelected { reason } => ("not selected", reason),
        Outcome::Rejected { .. } | Outcome::Rendered { .. } => return None,
    };
    let cause = match &reason.cause {
        Cause::NilSelector => " is not set, so it selects nothing".to_owned(),
        Cause::InvalidSelector { error } => format!(" is invalid ({error}), so it selects nothing"),
        Cause::OtherNamespace { namespace, .. } => {
            format!(" is not set, so only its own namespace is searched, not {namespace}")
        }
        Cause::Requirement {
            requirement,
            key,
            labels_of,
            value,
            ..
        } => match value {
            Some(v) => format!(" {requirement} does not match: {labels_of} has {key}={v}"),
            None => format!(" {requirement} does not match: {labels_of} has no label {key}"),
        },
    };
    Some(format!(
        "{what}: {} {}{cause}",
        reason.selector_of.kind, reason.field
    ))
}

impl std::fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = self.0;
        if !e.refused.is_empty() || e.steps.is_empty() {
            return std::fmt::Display::fmt(e, f);
        }
        writeln!(
            f,
            "{} {}/{}",
            e.object.kind, e.object.namespace, e.object.name
        )?;
        let mut groups: Vec<(String, Vec<&Step>)> = Vec::new();
        for step in &e.steps {
            match group_key(&step.outcome) {
                None => write_step(f, step)?,
                Some(key) => match groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, steps)) => steps.push(step),
                    None => groups.push((key, vec![step])),
                },
            }
        }
        // Most frequent first; a stable sort keeps the agents' order among equals.
        groups.sort_by_key(|(_, steps)| std::cmp::Reverse(steps.len()));
        let mut grouped = false;
        for (key, steps) in &groups {
            if let [step] = steps.as_slice() {
                write_step(f, step)?;
                continue;
            }
            grouped = true;
            let named: Vec<String> = steps
                .iter()
                .take(NAMED)
                .map(|step| match &step.outcome {
                    Outcome::InstanceNotSelected { reason } | Outcome::NotSelected { reason } => {
                        match &reason.cause {
                            Cause::Requirement { expression, .. } => {
                                format!("{} ({expression})", pair(step))
                            }
                            _ => pair(step),
                        }
                    }
                    _ => pair(step),
                })
                .collect();
            write!(f, "  {} {key}; {}", steps.len(), named.join(", "))?;
            match steps.len().saturating_sub(NAMED) {
                0 => writeln!(f)?,
                more => writeln!(f, " and {more} more")?,
            }
        }
        if grouped {
            writeln!(
                f,
                "  (--all prints each of the {} on its own line)",
                e.steps.len()
            )?;
        }
        Ok(())
    }
}

impl std::fmt::Display for RejectionView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(o) = &self.object {
            write!(f, "{} {}/{}: ", o.kind, o.namespace, o.name)?;
        }
        match &self.field {
            Some(field) => write!(f, "{field}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::fmt::Display for NotSelected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.selector_of;
        write!(f, "{} {}/{} {}", s.kind, s.namespace, s.name, self.field)?;
        match &self.cause {
            Cause::NilSelector => write!(f, " is not set, so it selects nothing"),
            Cause::InvalidSelector { error } => {
                write!(f, " is invalid ({error}), so it selects nothing")
            }
            Cause::OtherNamespace {
                searched,
                namespace,
            } => write!(
                f,
                " is not set, so only namespace {searched} is searched, not {namespace}"
            ),
            Cause::Requirement {
                requirement,
                expression,
                key,
                labels_of,
                value,
            } => {
                write!(
                    f,
                    " {requirement} ({expression}) does not match: {labels_of} "
                )?;
                match value {
                    Some(v) => write!(f, "has {key}={v}"),
                    None => write!(f, "has no label {key}"),
                }
            }
        }
    }
}

/// The kind `explain` takes for a kubectl-style name: singular, plural or short name, any
/// case, optionally with its API group (`servicemonitors.monitoring.coreos.com`).
pub fn parse_kind(name: &str) -> Option<Kind> {
    let lower = name.to_ascii_lowercase();
    let (resource, group) = match lower.split_once('.') {
        Some((resource, group)) => (resource, Some(group)),
        None => (lower.as_str(), None),
    };
    let (kind, kind_group) = match resource {
        "servicemonitor" | "servicemonitors" | "smon" => {
            (Kind::ServiceMonitor, "monitoring.coreos.com")
        }
        "podmonitor" | "podmonitors" | "pmon" => (Kind::PodMonitor, "monitoring.coreos.com"),
        "probe" | "probes" | "prb" => (Kind::Probe, "monitoring.coreos.com"),
        "scrapeconfig" | "scrapeconfigs" | "scfg" => (Kind::ScrapeConfig, "monitoring.coreos.com"),
        "podlogs" => (Kind::PodLogs, "monitoring.grafana.com"),
        "metricsinstance" | "metricsinstances" => (Kind::MetricsInstance, "monitoring.grafana.com"),
        "logsinstance" | "logsinstances" => (Kind::LogsInstance, "monitoring.grafana.com"),
        "integration" | "integrations" => (Kind::Integration, "monitoring.grafana.com"),
        _ => return None,
    };
    group.is_none_or(|g| g == kind_group).then_some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_as_kubectl_spells_them() {
        for name in [
            "servicemonitor",
            "ServiceMonitors",
            "smon",
            "servicemonitors.monitoring.coreos.com",
        ] {
            assert_eq!(parse_kind(name), Some(Kind::ServiceMonitor), "{name}");
        }
        assert_eq!(parse_kind("PMON"), Some(Kind::PodMonitor));
        assert_eq!(parse_kind("prb"), Some(Kind::Probe));
        assert_eq!(parse_kind("scfg"), Some(Kind::ScrapeConfig));
        assert_eq!(
            parse_kind("scrapeconfigs.monitoring.coreos.com"),
            Some(Kind::ScrapeConfig)
        );
        assert_eq!(parse_kind("PodLogs"), Some(Kind::PodLogs));
        assert_eq!(parse_kind("metricsinstances"), Some(Kind::MetricsInstance));
        assert_eq!(parse_kind("LogsInstance"), Some(Kind::LogsInstance));
        assert_eq!(parse_kind("integration"), Some(Kind::Integration));
        assert_eq!(parse_kind("servicemonitors.monitoring.grafana.com"), None);
        assert_eq!(parse_kind("grafanaagent"), None);
        assert_eq!(parse_kind("secret"), None);
    }
}
