//! The controller behind `agent-operator run`: it watches the cluster and keeps every
//! GrafanaAgent's objects equal to what `render::plan` produces for the same inputs.
//!
//! This crate, the CLI and testkube are the only ones that depend on tokio and the kube client;
//! everything it decides is computed by the pure `render` crate.
//!
//! * [`watches`]: reflector stores and trigger streams for every kind;
//! * mappers: which agents an object change concerns, from `render::index::ReverseIndex`
//!   (mappers never call the API);
//! * [`reconcile`]: the pipeline snapshot ([`inputs`]) -> discover -> plan -> [`apply`] ->
//!   [`status`] (and [`events`]);
//! * [`metrics`]: the Prometheus metrics.

pub mod apply;
pub mod error;
mod events;
pub mod http;
mod inputs;
pub mod kubelet;
pub mod leader;
pub mod logging;
pub mod metrics;
mod reconcile;
pub mod runtime;
pub mod status;
mod watches;

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use api::GrafanaAgent;
use futures::StreamExt;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{Api, ListParams};
use kube::core::PartialObjectMeta;
use kube::runtime::Controller;
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Client, Resource};
use render::desired::PlanOptions;
use render::index::{Change, ReverseIndex};
use render::input_ref::{InputRef, Kind};
use render::store::InputStore;

pub use error::Error;
pub use inputs::list_inputs;
pub use metrics::Metrics;
pub use watches::Readiness;

use reconcile::{AgentStates, Context};
use watches::{Stores, Triggers};

/// Operator-wide settings (the `run` flags).
#[derive(Debug, Clone)]
pub struct OperatorConfig {
    /// `--namespace`: watch and reconcile only this namespace (Namespaces are still read).
    pub namespace: Option<String>,
    /// `--agent-selector`: reconcile only the GrafanaAgents matching this label selector.
    pub agent_selector: Option<String>,
    /// `--labels`: extra labels for generated objects (spec 3.2).
    pub labels: BTreeMap<String, String>,
    /// Shown in the pods' `app.kubernetes.io/version` label.
    pub operator_version: String,
    /// Reconcile every agent this often even when nothing changed.
    pub periodic_requeue: Duration,
    /// The name Events are reported under (`reportingInstance`), e.g. the pod name.
    pub instance: Option<String>,
}

impl OperatorConfig {
    pub fn new(operator_version: impl Into<String>) -> Self {
        OperatorConfig {
            namespace: None,
            agent_selector: None,
            labels: BTreeMap::new(),
            operator_version: operator_version.into(),
            periodic_requeue: Duration::from_secs(30 * 60),
            instance: None,
        }
    }
}

/// The controller, built but not yet running.
pub struct Operator {
    client: Client,
    config: OperatorConfig,
    metrics: Metrics,
    stores: Stores,
    triggers: Triggers,
    readiness: Readiness,
    relists: watches::Relisted,
    index: Arc<RwLock<ReverseIndex>>,
    states: AgentStates,
    own_writes: apply::OwnWrites,
}

impl Operator {
    /// Sets up the watches (no request is made until [`Operator::run`]).
    pub fn new(client: Client, config: OperatorConfig, metrics: Metrics) -> Operator {
        let (stores, triggers, readiness, relists) = watches::build(
            client.clone(),
            config.namespace.as_deref(),
            config.agent_selector.as_deref(),
            metrics.clone(),
        );
        Operator {
            client,
            config,
            metrics,
            stores,
            triggers,
            readiness,
            relists,
            index: Arc::default(),
            states: AgentStates::default(),
            own_writes: apply::OwnWrites::default(),
        }
    }

    /// Ready once every watch's cache has synced.
    pub fn readiness(&self) -> Readiness {
        self.readiness.clone()
    }

