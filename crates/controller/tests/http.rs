//! The metrics and health endpoints over real TCP.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use controller::http::{HttpError, HttpServers, ListenAddress, Probes};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::registry::Registry;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

async fn get(addr: SocketAddr, path: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| l.strip_prefix("content-type: "))
        .unwrap_or_default()
        .to_string();
    (status, content_type, body.to_string())
}

fn loopback() -> Option<ListenAddress> {
    ListenAddress::parse("test", "127.0.0.1:0").unwrap()
}

fn probes(ready: Arc<AtomicBool>) -> Probes {
    let mut registry = Registry::default();
    let reconciles = Counter::<u64>::default();
    registry.register(
        "agent_operator_test_reconciles",
        "test counter",
        reconciles.clone(),
    );
    reconciles.inc_by(3);
    Probes {
        registry: Arc::new(registry),
        ready: Arc::new(move || {
            if ready.load(Ordering::SeqCst) {
                Ok(())
            } else {
                Err("the watch caches have not synced yet")
            }
        }),
    }
}

#[tokio::test]
async fn metrics_and_health_on_their_own_addresses() {
    let ready = Arc::new(AtomicBool::new(false));
    let servers = HttpServers::bind(loopback(), loopback(), probes(ready.clone()))
        .await
        .unwrap();
    let [metrics, health] = servers.local_addrs()[..] else {
        panic!("two listeners expected");
    };
    let stop = CancellationToken::new();
    let serving = tokio::spawn(servers.serve(stop.clone()));

    let (status, content_type, body) = get(metrics, "/metrics").await;
    assert_eq!(status, 200);
    assert!(content_type.starts_with("application/openmetrics-text"));
    assert!(
        body.contains("agent_operator_test_reconciles_total 3\n"),
        "{body}"
    );
    assert!(body.ends_with("# EOF\n"));
    assert_eq!(get(metrics, "/healthz").await.0, 404);
    assert_eq!(get(health, "/metrics").await.0, 404);

    for path in ["/healthz", "/-/healthy"] {
        assert_eq!(get(health, path).await.0, 200);
    }
    for path in ["/readyz", "/-/ready"] {
        let (status, _, body) = get(health, path).await;
        assert_eq!(status, 503);
        assert!(body.contains("not ready"));
    }
    ready.store(true, Ordering::SeqCst);
    for path in ["/readyz", "/-/ready"] {
        assert_eq!(get(health, path).await.0, 200);
    }

    stop.cancel();
    serving.await.unwrap();
    assert!(TcpStream::connect(metrics).await.is_err());
}

#[tokio::test]
async fn one_listener_serves_everything_on_a_shared_address() {
    let first = HttpServers::bind(loopback(), None, probes(Arc::new(AtomicBool::new(true))))
        .await
        .unwrap();
    // Find a free port, release it, then ask for it twice.
    let port = first.local_addrs()[0].port();
    drop(first);
    let shared = ListenAddress::parse("test", &format!("127.0.0.1:{port}")).unwrap();
    let servers = HttpServers::bind(shared, shared, probes(Arc::new(AtomicBool::new(true))))
        .await
        .unwrap();
    let [addr] = servers.local_addrs()[..] else {
        panic!("one listener expected");
    };
    tokio::spawn(servers.serve(CancellationToken::new()));
    for path in ["/metrics", "/healthz", "/readyz"] {
        assert_eq!(get(addr, path).await.0, 200, "{path}");
    }
}

#[tokio::test]
async fn a_taken_port_names_the_flag() {
    let taken = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = ListenAddress(taken.local_addr().unwrap());
    let error = HttpServers::bind(None, Some(addr), probes(Arc::new(AtomicBool::new(true))))
        .await
        .err()
        .unwrap();
    assert!(matches!(
        error,
        HttpError::Bind {
            flag: "health-listen-address",
            ..
        }
    ));
    assert!(error.to_string().starts_with(&format!(
        "--health-listen-address: cannot listen on {}",
        addr.0
    )));
}
