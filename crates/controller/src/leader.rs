//! Leader election on a coordination.k8s.io Lease: only the holder runs the operator.
//!
//! kube-lease-manager acquires, renews and releases the Lease. Two things it does not do are
//! added here, both driven by a watch on that one Lease:
//! * a holder whose renewals stop succeeding keeps believing it leads; we step down ourselves
//!   once the last renewal we saw is about to expire, so we never write after a standby may
//!   have taken over;
//! * a standby sleeps until the lease it last read expires, even when the holder released it
//!   early; seeing the release on the watch makes it re-read and take over at once.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

use futures::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client};
use kube_lease_manager::{LeaseManager, LeaseManagerBuilder, LeaseManagerError};
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::backoff::Backoff;
use crate::watches::watch_config;

/// Where the Lease lives, who we are and how long a lease lasts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderElectionConfig {
    pub namespace: String,
    pub lease_name: String,
    /// Unique among the candidates: it is written to `spec.holderIdentity`.
    pub identity: String,
    /// How long a lease is valid after its last renewal; a standby takes over after that.
    pub lease_duration: Duration,
    /// The holder renews this long before its lease expires.
    pub renew_before: Duration,
}

/// Defaults as controller-runtime's: a 15 s lease renewed 5 s before it expires.
pub const DEFAULT_LEASE_DURATION: Duration = Duration::from_secs(15);
pub const DEFAULT_RENEW_BEFORE: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum LeaderError {
    #[error(
        "leader election: lease duration {duration:?} must be whole seconds, at least 2 s and \
         longer than the renewal margin {renew_before:?} (itself at least 1 s)"
    )]
    Durations {
        duration: Duration,
        renew_before: Duration,
    },
    #[error("leader election: identity must not be empty")]
    EmptyIdentity,
    #[error("leader election: Lease {namespace}/{name}: {source}")]
    Lease {
        namespace: String,
        name: String,
        source: LeaseManagerError,
    },
}

impl LeaderElectionConfig {
    /// A config with the default durations and an identity unique on this host and in a Pod
    /// (whose hostname is the Pod name).
    pub fn new(namespace: impl Into<String>, lease_name: impl Into<String>) -> Self {
        LeaderElectionConfig {
            namespace: namespace.into(),
            lease_name: lease_name.into(),
            identity: default_identity(),
            lease_duration: DEFAULT_LEASE_DURATION,
            renew_before: DEFAULT_RENEW_BEFORE,
        }
    }

    pub fn validate(&self) -> Result<(), LeaderError> {
        let whole = |d: Duration| d.subsec_nanos() == 0;
        let valid = whole(self.lease_duration)
            && whole(self.renew_before)
            && self.renew_before >= Duration::from_secs(1)
            && self.lease_duration > self.renew_before;
        if !valid {
            return Err(LeaderError::Durations {
                duration: self.lease_duration,
                renew_before: self.renew_before,
            });
        }
        if self.identity.is_empty() {
            return Err(LeaderError::EmptyIdentity);
        }
        Ok(())
    }

    /// When a holder that last renewed at `renewed` stops trusting its lease: half the renewal
    /// margin before expiry, leaving the other half for the renewal to show up on the watch.
    fn step_down_at(&self, renewed: SystemTime, duration: Duration) -> SystemTime {
        renewed + duration.saturating_sub(self.renew_before / 2)
    }

    /// When a lease the manager says it took, but the watch has not shown, is given up: the
    /// same margin a renewal gets ([`Self::step_down_at`]).
    fn give_up_at(&self, taken: SystemTime) -> SystemTime {
        taken + self.renew_before / 2
    }

    /// When a watch that has not shown what is due by `deadline` is replaced by a new one:
    /// early enough for the new one's list to arrive before the deadline.
    fn rewatch_at(&self, deadline: SystemTime) -> SystemTime {
        deadline - self.renew_before / 4
    }

