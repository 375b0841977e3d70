//! The controller behind `agent-operator run`: it watches the cluster and keeps every
//! GrafanaAgent's objects equal to what `render::plan` produces for the same inputs.
//!
//! This crate, the CLI and testkube are the only ones that depend on tokio and the kube client;
//! everything it decides is computed by the pure `render` crate.
//!
//! The modules, from the bottom up (each uses only modules above it in this list; the
//! `module_graph` test fails on a cycle):
//! * leaves: [`error`], [`metrics`], `backoff`, [`logging`], `publisher` (writes Events),
//!   `checked` (our kinds read with render's schema check: the fields our CRDs lack);
//! * [`watches`]: the registry of watched kinds, their reflector stores and trigger streams;
//! * `writer`: the one writer of every managed object (server-side apply, drift repair, own
//!   writes);
//! * `context`: the handles every step shares;
//! * the steps of a reconcile, each a function of the context: `inputs` (snapshot and
//!   discover), `apply`, `status`, `events`;
//! * `mappers`: which agents an object change concerns (from `render::index::ReverseIndex`;
//!   mappers never call the API);
//! * `reconcile`: the pipeline snapshot -> discover -> plan -> apply -> status -> events, and
//!   what it keeps between reconciles;
//! * [`kubelet`]: the kubelet Service controller (through the same writer); [`leader`],
//!   [`http`], [`runtime`]: leader election, the HTTP endpoints, the process around them;
//! * [`config_loader`]: `agent-operator config-loader`, run in the agent pods, apart from the
//!   controller (it uses only the leaves and [`http`]'s listen addresses).

pub(crate) mod apply;
mod backoff;
mod checked;
pub mod config_loader;
mod context;
pub mod error;
mod events;
pub mod http;
mod inputs;
pub mod kubelet;
pub mod leader;
pub mod logging;
mod mappers;
pub mod metrics;
mod publisher;
mod reconcile;
pub mod runtime;
pub(crate) mod status;
mod watches;
mod writer;

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use api::GrafanaAgent;
use futures::StreamExt;
use kube::Client;
use kube::api::{Api, ListParams};
use kube::runtime::Controller;
use kube::runtime::events::Reporter;
use kube::runtime::reflector::ObjectRef;
use render::desired::PlanOptions;
use render::index::ReverseIndex;

pub use error::{ConnectError, Connection, Error, connect};
pub use inputs::list_inputs;
pub use metrics::Metrics;
pub use watches::Readiness;

use context::Context;
use mappers::Mappers;
use reconcile::Reconciler;
use watches::{Stores, Triggers};
use writer::{OwnWrites, Writer};

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
    /// `--runtime`: what runs the configs of agents without `spec.runtime`.
    pub runtime: api::Runtime,
    /// `--config-loader-image`: the image of the pods' config loader (the operator's own).
    pub config_loader_image: String,
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
            runtime: api::Runtime::Agent,
            config_loader_image: render::desired::DEFAULT_CONFIG_LOADER_IMAGE.to_owned(),
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
    own_writes: OwnWrites,
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
            own_writes: OwnWrites::default(),
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
            own_writes,
        } = self;
        let reporter = Reporter {
            controller: "agent-operator".to_owned(),
            instance: config.instance.clone(),
        };
        let ctx = Context {
            client: client.clone(),
            metrics: metrics.clone(),
            stores: stores.clone(),
            writer: Writer::new(client.clone(), own_writes.clone()),
            publisher: publisher::Publisher::new(client, reporter, config.namespace.clone()),
        };
        let plan_options = PlanOptions {
            labels: config.labels.clone(),
            operator_version: config.operator_version.clone(),
            runtime: config.runtime,
            config_loader_image: config.config_loader_image.clone(),
        };
        let cleanup = status::Cleanup::new(status::Sweep::new(
            config.namespace.as_deref(),
            config.agent_selector.as_deref(),
        ));
        let reconciler = Arc::new(Reconciler::new(
            ctx,
            plan_options,
            config.periodic_requeue,
            readiness,
            index.clone(),
            cleanup,
        ));

        // Every watch, each with its mapper (the registry of watched kinds, `watches.rs`).
        let mappers = Arc::new(Mappers {
            index,
            namespaces: stores.namespaces.clone(),
            metrics: metrics.clone(),
            own_writes,
        });
        // A change or departure of an agent reconciles too the agents of its namespace whose
        // generated names may collide with its own (issue 38, item 6): the later of two
        // colliding agents runs once the earlier is renamed or gone.
        let (sharing, sharing_names) = futures::channel::mpsc::unbounded();
        let (controller, agents_gone) = triggers.wire(&stores, &mappers, |agents| {
            let (mappers, sharing) = (mappers.clone(), sharing.clone());
            let agents = agents.inspect(move |event| {
                if let Ok(agent) = event {
                    for other in mappers.sharing_names(&ObjectRef::from_obj(agent)) {
                        let _ = sharing.unbounded_send(other);
                    }
                }
            });
            Controller::for_stream(agents, stores.agents.clone())
        });

        // An agent that is deleted (or leaves --agent-selector) is forgotten; its objects are
        // left to ownerReference garbage collection, its entries in the status of the objects
        // it selected are removed. Only a real departure counts (see `watches::Departures`):
        // during the first list every agent is missing from the store.
        let forgetting = {
            let reconciler = reconciler.clone();
            let mappers = mappers.clone();
            agents_gone.for_each(move |key| {
                for other in mappers.sharing_names(&key) {
                    let _ = sharing.unbounded_send(other);
                }
                let reconciler = reconciler.clone();
                async move { reconciler.forget(&key).await }
            })
        };

        let controller = controller
            .reconcile_all_on(relists)
            .reconcile_on(sharing_names)
            .graceful_shutdown_on(shutdown)
            .run(reconcile::reconcile, reconcile::error_policy, reconciler)
            .for_each(|outcome| async move {
                match outcome {
                    Ok((agent, _)) => tracing::debug!(agent = %agent, "reconciled"),
                    // Reconcile errors were logged by the error policy, watch failures by
                    // the watches; this reports agents that vanished while queued.
                    Err(e) => tracing::debug!(error = %e, "controller event"),
                }
            });
        // The departures end with the agents' watch, that is with the controller.
        futures::future::join(controller, forgetting).await;
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