    /// Reconciles until `shutdown` resolves, then lets the reconciles in flight finish (their
    /// writes included) and returns. Fails at once when the GrafanaAgent CRD is not served or
    /// `--agent-selector` is not a valid label selector.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + Sync + 'static,
    ) -> Result<(), Error> {
        self.check_access().await?;
        let Operator {
            client,
            config,
            metrics,
            stores,
            triggers,
            readiness,
            relists,
            index,
            states,
            own_writes,
        } = self;
        let reporter = Reporter {
            controller: "agent-operator".to_owned(),
            instance: config.instance.clone(),
        };
        let ctx = Arc::new(Context {
            client: client.clone(),
            plan_options: PlanOptions {
                labels: config.labels.clone(),
                operator_version: config.operator_version.clone(),
            },
            metrics: metrics.clone(),
            stores: stores.clone(),
            index: index.clone(),
            recorder: Recorder::new(client, reporter),
            states: states.clone(),
            failures: Default::default(),
            periodic: config.periodic_requeue,
            readiness,
            sweep: status::Sweep::new(
                config.namespace.as_deref(),
                config.agent_selector.as_deref(),
            ),
            own_writes: own_writes.clone(),
        });

        let Triggers {
            agents,
            metrics_instances,
            logs_instances,
            pod_logs,
            integrations,
            service_monitors,
            pod_monitors,
            probes,
            namespaces,
            secrets,
            config_maps,
            services,
            stateful_sets,
            daemon_sets,
            deployments,
        } = triggers;

        // An agent that is deleted (or leaves --agent-selector) is forgotten; its objects are
        // left to ownerReference garbage collection, its entries in the status of the objects
        // it selected are removed.
        let agents_store = stores.agents.clone();
        let forget = {
            let (index, states, metrics) = (index.clone(), states.clone(), metrics.clone());
            let (client, stores) = (ctx.client.clone(), stores.clone());
            move |agent: &GrafanaAgent| {
                let key = ObjectRef::from_obj(agent);
                reconcile::forget(&key, &index, &states, &metrics);
                let agent =
                    api::status::agent_key(key.namespace.as_deref().unwrap_or_default(), &key.name);
                let (client, stores, metrics) = (client.clone(), stores.clone(), metrics.clone());
                tokio::spawn(async move {
                    status::remove_entries(&client, &stores, &metrics, &agent).await;
                });
            }
        };
        let agents = agents.inspect(move |touched| {
            if let Ok(agent) = touched {
                let key = ObjectRef::from_obj(agent);
                if agents_store.get(&key).is_none() {
                    forget(agent);
                }
            }
        });

        let m = Arc::new(Mappers {
            index,
            namespaces: stores.namespaces.clone(),
            metrics: metrics.clone(),
            own_writes,
        });
        Controller::for_stream(agents, stores.agents.clone())
            .watches_stream(metrics_instances, m.selected(Kind::MetricsInstance))
            .watches_stream(logs_instances, m.selected(Kind::LogsInstance))
            .watches_stream(pod_logs, m.selected(Kind::PodLogs))
            .watches_stream(integrations, m.selected(Kind::Integration))
            .watches_stream(service_monitors, m.selected(Kind::ServiceMonitor))
            .watches_stream(pod_monitors, m.selected(Kind::PodMonitor))
            .watches_stream(probes, m.selected(Kind::Probe))
            .watches_stream(secrets, m.secrets(stores.secrets.clone()))
            .watches_stream(config_maps, m.selected(Kind::ConfigMap))
            .watches_stream(namespaces, m.selected(Kind::Namespace))
            .watches_stream(services, m.owned(stores.services.clone()))
            .watches_stream(stateful_sets, m.owned(stores.stateful_sets.clone()))
            .watches_stream(daemon_sets, m.owned(stores.daemon_sets.clone()))
            .watches_stream(deployments, m.owned(stores.deployments.clone()))
            .reconcile_all_on(relists)
            .graceful_shutdown_on(shutdown)
            .run(reconcile::reconcile, reconcile::error_policy, ctx)
            .for_each(|outcome| async move {
                match outcome {
                    Ok((agent, _)) => tracing::debug!(agent = %agent, "reconciled"),
                    // Reconcile errors were logged by the error policy, watch failures by
                    // the watches; this reports agents that vanished while queued.
                    Err(e) => tracing::debug!(error = %e, "controller event"),
                }
            })
            .await;
        tracing::info!("controller stopped");
        Ok(())
    }

    /// One cheap list of GrafanaAgents: fails clearly when the CRD is missing, access is
    /// denied or the agent selector is invalid, rather than retrying a watch forever.
    async fn check_access(&self) -> Result<(), Error> {
        let api: Api<GrafanaAgent> = match &self.config.namespace {
            Some(ns) => Api::namespaced(self.client.clone(), ns),
            None => Api::all(self.client.clone()),
        };
        let mut params = ListParams::default().limit(1);
        if let Some(selector) = &self.config.agent_selector {
            params = params.labels(selector);
        }
        match api.list_metadata(&params).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(status))
                if status.code == 400 && self.config.agent_selector.is_some() =>
            {
                Err(Error::AgentSelector {
                    selector: self.config.agent_selector.clone().unwrap_or_default(),
                    message: status.message.clone(),
                })
            }
            Err(e) => Err(Error::api("listing GrafanaAgents")(e)),
        }
    }
}