    fn lease_error(&self, source: LeaseManagerError) -> LeaderError {
        LeaderError::Lease {
            namespace: self.namespace.clone(),
            name: self.lease_name.clone(),
            source,
        }
    }
}

/// `$HOSTNAME` (the Pod name in a cluster) and the process id.
pub fn default_identity() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "agent-operator".to_string());
    format!("{host}_{}", std::process::id())
}

/// `agent_operator_leader`: 1 while this process holds the lease and runs the operator.
#[derive(Clone, Debug, Default)]
pub struct LeaderMetrics {
    leader: Gauge,
}

impl LeaderMetrics {
    pub fn new(registry: &mut Registry) -> Self {
        let metrics = LeaderMetrics::default();
        registry.register(
            "agent_operator_leader",
            "1 while this process is the elected leader and reconciles, 0 otherwise",
            metrics.leader.clone(),
        );
        metrics
    }
}

/// What the watch last showed of the Lease.
#[derive(Debug, Default, Clone)]
struct LeaseView {
    holder: Option<String>,
    renewed: Option<SystemTime>,
    duration: Option<Duration>,
}

impl LeaseView {
    fn of(lease: &Lease) -> Self {
        let spec = lease.spec.as_ref();
        LeaseView {
            holder: spec.and_then(|s| s.holder_identity.clone()),
            renewed: spec.and_then(|s| s.renew_time.as_ref()).map(|t| t.0.into()),
            duration: spec
                .and_then(|s| s.lease_duration_seconds)
                .and_then(|s| u64::try_from(s).ok())
                .map(Duration::from_secs),
        }
    }

    /// Until when we may act as leader, if the lease is ours.
    fn ours_until(&self, config: &LeaderElectionConfig) -> Option<SystemTime> {
        if self.holder.as_deref() != Some(config.identity.as_str()) {
            return None;
        }
        Some(config.step_down_at(self.renewed?, self.duration?))
    }

    fn released(&self) -> bool {
        self.holder.is_none()
    }

    /// Whether the lease is someone else's: then it is not ours to give up.
    fn held_by_other(&self, config: &LeaderElectionConfig) -> bool {
        self.holder
            .as_deref()
            .is_some_and(|holder| holder != config.identity)
    }
}

type Changed<'a> = Pin<Box<dyn Future<Output = Result<bool, LeaseManagerError>> + Send + 'a>>;

/// Why a term ended.
enum TermEnd<T> {
    /// The work returned on its own.
    Returned(T),
    /// The lease went to someone else, or shutdown came.
    Lost,
    /// No renewal showed up before the deadline: the lease may be lost, or merely unseen.
    Unconfirmed,
}

/// Runs `work` whenever this process holds the lease, until `shutdown` completes.
pub struct LeaderElection {
    client: Client,
    config: LeaderElectionConfig,
    metrics: LeaderMetrics,
    leading: watch::Sender<bool>,
    holding: watch::Sender<bool>,
}

impl LeaderElection {
    pub fn new(
        client: Client,
        config: LeaderElectionConfig,
        metrics: LeaderMetrics,
    ) -> Result<Self, LeaderError> {
        config.validate()?;
        Ok(LeaderElection {
            client,
            config,
            metrics,
            leading: watch::channel(false).0,
            holding: watch::channel(false).0,
        })
    }

    /// Whether `work` is running as leader right now.
    pub fn leading(&self) -> watch::Receiver<bool> {
        self.leading.subscribe()
    }

    /// Whether this process may hold the lease right now, leading or not: a process that holds
    /// it without leading keeps every other candidate out while nothing is reconciled.
    pub fn holding(&self) -> watch::Receiver<bool> {
        self.holding.subscribe()
    }

