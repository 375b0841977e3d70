//! Everything around the reconcilers that makes a process an operator: the HTTP endpoints,
//! leader election gating the writers (the operator and the kubelet controller), and graceful
//! shutdown on SIGTERM or SIGINT.

use std::future::Future;
use std::sync::{Arc, Mutex};

use kube::Client;
use prometheus_client::registry::Registry;
use tokio_util::sync::CancellationToken;
use tracing::info;

use crate::http::{HttpError, HttpServers, ListenAddress, Probes};
use crate::kubelet::{KubeletController, KubeletMetrics, KubeletService};
use crate::leader::{LeaderElection, LeaderElectionConfig, LeaderError, LeaderMetrics};

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error(transparent)]
    Http(#[from] HttpError),
    #[error(transparent)]
    Leader(#[from] LeaderError),
    #[error("listening for termination signals: {0}")]
    Signals(std::io::Error),
}

/// The runtime flags, parsed.
#[derive(Debug, Clone, Default)]
pub struct RuntimeConfig {
    /// `None` runs the writers at once, as upstream (a single replica).
    pub leader_election: Option<LeaderElectionConfig>,
    pub kubelet_service: Option<KubeletService>,
    pub metrics_address: Option<ListenAddress>,
    pub health_address: Option<ListenAddress>,
}

/// Where a term of the operator says whether it is ready (its caches synced).
#[derive(Clone, Default)]
pub struct ReadySlot(Arc<Mutex<Option<ReadyFn>>>);

type ReadyFn = Box<dyn Fn() -> bool + Send + Sync>;

impl ReadySlot {
    pub fn set(&self, ready: impl Fn() -> bool + Send + Sync + 'static) {
        *self.lock() = Some(Box::new(ready));
    }

    fn clear(&self) {
        *self.lock() = None;
    }

    fn is_ready(&self) -> bool {
        self.lock().as_ref().is_some_and(|ready| ready())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<ReadyFn>> {
        // A panic while holding this lock cannot leave the Option half-written.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// One term of the operator: it runs until `stop` is cancelled, then finishes in-flight writes
/// and returns. `ready` should be given the operator's cache-sync check at once.
pub struct Term {
    pub stop: CancellationToken,
    pub ready: ReadySlot,
}

/// Built before the registry is shared, so that its metrics are registered with the rest.
pub struct Runtime {
    config: RuntimeConfig,
    leader_metrics: LeaderMetrics,
    kubelet_metrics: KubeletMetrics,
}

impl Runtime {
    pub fn new(config: RuntimeConfig, registry: &mut Registry) -> Self {
        Runtime {
            config,
            leader_metrics: LeaderMetrics::new(registry),
            kubelet_metrics: KubeletMetrics::new(registry),
        }
    }

    /// Binds the HTTP listeners, so a bad or taken address fails before anything else starts.
    pub async fn bind(
        self,
        client: Client,
        registry: Arc<Registry>,
    ) -> Result<BoundRuntime, RuntimeError> {
        let election = self
            .config
            .leader_election
            .as_ref()
            .map(|config| {
                LeaderElection::new(client.clone(), config.clone(), self.leader_metrics.clone())
            })
            .transpose()?;
        let ready = ReadySlot::default();
        let ready_check = {
            let ready = ready.clone();
            let election = election
                .as_ref()
                .map(|election| (election.leading(), election.holding()));
            Arc::new(move || match &election {
                // Holding the lease without leading keeps the standbys out while nothing is
                // reconciled: not ready, though it lasts at most half the renewal margin.
                Some((leading, holding)) if !*leading.borrow() => {
                    if *holding.borrow() {
                        Err("holding the leader lease without reconciling")
                    } else {
                        Ok(())
                    }
                }
                _ if ready.is_ready() => Ok(()),
                _ => Err("the watch caches have not synced yet"),
            })
        };
        let servers = HttpServers::bind(
            self.config.metrics_address,
            self.config.health_address,
            Probes {
                registry,
                ready: ready_check,
            },
        )
        .await?;
        Ok(BoundRuntime {
            client,
            kubelet: self
                .config
                .kubelet_service
                .map(|target| (target, self.kubelet_metrics)),
            election,
            servers,
            ready,
        })
    }
}

/// A runtime whose listeners are bound.
pub struct BoundRuntime {
    client: Client,
    kubelet: Option<(KubeletService, KubeletMetrics)>,
    election: Option<LeaderElection>,
    servers: HttpServers,
    ready: ReadySlot,
}

impl BoundRuntime {
    /// The HTTP listeners' addresses (metrics first), with any port 0 resolved.
    pub fn local_addrs(&self) -> Vec<std::net::SocketAddr> {
        self.servers.local_addrs()
    }

    /// Serves the endpoints and runs `operator` (with the kubelet controller beside it) while
    /// this process leads, until `shutdown` completes or the operator returns.
    ///
    /// `/readyz`: a standby is ready (it is doing its job, waiting; failing it would keep a
    /// two-replica rollout from ever completing), a leader once its term reports ready, a
    /// process that holds the lease without leading (it could not confirm it) is not.
    /// Returns the operator's output, or `None` when shutdown came while not leading.
    pub async fn run<W, F, T>(
        self,
        shutdown: impl Future<Output = ()>,
        mut operator: W,
    ) -> Result<Option<T>, RuntimeError>
    where
        W: FnMut(Term) -> F,
        F: Future<Output = T>,
    {
        let BoundRuntime {
            client,
            kubelet,
            election,
            servers,
            ready,
        } = self;
        let stop_serving = CancellationToken::new();
        let serving = tokio::spawn(servers.serve(stop_serving.clone()));

        let mut term = |stop: CancellationToken| {
            ready.clear();
            let writer = operator(Term {
                stop: stop.clone(),
                ready: ready.clone(),
            });
            let kubelet = kubelet
                .clone()
                .map(|(target, metrics)| KubeletController::new(client.clone(), target, metrics));
            async move {
                let kubelet_stop = stop.child_token();
                let kubelet_run = async {
                    if let Some(kubelet) = kubelet {
                        kubelet.run(kubelet_stop.clone()).await;
                    }
                };
                let operator_run = async {
                    let output = writer.await;
                    // An operator that ends on its own takes the kubelet controller with it.
                    kubelet_stop.cancel();
                    output
                };
                let (output, ()) = tokio::join!(operator_run, kubelet_run);
                output
            }
        };

        let outcome = match election {
            Some(election) => election.run(shutdown, term).await,
            None => {
                let stop = CancellationToken::new();
                let running = term(stop.clone());
                let mut running = std::pin::pin!(running);
                let mut shutdown = std::pin::pin!(shutdown);
                tokio::select! {
                    output = &mut running => Ok(Some(output)),
                    () = &mut shutdown => {
                        info!("shutting down: letting the operator finish its in-flight work");
                        stop.cancel();
                        Ok(Some(running.await))
                    }
                }
            }
        };
        ready.clear();
        stop_serving.cancel();
        let _ = serving.await;
        outcome.map_err(RuntimeError::from)
    }
}

/// Completes on the first SIGTERM or SIGINT.
pub fn termination_signal() -> Result<impl Future<Output = ()>, RuntimeError> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate()).map_err(RuntimeError::Signals)?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(RuntimeError::Signals)?;
    Ok(async move {
        let name = tokio::select! {
            _ = terminate.recv() => "SIGTERM",
            _ = interrupt.recv() => "SIGINT",
        };
        info!(signal = name, "shutting down");
    })
}
