//! Two operator runtimes with leader election against testkube: only the leader's operator
//! writes, both answer /readyz (the standby too), and a graceful stop hands over at once.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use controller::http::ListenAddress;
use controller::leader::LeaderElectionConfig;
use controller::runtime::{Runtime, RuntimeConfig, Term};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Patch, PatchParams};
use kube::{Api, Client};
use prometheus_client::registry::Registry;
use serde_json::json;
use testkube::TestKube;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (
        head.split(' ').nth(1).unwrap().parse().unwrap(),
        body.to_string(),
    )
}

/// A stand-in operator: it writes its identity into one ConfigMap every 100 ms.
async fn writer(client: Client, identity: &'static str, term: Term) -> &'static str {
    let config_maps: Api<ConfigMap> = Api::namespaced(client, "default");
    let mut ready = false;
    let mut count = 0_u64;
    loop {
        count += 1;
        let body = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "written-by"},
            "data": {"identity": identity, "count": count.to_string()},
        });
        config_maps
            .patch(
                "written-by",
                &PatchParams::apply(identity).force(),
                &Patch::Apply(&body),
            )
            .await
            .unwrap();
        if !ready {
            ready = true;
            term.ready.set(|| true);
        }
        tokio::select! {
            () = term.stop.cancelled() => return "stopped",
            () = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
    }
}

struct Process {
    metrics: SocketAddr,
    health: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<Option<&'static str>>,
}

async fn start(kube: &TestKube, identity: &'static str) -> Process {
    let loopback = || ListenAddress::parse("test", "127.0.0.1:0").unwrap();
    let config = RuntimeConfig {
        leader_election: Some(LeaderElectionConfig {
            identity: identity.into(),
            lease_duration: Duration::from_secs(10),
            renew_before: Duration::from_secs(2),
            ..LeaderElectionConfig::new("default", "agent-operator")
        }),
        kubelet_service: Some("default/kubelet".parse().unwrap()),
        metrics_address: loopback(),
        health_address: loopback(),
    };
    let mut registry = Registry::default();
    let runtime = Runtime::new(config, &mut registry);
    let client = kube.client().unwrap();
    let bound = runtime
        .bind(client.clone(), Arc::new(registry))
        .await
        .unwrap();
    let [metrics, health] = bound.local_addrs()[..] else {
        panic!("two listeners expected");
    };
    let (shutdown, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        bound
            .run(
                async move {
                    let _ = stopped.await;
                },
                move |term| writer(client.clone(), identity, term),
            )
            .await
            .unwrap()
    });
    Process {
        metrics,
        health,
        shutdown: Some(shutdown),
        task,
    }
}

async fn written_by(kube: &TestKube) -> Option<String> {
    let config_maps: Api<ConfigMap> = Api::namespaced(kube.client().unwrap(), "default");
    config_maps
        .get_opt("written-by")
        .await
        .unwrap()?
        .data?
        .remove("identity")
}

async fn eventually<F, Fut>(what: &str, timeout: Duration, mut check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !check().await {
        assert!(start.elapsed() < timeout, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    start.elapsed()
}

#[tokio::test]
async fn only_the_leader_writes_and_a_graceful_stop_hands_over_at_once() {
    let kube = TestKube::start().await.unwrap();
    let mut a = start(&kube, "a").await;
    eventually("a writes", Duration::from_secs(10), || async {
        written_by(&kube).await.as_deref() == Some("a")
    })
    .await;
    let b = start(&kube, "b").await;

    // Standby b is ready, and so is leader a once its operator reported ready.
    eventually("both ready", Duration::from_secs(5), || async {
        get(a.health, "/readyz").await.0 == 200 && get(b.health, "/readyz").await.0 == 200
    })
    .await;
    assert_eq!(get(b.health, "/healthz").await.0, 200);
    assert!(
        get(a.metrics, "/metrics")
            .await
            .1
            .contains("agent_operator_leader 1\n")
    );
    assert!(
        get(b.metrics, "/metrics")
            .await
            .1
            .contains("agent_operator_leader 0\n")
    );

    // Over several renewals only a writes: the kubelet controller and the stand-in operator.
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(written_by(&kube).await.as_deref(), Some("a"));
    }
    let endpoints: Api<k8s_openapi::api::core::v1::Endpoints> =
        Api::namespaced(kube.client().unwrap(), "default");
    assert!(endpoints.get_opt("kubelet").await.unwrap().is_some());

    a.shutdown.take().unwrap().send(()).unwrap();
    assert_eq!((&mut a.task).await.unwrap(), Some("stopped"));
    assert!(TcpStream::connect(a.health).await.is_err());
    let took = eventually("b takes over", Duration::from_secs(5), || async {
        written_by(&kube).await.as_deref() == Some("b")
    })
    .await;
    assert!(took < Duration::from_secs(5), "handover took {took:?}");
    assert!(
        get(b.metrics, "/metrics")
            .await
            .1
            .contains("agent_operator_leader 1\n")
    );
}

#[tokio::test]
async fn without_leader_election_the_operator_runs_at_once_and_readiness_is_its_own() {
    let kube = TestKube::start().await.unwrap();
    let config = RuntimeConfig {
        health_address: ListenAddress::parse("test", "127.0.0.1:0").unwrap(),
        ..RuntimeConfig::default()
    };
    let mut registry = Registry::default();
    let runtime = Runtime::new(config, &mut registry);
    let client = kube.client().unwrap();
    let bound = runtime
        .bind(client.clone(), Arc::new(registry))
        .await
        .unwrap();
    let [health] = bound.local_addrs()[..] else {
        panic!("one listener expected");
    };
    let (release, released) = oneshot::channel::<()>();
    let released = std::sync::Mutex::new(Some(released));
    let (shutdown, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(bound.run(
        async move {
            let _ = stopped.await;
        },
        move |term: Term| {
            let released = released_once(&released);
            async move {
                if let Some(released) = released {
                    let _ = released.await;
                }
                term.ready.set(|| true);
                term.stop.cancelled().await;
                7
            }
        },
    ));
    // Not ready until the operator says so.
    assert_eq!(get(health, "/readyz").await.0, 503);
    release.send(()).unwrap();
    eventually("ready", Duration::from_secs(5), || async {
        get(health, "/readyz").await.0 == 200
    })
    .await;
    shutdown.send(()).unwrap();
    assert_eq!(task.await.unwrap().unwrap(), Some(7));
}

/// The first term takes the receiver; a term function is `FnMut`, so it cannot move it.
fn released_once(
    slot: &std::sync::Mutex<Option<oneshot::Receiver<()>>>,
) -> Option<oneshot::Receiver<()>> {
    slot.lock().unwrap().take()
}