    /// Campaigns for the lease and runs `work(stop)` while holding it.
    ///
    /// * Losing the lease drops the running `work` future at once, so it makes no further
    ///   request, and campaigns again; `work` is called anew on the next term.
    /// * A lease that the watch does not show renewed in time (the watch stalled, or the API
    ///   server does not answer) is first looked at again through a new watch; if that does
    ///   not show the renewal before the deadline, `work` is dropped and the lease given up
    ///   (released, not renewed), and this process campaigns again only once it sees the lease.
    /// * `shutdown` cancels `stop`: `work` is expected to finish its in-flight writes and
    ///   return; then the lease is released so that a standby takes over immediately.
    /// * `work` returning on its own ends the election: the lease is released and its output
    ///   returned. `None` means shutdown came while not leading.
    pub async fn run<W, F, T>(
        self,
        shutdown: impl Future<Output = ()>,
        mut work: W,
    ) -> Result<Option<T>, LeaderError>
    where
        W: FnMut(CancellationToken) -> F,
        F: Future<Output = T>,
    {
        let config = &self.config;
        let manager = LeaseManagerBuilder::new(self.client.clone(), &config.lease_name)
            .with_namespace(&config.namespace)
            .with_identity(&config.identity)
            .with_duration(config.lease_duration.as_secs())
            .with_grace(config.renew_before.as_secs())
            .build()
            .await
            .map_err(|e| config.lease_error(e))?;
        let api: Api<Lease> = Api::namespaced(self.client.clone(), &config.namespace);
        let selector = format!("metadata.name={}", config.lease_name);
        let watch_lease = || {
            watcher(api.clone(), watch_config().fields(&selector))
                .default_backoff()
                .applied_objects()
                .boxed()
        };
        let mut lease_events = watch_lease();

        let mut shutdown = std::pin::pin!(shutdown);
        let mut shutting_down = false;
        let mut view = LeaseView::default();
        let mut manager_says_leader = false;
        // When the manager last said it took the lease, for a lease the watch never confirms.
        let mut taken_at = SystemTime::now();
        // Set after giving up the lease: the manager is not asked to campaign (nor to renew)
        // until the new watch shows the lease.
        let mut blind = false;
        let mut rewatched = false;
        let mut changed: Changed<'_> = Box::pin(manager.changed());
        let mut retry = Backoff::new(Duration::from_secs(1), config.lease_duration);
        // Giving up a lease this process cannot confirm, from either side (campaigning or
        // leading): release it, and campaign again only once a new watch shows the Lease.
        macro_rules! give_up_blind {
            () => {
                drop(changed);
                if give_up(&manager, config).await {
                    manager_says_leader = false;
                }
                changed = Box::pin(futures::future::pending());
                lease_events = watch_lease();
                blind = true;
            };
        }
        info!(identity = %config.identity, lease = %config.lease_name,
              namespace = %config.namespace, "campaigning for leadership");

        loop {
            let unconfirmed = manager_says_leader && !blind && !view.held_by_other(config);
            self.holding
                .send_replace(manager_says_leader && !view.held_by_other(config));
            // Standby: wait until the manager holds the lease and the watch confirms it.
            let until = match view.ours_until(config) {
                Some(until) if manager_says_leader && SystemTime::now() < until => until,
                _ => {
                    // Held but not (yet) seen: the same two deadlines as a leader's renewal.
                    let give_up_at = config.give_up_at(taken_at);
                    let rewatch_at = config.rewatch_at(give_up_at);
                    tokio::select! {
                        () = &mut shutdown => {
                            drop(changed);
                            release(&manager, config).await;
                            self.holding.send_replace(false);
                            return Ok(None);
                        }
                        result = &mut changed, if !blind => {
                            match result {
                                Ok(leader) => {
                                    manager_says_leader = leader;
                                    taken_at = SystemTime::now();
                                    rewatched = false;
                                    retry.reset();
                                }
                                Err(e) => {
                                    warn!(error = %config.lease_error(e), "leader election failed; retrying");
                                    tokio::time::sleep(retry.next_delay()).await;
                                }
                            }
                            changed = Box::pin(manager.changed());
                        }
                        Some(event) = lease_events.next() => {
                            match event {
                                Ok(lease) => {
                                    view = LeaseView::of(&lease);
                                    if blind {
                                        debug!("the lease is in sight again; campaigning");
                                        blind = false;
                                        taken_at = SystemTime::now();
                                        changed = Box::pin(manager.changed());
                                    } else if view.released() && !manager_says_leader {
                                        debug!("lease released by its holder; re-reading it");
                                        // The manager sleeps until the expiry it last read;
                                        // `release` of a lease we do not hold only re-reads it.
                                        drop(changed);
                                        if let Err(e) = manager.release().await {
                                            warn!(error = %config.lease_error(e), "re-reading the lease");
                                        }
                                        changed = Box::pin(manager.changed());
                                    }
                                }
                                Err(e) => debug!(error = %e, "watching the lease"),
                            }
                        }
                        () = sleep_until(rewatch_at), if unconfirmed && !rewatched => {
                            debug!("the watch does not show the lease we took; watching it anew");
                            lease_events = watch_lease();
                            rewatched = true;
                        }
                        () = sleep_until(give_up_at), if unconfirmed => {
                            warn!(identity = %config.identity,
                                  "holding the lease but the watch does not show it; giving it up");
                            give_up_blind!();
                        }
                    }
                    continue;
                }
            };
            // Leader: run the work until it ends, the lease is lost or shutdown completes.
            info!(identity = %config.identity, "became leader");
            self.metrics.leader.set(1);
            self.leading.send_replace(true);
            let stop = CancellationToken::new();
            if shutting_down {
                stop.cancel();
            }
            let mut running = std::pin::pin!(work(stop.clone()));
            let mut deadline = std::pin::pin!(sleep_until(until));
            let mut rewatch = std::pin::pin!(sleep_until(config.rewatch_at(until)));
            rewatched = false;
            let ended = loop {
                tokio::select! {
                    output = &mut running => break TermEnd::Returned(output),
                    () = &mut shutdown, if !shutting_down => {
                        info!("shutting down: letting the operator finish its in-flight work");
                        shutting_down = true;
                        stop.cancel();
                    }
                    result = &mut changed => {
                        changed = Box::pin(manager.changed());
                        match result {
                            Ok(leader) => {
                                manager_says_leader = leader;
                                if !leader { break TermEnd::Lost; }
                            }
                            // Renewal trouble: the deadline from the last renewal seen decides.
                            Err(e) => warn!(error = %config.lease_error(e), "renewing the lease failed"),
                        }
                    }
                    Some(event) = lease_events.next() => match event {
                        Ok(lease) => {
                            view = LeaseView::of(&lease);
                            match view.ours_until(config) {
                                Some(until) => {
                                    deadline.set(sleep_until(until));
                                    rewatch.set(sleep_until(config.rewatch_at(until)));
                                    rewatched = false;
                                }
                                None => break TermEnd::Lost,
                            }
                        }
                        Err(e) => debug!(error = %e, "watching the lease"),
                    },
                    // A renewal is due before this; a watch that has not shown it may have
                    // stalled without closing, and a new one shows the lease as it is.
                    () = &mut rewatch, if !rewatched => {
                        debug!("the watch does not show the last renewal; watching the lease anew");
                        lease_events = watch_lease();
                        rewatched = true;
                    }
                    () = &mut deadline => break TermEnd::Unconfirmed,
                }
            };
            self.metrics.leader.set(0);
            self.leading.send_replace(false);
            match ended {
                TermEnd::Returned(output) => {
                    info!("operator stopped; releasing the lease");
                    drop(changed);
                    release(&manager, config).await;
                    self.holding.send_replace(false);
                    return Ok(Some(output));
                }
                TermEnd::Lost => {
                    // `running` is dropped here, with whatever request it had in flight.
                    warn!(identity = %config.identity, "lost the lease; stopped reconciling");
                    taken_at = SystemTime::now();
                }
                TermEnd::Unconfirmed => {
                    warn!(identity = %config.identity,
                          "cannot confirm the lease; stopped reconciling and giving it up");
                    // Renewing a lease it does not lead under would keep every standby out.
                    give_up_blind!();
                }
            }
            if shutting_down {
                self.holding.send_replace(false);
                return Ok(None);
            }
        }
    }
}