/// The functions that turn a watched object's change into the agents to reconcile.
struct Mappers {
    index: Arc<RwLock<ReverseIndex>>,
    namespaces: Store<PartialObjectMeta<Namespace>>,
    metrics: Metrics,
    own_writes: apply::OwnWrites,
}

type Agents = Vec<ObjectRef<GrafanaAgent>>;

/// The GrafanaAgent an object's controller ownerReference names, if any.
fn controlling_agent<K: Resource>(object: &K) -> Option<ObjectRef<GrafanaAgent>> {
    let meta = object.meta();
    let owner = meta
        .owner_references
        .as_ref()?
        .iter()
        .find(|o| o.controller == Some(true) && o.kind == "GrafanaAgent")?;
    Some(ObjectRef::new(&owner.name).within(meta.namespace.as_deref().unwrap_or_default()))
}

impl Mappers {
    fn lookup(&self, object: &InputRef, labels: &BTreeMap<String, String>) -> Agents {
        // The index reads only the labels of the changed object's namespace.
        let mut namespaces = InputStore::new();
        if let Some(ns) = self.namespaces.get(&ObjectRef::new(&object.namespace)) {
            let labels = ns.metadata.labels.clone().unwrap_or_default();
            namespaces.apply_namespace(object.namespace.clone(), labels);
        }
        self.index
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .agents_for(Change::applied(object, labels), &namespaces)
            .into_iter()
            .map(|agent| ObjectRef::new(&agent.name).within(&agent.namespace))
            .collect()
    }

    /// Agents whose hierarchy holds, references or selects the object (a deleted object
    /// arrives with its last labels). A Namespace maps to the agents with members in it or
    /// selecting by its labels.
    fn selected<K: Resource>(
        self: &Arc<Self>,
        kind: Kind,
    ) -> impl Fn(K) -> Agents + Send + Sync + 'static {
        let this = self.clone();
        move |object: K| {
            let agents = this.selecting(kind, &object);
            this.metrics.triggered_by(kind.as_str(), agents.len());
            agents
        }
    }

    fn selecting<K: Resource>(&self, kind: Kind, object: &K) -> Agents {
        let meta = object.meta();
        let no_labels = BTreeMap::new();
        let name = meta.name.clone().unwrap_or_default();
        let namespace = match kind {
            Kind::Namespace => String::new(),
            _ => meta.namespace.clone().unwrap_or_default(),
        };
        let changed = InputRef::new(kind, namespace, name);
        self.lookup(&changed, meta.labels.as_ref().unwrap_or(&no_labels))
    }

    /// A Secret: the agents that select or reference it, and the agent that owns it (a
    /// generated Secret edited or deleted is repaired) unless the change is the operator's
    /// own write.
    fn secrets(
        self: &Arc<Self>,
        store: Store<PartialObjectMeta<Secret>>,
    ) -> impl Fn(PartialObjectMeta<Secret>) -> Agents + Send + Sync + 'static {
        let this = self.clone();
        move |object| {
            let mut agents = this.selecting(Kind::Secret, &object);
            if !this
                .own_writes
                .is_echo(&object, store.get(&ObjectRef::from_obj(&object)).is_some())
            {
                agents.extend(controlling_agent(&object));
            }
            this.metrics
                .triggered_by(Kind::Secret.as_str(), agents.len());
            agents
        }
    }

    /// The agent that owns a workload or Service, unless the change is the operator's own
    /// write.
    fn owned<K>(&self, store: Store<K>) -> impl Fn(K) -> Agents + Send + Sync + 'static
    where
        K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        let (metrics, own_writes) = (self.metrics.clone(), self.own_writes.clone());
        move |object: K| {
            let still_there = store.get(&ObjectRef::from_obj(&object)).is_some();
            let agents: Agents = if own_writes.is_echo(&object, still_there) {
                Vec::new()
            } else {
                controlling_agent(&object).into_iter().collect()
            };
            metrics.triggered_by(&K::kind(&()), agents.len());
            agents
        }
    }
}
