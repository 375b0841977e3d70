//! Two `agent-operator run` processes with leader election, on the real control plane
//! (`testenv::backends()`): only the leader reconciles and writes; a killed leader is replaced
//! within the lease duration, a stopped one (SIGTERM, lease released) at once; the health and
//! metrics endpoints answer as documented.

mod support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use support::{Backend, Cluster, OperatorProcess, eventually};

const LEASE_SECONDS: u64 = 6;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// `GET path` on 127.0.0.1:port: status and body.
fn http_get(port: u16, path: &str) -> Result<(u16, String), String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .map_err(|e| e.to_string())?;
    let (head, body) = response
        .split_once("\r\n\r\n")
        .ok_or("no header/body separator")?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    Ok((status, body.to_string()))
}

/// The value of an unlabelled sample in a /metrics body.
fn sample(body: &str, name: &str) -> Option<f64> {
    body.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|v| v.parse().ok())
}

/// The sum of a counter's samples over its labels.
fn total(body: &str, name: &str) -> f64 {
    body.lines()
        .filter(|line| line.starts_with(name) && !line.starts_with('#'))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

struct Candidate {
    identity: &'static str,
    metrics: u16,
    health: u16,
    process: OperatorProcess,
}

impl Candidate {
    fn start(cluster: &Cluster, identity: &'static str) -> Candidate {
        let metrics = free_port();
        let health = free_port();
        let process = OperatorProcess::start(
            cluster,
            "info",
            &[
                "--leader-election",
                &format!("--leader-election-identity={identity}"),
                &format!("--leader-election-lease-duration={LEASE_SECONDS}s"),
                &format!("--metrics-listen-address=127.0.0.1:{metrics}"),
                &format!("--health-listen-address=127.0.0.1:{health}"),
                "--kubelet-service=default/kubelet",
            ],
        );
        let candidate = Candidate {
            identity,
            metrics,
            health,
            process,
        };
        eventually(
            &format!("{identity} serves /healthz"),
            Duration::from_secs(30),
            || match http_get(candidate.health, "/healthz")? {
                (200, _) => Ok(()),
                (status, body) => Err(format!("{status} {body}")),
            },
        );
        candidate
    }

    fn metrics_body(&self) -> String {
        http_get(self.metrics, "/metrics")
            .map(|(_, body)| body)
            .unwrap_or_default()
    }

    fn ready(&self) -> Result<(), String> {
        match http_get(self.health, "/readyz")? {
            (200, _) => Ok(()),
            (status, body) => Err(format!("{} /readyz: {status} {body}", self.identity)),
        }
    }
}

fn holder(cluster: &Cluster) -> Option<String> {
    let lease = cluster.get_json(&["lease", "grafana-agent-operator", "-n", "default"]);
    lease["spec"]["holderIdentity"].as_str().map(str::to_string)
}

fn wait_for_holder(cluster: &Cluster, identity: &str, timeout: Duration) -> Duration {
    let start = Instant::now();
    eventually(
        &format!("{identity} holds the lease"),
        timeout,
        || match holder(cluster) {
            Some(h) if h == identity => Ok(()),
            other => Err(format!("holder {other:?}")),
        },
    );
    start.elapsed()
}

fn kubelet_service_exists(cluster: &Cluster) -> Result<(), String> {
    let out = cluster.kubectl(&["get", "services", "-n", "default", "-o", "name"]);
    out.lines()
        .any(|l| l == "service/kubelet")
        .then_some(())
        .ok_or_else(|| format!("services: {out}"))
}

fn config_secret_exists(cluster: &Cluster) -> Result<(), String> {
    let out = cluster.kubectl(&["get", "secrets", "-n", "monitoring", "-o", "name"]);
    out.lines()
        .any(|l| l == "secret/agent-config")
        .then_some(())
        .ok_or_else(|| format!("secrets: {out}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_leader_writes_and_a_standby_takes_over() {
    for backend in testenv::backends() {
        scenario_only_the_leader_writes_and_a_standby_takes_over(backend).await;
    }
}

async fn scenario_only_the_leader_writes_and_a_standby_takes_over(backend: Backend) {
    let cluster = Cluster::start(backend, "leader-election").await;
    let a = Candidate::start(&cluster, "op-a");
    wait_for_holder(&cluster, "op-a", Duration::from_secs(30));
    let b = Candidate::start(&cluster, "op-b");

    cluster.kubectl(&["apply", "-f", "examples/"]);
    eventually(
        "the leader writes the agent's config",
        Duration::from_secs(60),
        || config_secret_exists(&cluster),
    );
    // The standby is ready: waiting is its job. The leader is ready once every watch cache
    // has synced (it once never was: kube-runtime wakes only one waiter per store).
    eventually("the standby is ready", Duration::from_secs(30), || {
        b.ready()
    });
    eventually("the leader is ready", Duration::from_secs(30), || a.ready());
    eventually("the kubelet Service", Duration::from_secs(10), || {
        kubelet_service_exists(&cluster)
    });

    // Only the leader reconciles: the standby's counters stay at zero.
    let leader = a.metrics_body();
    let standby = b.metrics_body();
    assert_eq!(
        sample(&leader, "agent_operator_leader"),
        Some(1.0),
        "{leader}"
    );
    assert_eq!(
        sample(&standby, "agent_operator_leader"),
        Some(0.0),
        "{standby}"
    );
    assert!(total(&leader, "agent_operator_reconcile_operations_total") > 0.0);
    assert_eq!(
        total(&standby, "agent_operator_reconcile_operations_total"),
        0.0
    );
    assert_eq!(total(&standby, "agent_operator_kubelet_endpoints"), 0.0);
    assert_eq!(holder(&cluster).as_deref(), Some("op-a"));

    // SIGKILL: no release; b takes over once the lease expires.
    drop(a);
    let took = wait_for_holder(&cluster, "op-b", Duration::from_secs(LEASE_SECONDS + 10));
    assert!(
        took <= Duration::from_secs(LEASE_SECONDS + 4),
        "takeover after SIGKILL took {took:?}"
    );
    eventually("b leads", Duration::from_secs(10), || {
        match sample(&b.metrics_body(), "agent_operator_leader") {
            Some(1.0) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    });
    // And b writes: a deleted kubelet Service and a deleted config Secret come back.
    cluster.kubectl(&["delete", "service", "kubelet", "-n", "default"]);
    cluster.kubectl(&["delete", "secret", "agent-config", "-n", "monitoring"]);
    eventually("b restores them", Duration::from_secs(30), || {
        kubelet_service_exists(&cluster)?;
        config_secret_exists(&cluster)
    });

    // SIGTERM: b releases the lease and a new standby takes over long before it would expire.
    let c = Candidate::start(&cluster, "op-c");
    let stopping = Instant::now();
    let log = b.process.stop();
    assert!(log.contains("released the lease"), "{log}");
    wait_for_holder(&cluster, "op-c", Duration::from_secs(LEASE_SECONDS + 10));
    let took = stopping.elapsed();
    assert!(
        took < Duration::from_secs(LEASE_SECONDS - 2),
        "takeover after SIGTERM took {took:?}"
    );
    eventually("c leads", Duration::from_secs(30), || {
        match sample(&c.metrics_body(), "agent_operator_leader") {
            Some(1.0) => Ok(()),
            other => Err(format!("leader gauge {other:?}")),
        }
    });
}

/// One agent's inputs in `ns`, its ServiceMonitor scraped at `interval`.
fn agent_inputs(ns: &str, interval: &str) -> String {
    format!(
        r#"apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {{name: agent, namespace: {ns}}}
spec:
  metrics:
    instanceSelector: {{matchLabels: {{agent: agent}}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: primary, namespace: {ns}, labels: {{agent: agent}}}}
spec:
  remoteWrite: [{{url: 'https://mimir.example.com/api/v1/push'}}]
  serviceMonitorSelector: {{matchLabels: {{instance: primary}}}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {{name: web, namespace: {ns}, labels: {{instance: primary}}}}
spec:
  selector: {{matchLabels: {{app: web}}}}
  endpoints: [{{port: http, interval: {interval}}}]
"#
    )
}

/// A candidate of an election of its own (the Lease `default/<ns>`) reconciling only `ns`,
/// talking to the API server through `kubeconfig`. Its metrics are on the port it logs (the
/// log file is named after the flags, which leave no room for another).
fn candidate_in(
    cluster: &Cluster,
    ns: &str,
    identity: &'static str,
    kubeconfig: &std::path::Path,
) -> Candidate {
    let health = free_port();
    let process = OperatorProcess::start_with(
        cluster,
        kubeconfig,
        "debug",
        &[
            "--leader-election",
            &format!("--leader-election-lease-name={ns}"),
            &format!("--leader-election-identity={identity}"),
            &format!("--leader-election-lease-duration={LEASE_SECONDS}s"),
            &format!("--health-listen-address=127.0.0.1:{health}"),
            &format!("--namespace={ns}"),
        ],
    );
    Candidate {
        identity,
        metrics: 0,
        health,
        process,
    }
}

/// The holder of the Lease `default/<ns>`, if it exists and is held.
fn holder_in(cluster: &Cluster, ns: &str) -> Option<String> {
    let holder = cluster.kubectl(&[
        "get",
        "lease",
        ns,
        "-n",
        "default",
        "--ignore-not-found",
        "-o",
        "jsonpath={.spec.holderIdentity}",
    ]);
    Some(holder.trim().to_string()).filter(|h| !h.is_empty())
}

/// Waits until the agent's config scrapes at `interval`: someone reconciles.
fn config_follows(cluster: &Cluster, ns: &str, interval: &str, timeout: Duration) {
    eventually(
        &format!("the config scrapes every {interval}"),
        timeout,
        || {
            let config = cluster.config_text(ns, "agent-config");
            if config.contains(&format!("scrape_interval: '{interval}'")) {
                Ok(())
            } else {
                Err(config)
            }
        },
    );
}

/// Issue 38, item 5. The leader talks to the API server through `testenv::Proxy`, the standby
/// directly. A leader whose Lease watch stalls without closing kept renewing the Lease yet
/// stopped reconciling (for ~5 min, until kube-runtime gave up on the watch): now it looks at
/// the Lease through a new watch when a renewal does not show, and keeps leading. A leader
/// that cannot see its Lease at all (the new watch's list held up too) stops renewing it and
/// gives it up, and the standby takes over at once.
async fn scenario_a_stalled_lease_watch(backend: Backend) {
    let cluster = Cluster::start(backend, "lease-stall").await;
    let ns = cluster
        .env
        .create_namespace("lease-stall")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let proxy = cluster.env.proxy().await.unwrap_or_else(|e| panic!("{e}"));
    let a = candidate_in(&cluster, &ns, "stall-a", proxy.kubeconfig());
    eventually(
        "stall-a leads",
        Duration::from_secs(30),
        || match holder_in(&cluster, &ns) {
            Some(h) if h == "stall-a" => Ok(()),
            other => Err(format!("holder {other:?}")),
        },
    );
    let b = candidate_in(&cluster, &ns, "stall-b", cluster.kubeconfig.as_path());
    cluster.apply(&agent_inputs(&ns, "11s"));
    config_follows(&cluster, &ns, "11s", Duration::from_secs(60));

    // The leader's Lease watch goes silent; three lease durations later it still leads, and
    // reconciles.
    proxy.stall_watches("leases");
    std::thread::sleep(Duration::from_secs(3 * LEASE_SECONDS));
    assert_eq!(holder_in(&cluster, &ns).as_deref(), Some("stall-a"));
    assert_eq!(a.process.metric("agent_operator_leader"), 1.0);
    cluster.apply(&agent_inputs(&ns, "13s"));
    config_follows(&cluster, &ns, "13s", Duration::from_secs(10));
    a.ready().unwrap_or_else(|e| panic!("{e}"));
    b.ready().unwrap_or_else(|e| panic!("{e}"));

    // Now it cannot see the Lease at all: its watch stalls again and lists of Leases hang.
    // It gives the Lease up within a renewal period and the margin, and the standby leads.
    proxy.delay("list", "leases", Duration::from_secs(600));
    proxy.stall_watches("leases");
    let blinded = Instant::now();
    eventually(
        "stall-b takes over",
        Duration::from_secs(3 * LEASE_SECONDS),
        || match holder_in(&cluster, &ns) {
            Some(h) if h == "stall-b" => Ok(()),
            other => Err(format!("holder {other:?}")),
        },
    );
    let took = blinded.elapsed();
    assert!(
        took <= Duration::from_secs(LEASE_SECONDS + 2),
        "the standby took over after {took:?}"
    );
    cluster.apply(&agent_inputs(&ns, "17s"));
    config_follows(&cluster, &ns, "17s", Duration::from_secs(30));
    assert_eq!(a.process.metric("agent_operator_leader"), 0.0);
    assert_eq!(holder_in(&cluster, &ns).as_deref(), Some("stall-b"));
    // Neither holds the Lease without leading: both are ready.
    eventually("both ready", Duration::from_secs(30), || {
        a.ready()?;
        b.ready()
    });
    let log = a.process.stop();
    assert!(log.contains("gave up the lease"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_lease_watch_neither_stops_reconciling_nor_keeps_the_standby_out() {
    for backend in testenv::backends() {
        scenario_a_stalled_lease_watch(backend).await;
    }
}