/// Releases a lease this process could not confirm, without waiting past the renewal margin:
/// a release that does not get through leaves the lease to expire, as it is no longer renewed.
/// Whether it was released: if not, the manager still counts it as held, and would renew it
/// once asked to campaign again.
async fn give_up(manager: &LeaseManager, config: &LeaderElectionConfig) -> bool {
    match tokio::time::timeout(config.renew_before, manager.release()).await {
        Ok(Ok(())) => {
            info!(lease = %config.lease_name, "gave up the lease");
            true
        }
        Ok(Err(e)) => {
            warn!(error = %config.lease_error(e), "giving up the lease; it expires unrenewed");
            false
        }
        Err(_) => {
            warn!(lease = %config.lease_name, "giving up the lease timed out; it expires unrenewed");
            false
        }
    }
}

async fn release(manager: &LeaseManager, config: &LeaderElectionConfig) {
    match manager.release().await {
        Ok(()) => info!(lease = %config.lease_name, "released the lease"),
        // The lease then expires by itself; a standby takes over after its duration.
        Err(e) => warn!(error = %config.lease_error(e), "releasing the lease"),
    }
}

fn sleep_until(at: SystemTime) -> tokio::time::Sleep {
    tokio::time::sleep_until(until_instant(at))
}

fn until_instant(until: SystemTime) -> tokio::time::Instant {
    let left = until
        .duration_since(SystemTime::now())
        .unwrap_or(Duration::ZERO);
    tokio::time::Instant::now() + left
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> LeaderElectionConfig {
        LeaderElectionConfig {
            namespace: "ns".into(),
            lease_name: "lease".into(),
            identity: "me".into(),
            lease_duration: Duration::from_secs(15),
            renew_before: Duration::from_secs(4),
        }
    }

    #[test]
    fn durations_must_be_whole_seconds_and_leave_room_to_renew() {
        assert!(config().validate().is_ok());
        let secs = Duration::from_secs;
        let millis = Duration::from_millis;
        for (lease_duration, renew_before) in [
            (secs(15), secs(15)),
            (secs(15), secs(0)),
            (secs(0), secs(0)),
            (millis(15_500), secs(4)),
            (secs(2), millis(1_500)),
        ] {
            let config = LeaderElectionConfig {
                lease_duration,
                renew_before,
                ..config()
            };
            assert!(
                matches!(config.validate(), Err(LeaderError::Durations { .. })),
                "{config:?}"
            );
        }
        let anonymous = LeaderElectionConfig {
            identity: String::new(),
            ..config()
        };
        assert!(matches!(
            anonymous.validate(),
            Err(LeaderError::EmptyIdentity)
        ));
    }

    #[test]
    fn a_lease_is_trusted_until_half_the_renewal_margin_before_expiry() {
        let renewed = SystemTime::UNIX_EPOCH + Duration::from_secs(1000);
        let view = LeaseView {
            holder: Some("me".into()),
            renewed: Some(renewed),
            duration: Some(Duration::from_secs(15)),
        };
        assert_eq!(
            view.ours_until(&config()),
            Some(renewed + Duration::from_secs(13))
        );
        let theirs = LeaseView {
            holder: Some("other".into()),
            ..view.clone()
        };
        assert_eq!(theirs.ours_until(&config()), None);
        let unrenewed = LeaseView {
            renewed: None,
            ..view
        };
        assert_eq!(unrenewed.ours_until(&config()), None);
    }
}
