//! Leader election against testkube over real HTTP: one leader at a time, takeover on release
//! and on expiry, and a leader that cannot renew stops before its lease runs out.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use controller::leader::{LeaderElection, LeaderElectionConfig, LeaderMetrics};
use k8s_openapi::api::coordination::v1::Lease;
use kube::Api;
use kube::api::{Patch, PatchParams};
use prometheus_client::registry::Registry;
use testkube::{RequestMatch, TestKube};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const LEASE: &str = "agent-operator-test";

fn config(identity: &str, duration_secs: u64) -> LeaderElectionConfig {
    LeaderElectionConfig {
        namespace: "default".into(),
        lease_name: LEASE.into(),
        identity: identity.into(),
        lease_duration: Duration::from_secs(duration_secs),
        renew_before: Duration::from_secs(1),
    }
}

/// One candidate: counts how many of its terms are running and lets the test stop it.
struct Candidate {
    running: Arc<AtomicUsize>,
    leading: watch::Receiver<bool>,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<Option<&'static str>, controller::leader::LeaderError>>,
    registry: Registry,
}

impl Candidate {
    fn start(kube: &TestKube, config: LeaderElectionConfig) -> Candidate {
        let mut registry = Registry::default();
        let metrics = LeaderMetrics::new(&mut registry);
        let election =
            LeaderElection::new(kube.client().unwrap(), config, metrics).expect("valid config");
        let leading = election.leading();
        let running = Arc::new(AtomicUsize::new(0));
        let (shutdown, stopped) = oneshot::channel::<()>();
        let counter = running.clone();
        let task = tokio::spawn(election.run(
            async move {
                let _ = stopped.await;
            },
            move |stop: CancellationToken| {
                let counter = counter.clone();
                async move {
                    let _term = Running::new(counter);
                    stop.cancelled().await;
                    // In-flight work finishing after the stop signal.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    "stopped"
                }
            },
        ));
        Candidate {
            running,
            leading,
            shutdown: Some(shutdown),
            task,
            registry,
        }
    }

    fn is_running(&self) -> bool {
        self.running.load(Ordering::SeqCst) > 0
    }

    fn metrics_text(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry).unwrap();
        text
    }
}

/// Counts a running term; dropping the work future (lease lost) ends it too.
struct Running(Arc<AtomicUsize>);

impl Running {
    fn new(counter: Arc<AtomicUsize>) -> Self {
        counter.fetch_add(1, Ordering::SeqCst);
        Running(counter)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn wait_for(what: &str, timeout: Duration, mut condition: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !condition() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    start.elapsed()
}

async fn holder(kube: &TestKube) -> Option<String> {
    let leases: Api<Lease> = Api::namespaced(kube.client().unwrap(), "default");
    leases.get(LEASE).await.unwrap().spec?.holder_identity
}

#[tokio::test]
async fn one_leader_at_a_time_and_a_released_lease_is_taken_over_at_once() {
    let kube = TestKube::start().await.unwrap();
    let mut a = Candidate::start(&kube, config("a", 10));
    wait_for("a to lead", Duration::from_secs(10), || a.is_running()).await;
    let b = Candidate::start(&kube, config("b", 10));
    assert!(*a.leading.borrow());
    assert!(a.metrics_text().contains("agent_operator_leader 1"));

    // b stays a standby for well over a renewal period of a.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(a.is_running() && !b.is_running());
    assert!(b.metrics_text().contains("agent_operator_leader 0"));
    assert_eq!(holder(&kube).await.as_deref(), Some("a"));

    // A graceful stop lets the work finish, releases the lease, and b takes over long before
    // the 10 s lease would have expired.
    a.shutdown.take().unwrap().send(()).unwrap();
    let output = (&mut a.task).await.unwrap().unwrap();
    assert_eq!(output, Some("stopped"));
    assert!(!a.is_running());
    assert!(a.metrics_text().contains("agent_operator_leader 0"));
    let took = wait_for("b to take over", Duration::from_secs(4), || b.is_running()).await;
    assert!(
        took < Duration::from_secs(4),
        "takeover after release took {took:?}"
    );
    assert_eq!(holder(&kube).await.as_deref(), Some("b"));
}

#[tokio::test]
async fn a_vanished_leader_is_replaced_within_the_lease_duration() {
    let kube = TestKube::start().await.unwrap();
    let a = Candidate::start(&kube, config("a", 4));
    wait_for("a to lead", Duration::from_secs(10), || a.is_running()).await;
    let b = Candidate::start(&kube, config("b", 4));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!b.is_running());

    // Like SIGKILL: no release, the lease has to expire.
    a.task.abort();
    let _ = a.task.await;
    let took = wait_for("b to take over", Duration::from_secs(8), || b.is_running()).await;
    assert!(
        took <= Duration::from_secs(6),
        "takeover after expiry took {took:?}"
    );
}

#[tokio::test]
async fn a_leader_that_cannot_renew_stops_before_its_lease_expires() {
    let kube = TestKube::start().await.unwrap();
    let a = Candidate::start(&kube, config("a", 4));
    wait_for("a to lead", Duration::from_secs(10), || a.is_running()).await;
    let leases: Api<Lease> = Api::namespaced(kube.client().unwrap(), "default");
    let renewed = leases
        .get(LEASE)
        .await
        .unwrap()
        .spec
        .unwrap()
        .renew_time
        .unwrap();

    kube.faults()
        .fail_next(RequestMatch::verb_resource("patch", "leases"), 1000, 500);
    kube.faults()
        .fail_next(RequestMatch::verb_resource("get", "leases"), 1000, 500);
    wait_for("a to step down", Duration::from_secs(6), || !a.is_running()).await;
    let expiry = std::time::SystemTime::from(renewed.0) + Duration::from_secs(4);
    assert!(
        std::time::SystemTime::now() < expiry,
        "a stopped only after its lease expired"
    );
    assert!(!*a.leading.borrow());
    kube.faults().clear();
    // Once the API answers again it campaigns and leads anew.
    wait_for("a to lead again", Duration::from_secs(15), || {
        a.is_running()
    })
    .await;
}

#[tokio::test]
async fn a_leader_whose_lease_is_taken_stops_at_once() {
    let kube = TestKube::start().await.unwrap();
    let a = Candidate::start(&kube, config("a", 10));
    wait_for("a to lead", Duration::from_secs(10), || a.is_running()).await;

    let leases: Api<Lease> = Api::namespaced(kube.client().unwrap(), "default");
    let steal = serde_json::json!({"spec": {"holderIdentity": "intruder"}});
    leases
        .patch(LEASE, &PatchParams::default(), &Patch::Merge(&steal))
        .await
        .unwrap();
    let took = wait_for("a to step down", Duration::from_secs(2), || !a.is_running()).await;
    assert!(took < Duration::from_secs(2));
}
