//! `spec.alloy.clustering` on the real Alloy (issue 34 item 3): the operator's clustered
//! metrics config and its pods' flags, run as Alloy processes on this host. A test HTTP server
//! is the prober of a Probe with many static targets and the remote_write endpoint (which
//! decodes what it receives). Shown through Alloy's own HTTP API (`/api/v0/web/peers` and the
//! `prometheus.scrape` component's debug info):
//!
//! * one replica, three processes forming one cluster: with two instances every target is
//!   scraped by exactly one of them; after a third joins, every target is still scraped exactly
//!   once, and the targets that moved all moved to the newcomer, about a third of them; after
//!   one is killed, its targets, and only those, go to the two left. The config each process
//!   runs is the same text whatever the instance count;
//! * two replicas, two clusters of two processes: each cluster scrapes every target exactly
//!   once, each process sees only its own cluster's peers even when told the other cluster's
//!   address too, and the samples the remote_write endpoint receives carry `replica-0` and
//!   `replica-1`, each for every target.
//!
//! On a host, unlike a pod, the processes share one address: each gets its own port, storage
//! path and node name, advertises `127.0.0.1:<port>`, and joins another process instead of the
//! headless Service's name. Every other flag is the StatefulSet's.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use render::desired::{DesiredObject, Subsystem};
use render::loader_variables::{CLUSTER_REPLICA, substitute};
use render::plan::Plan;
use render::workloads::pod_template::{AGENT_CONTAINER, CONFIG_FILE, LOADER_INIT_CONTAINER};
use serde_json::Value;
use support::alloy_run::{alloy_binary, free_port};

/// Enough targets that a third of them is a count with little noise.
const TARGETS: usize = 60;
const SCRAPE: &str = "prometheus.scrape.metrics_monitoring_primary_probe_monitoring_site";

/// A clustered agent with `shards` instances in each of its `replicas` clusters, whose Probe
/// asks the test server (`server`) to probe [`TARGETS`] static targets, and which writes to
/// the same server.
fn input(server: u16, shards: u32, replicas: u32) -> String {
    let targets: Vec<String> = (0..TARGETS).map(|i| format!("t{i:02}")).collect();
    format!(
        r#"apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata:
  name: clustered
  namespace: monitoring
  uid: 34343434-3434-4434-8434-343434343436
spec:
  runtime: alloy
  alloy:
    configFormat: native
    clustering:
      enabled: true
  disableReporting: true
  metrics:
    shards: {shards}
    replicas: {replicas}
    scrapeInterval: 2s
    instanceSelector: {{}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata:
  name: primary
  namespace: monitoring
spec:
  remoteWrite:
  - url: http://127.0.0.1:{server}/api/v1/write
  probeSelector: {{}}
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata:
  name: site
  namespace: monitoring
spec:
  prober:
    url: 127.0.0.1:{server}
  module: http_2xx
  targets:
    staticConfig:
      static: [{}]
"#,
        targets.join(", ")
    )
}

fn plan_of(input: &str) -> Plan {
    let mut loader = render::manifest::Loader::new();
    loader.add_source("input.yaml", input);
    let store = loader.finish().store;
    let mut plans = render::output::plan_all(&store, &Default::default(), None).into_iter();
    let plan = plans.next().expect("one agent");
    assert!(plan.rejections.is_empty(), "{:?}", plan.rejections);
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    plan
}

/// One Alloy cluster of the plan: its StatefulSet's name, the Alloy container's arguments and
/// the config loader's environment (plain values only; `POD_NAME` is the pod's).
struct PlannedCluster {
    statefulset: String,
    args: Vec<String>,
    loader_env: BTreeMap<String, String>,
}

impl PlannedCluster {
    /// What the config loader writes in the pod of this cluster with `ordinal`.
    fn config(&self, text: &str, ordinal: usize) -> String {
        let mut env = self.loader_env.clone();
        env.insert(
            "POD_NAME".to_owned(),
            format!("{}-{ordinal}", self.statefulset),
        );
        substitute(text, &env).expect("the loader writes the config")
    }
}

/// The metrics config text (before the loader's substitution) and the metrics StatefulSets,
/// one per cluster.
fn rendered(plan: &Plan) -> (String, Vec<PlannedCluster>) {
    let config = plan
        .configs
        .iter()
        .find(|c| c.subsystem == Subsystem::Metrics)
        .expect("a metrics config");
    assert!(config.alloy_syntax, "the clustered config is native");
    let clusters = plan
        .objects
        .iter()
        .filter_map(|o| match &o.object {
            DesiredObject::StatefulSet(s) => Some(s),
            _ => None,
        })
        .map(|s| {
            let pod = s
                .spec
                .as_ref()
                .and_then(|s| s.template.spec.as_ref())
                .expect("a pod template");
            let args = pod
                .containers
                .iter()
                .find(|c| c.name == AGENT_CONTAINER)
                .and_then(|c| c.args.clone())
                .expect("the Alloy container's arguments");
            let loader_env = pod
                .init_containers
                .iter()
                .flatten()
                .find(|c| c.name == LOADER_INIT_CONTAINER)
                .and_then(|c| c.env.clone())
                .into_iter()
                .flatten()
                .filter_map(|e| Some((e.name, e.value?)))
                .collect();
            PlannedCluster {
                statefulset: s.metadata.name.clone().expect("a name"),
                args,
                loader_env,
            }
        })
        .collect();
    (config.text.as_str().to_owned(), clusters)
}

/// What the remote_write endpoint received: per series, its `__replica__` label and its
/// `instance` label (the Probe's target), for the `probe_success` series.
type Received = Arc<Mutex<BTreeSet<(String, String)>>>;

/// Answers the prober's `/probe?target=...` with one sample, and records what the
/// remote_write endpoint (`POST /api/v1/write`) receives in `received`.
fn serve(listener: TcpListener, received: Received) {
    for stream in listener.incoming().flatten() {
        let received = received.clone();
        std::thread::spawn(move || answer(stream, &received));
    }
}

fn answer(mut stream: TcpStream, received: &Received) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut request = Vec::new();
    let mut buffer = [0u8; 4096];
    let header_end = loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
        if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&request[..header_end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while request.len() < header_end + length {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    }
    if head.starts_with("post /api/v1/write ") {
        let series = remote_write::decode(&request[header_end..])
            .unwrap_or_else(|e| panic!("a remote_write request the test cannot read: {e}"));
        let mut received = received.lock().unwrap_or_else(|p| p.into_inner());
        for labels in series {
            if labels.get("__name__").map(String::as_str) == Some("probe_success") {
                let label = |name: &str| labels.get(name).cloned().unwrap_or_default();
                received.insert((label("__replica__"), label("instance")));
            }
        }
    }
    let body = "probe_success 1\n";
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// An Alloy process, stopped when dropped.
struct Instance {
    name: String,
    port: u16,
    child: Child,
    log: PathBuf,
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Instance {
    /// Runs Alloy named `name` (its pod's) on `config` with the StatefulSet's `args`, the
    /// host-specific ones replaced: it joins the instances listening on `join`.
    fn start(
        alloy: &Path,
        args: &[String],
        config: &Path,
        dir: &Path,
        name: String,
        join: &[u16],
    ) -> Instance {
        let port = free_port();
        let storage = dir.join(&name);
        std::fs::create_dir_all(&storage).expect("storage dir");
        let mut run: Vec<String> = args
            .iter()
            .map(|a| {
                if a == CONFIG_FILE {
                    config.display().to_string()
                } else if a.starts_with("--server.http.listen-addr=") {
                    format!("--server.http.listen-addr=127.0.0.1:{port}")
                } else if a.starts_with("--storage.path=") {
                    format!("--storage.path={}", storage.display())
                } else if a.starts_with("--cluster.join-addresses=") {
                    let addresses: Vec<String> =
                        join.iter().map(|p| format!("127.0.0.1:{p}")).collect();
                    format!("--cluster.join-addresses={}", addresses.join(","))
                } else {
                    a.clone()
                }
            })
            .collect();
        run.extend([
            format!("--cluster.advertise-address=127.0.0.1:{port}"),
            format!("--cluster.node-name={name}"),
        ]);
        let log = dir.join(format!("{name}.log"));
        let child = Command::new(alloy)
            .args(&run)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", alloy.display()));
        let instance = Instance {
            name,
            port,
            child,
            log,
        };
        instance.wait_for("ready", Duration::from_secs(60), |i| {
            get(i.port, "/-/ready").is_some()
        });
        instance
    }

    fn wait_for(&self, what: &str, limit: Duration, done: impl Fn(&Instance) -> bool) {
        let deadline = Instant::now() + limit;
        while !done(self) {
            assert!(
                Instant::now() < deadline,
                "{} not {what} within {limit:?}; its log:\n{}",
                self.name,
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// The names of the cluster's participants as this instance sees them.
    fn peers(&self) -> BTreeSet<String> {
        let Some(body) = get(self.port, "/api/v0/web/peers") else {
            return BTreeSet::new();
        };
        let peers: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        peers
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["state"] == "participant")
            .filter_map(|p| p["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// The targets (their `instance` label) the Probe's scrape component of this instance
    /// holds, with whether the last scrape of each succeeded.
    fn targets(&self) -> BTreeMap<String, bool> {
        let Some(body) = get(self.port, &format!("/api/v0/web/components/{SCRAPE}")) else {
            return BTreeMap::new();
        };
        let component: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        let mut out = BTreeMap::new();
        for target in component["debugInfo"].as_array().into_iter().flatten() {
            let attribute = |name: &str| {
                target["body"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|a| a["name"] == name)
                    .map(|a| a["value"].clone())
                    .unwrap_or(Value::Null)
            };
            let instance = attribute("labels")["value"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|l| l["key"] == "instance")
                .and_then(|l| l["value"]["value"].as_str().map(str::to_owned));
            if let Some(instance) = instance {
                out.insert(instance, attribute("health")["value"] == "up");
            }
        }
        out
    }
}

/// The body of `GET <path>` answered 200 by the server on `port`.
fn get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    (head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200")).then(|| body.to_owned())
}

/// Which instance scrapes each target, once every instance sees all of them in the cluster,
/// every target is held by exactly one instance and each of those has been scraped: `None`
/// until then.
fn owners(instances: &[&Instance]) -> Option<BTreeMap<String, String>> {
    let names: BTreeSet<String> = instances.iter().map(|i| i.name.clone()).collect();
    if instances.iter().any(|i| i.peers() != names) {
        return None;
    }
    let mut owners = BTreeMap::new();
    for instance in instances {
        for (target, up) in instance.targets() {
            if !up || owners.insert(target, instance.name.clone()).is_some() {
                return None;
            }
        }
    }
    (owners.len() == TARGETS).then_some(owners)
}

/// [`owners`] once it has stayed the same for a few scrape intervals (the ring settles after
/// a join), or a failure naming what was last seen.
fn settled_owners(instances: &[&Instance]) -> BTreeMap<String, String> {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut last: Option<(BTreeMap<String, String>, Instant)> = None;
    loop {
        let now = owners(instances);
        match (&now, &last) {
            (Some(o), Some((seen, since))) if o == seen => {
                if since.elapsed() > Duration::from_secs(6) {
                    return o.clone();
                }
            }
            (Some(o), _) => last = Some((o.clone(), Instant::now())),
            (None, _) => last = None,
        }
        if Instant::now() > deadline {
            let seen: Vec<String> = instances
                .iter()
                .map(|i| {
                    format!(
                        "{}: peers {:?}, targets {:?}",
                        i.name,
                        i.peers(),
                        i.targets()
                    )
                })
                .collect();
            panic!(
                "the targets were never each scraped by exactly one instance:\n{}",
                seen.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn a_cluster_scrapes_every_target_once_and_a_new_instance_takes_about_its_share() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a test server");
    let server = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || serve(listener, Received::default()));

    let (config, clusters) = rendered(&plan_of(&input(server, 2, 1)));
    let (config_for_three, clusters_for_three) = rendered(&plan_of(&input(server, 3, 1)));
    assert_eq!(clusters.len(), 1, "one StatefulSet for the cluster");
    let (args, args_for_three) = (&clusters[0].args, &clusters_for_three[0].args);
    assert_eq!(
        config, config_for_three,
        "the config does not depend on the count"
    );
    assert_eq!(args, args_for_three, "nor do the pods' flags");
    assert!(
        args.contains(&"--cluster.enabled=true".to_owned()),
        "{args:?}"
    );
    assert!(config.contains("clustering {"), "{config}");

    // What the config loader writes in every pod: each pod is shard 0 of 1, so one text.
    let text = clusters[0].config(&config, 0);
    assert_eq!(
        clusters[0].config(&config, 2),
        text,
        "every pod of the cluster runs the same config"
    );
    assert!(text.contains(r#"__replica__ = "replica-0""#), "{text}");

    let dir = support::configs::scratch_dir("alloy-clustering", "cluster");
    let file = dir.join("config.alloy");
    std::fs::write(&file, &text).expect("config file");
    let alloy = alloy_binary();

    let name = |ordinal: usize| format!("clustered-{ordinal}");
    let first = Instance::start(&alloy, args, &file, &dir, name(0), &[]);
    let second = Instance::start(&alloy, args, &file, &dir, name(1), &[first.port]);
    let before = settled_owners(&[&first, &second]);
    let per_instance = |owners: &BTreeMap<String, String>, name: &str| {
        owners.values().filter(|o| *o == name).count()
    };
    assert!(
        per_instance(&before, &first.name) > 0 && per_instance(&before, &second.name) > 0,
        "both instances scrape: {before:?}"
    );

    let third = Instance::start(&alloy, args, &file, &dir, name(2), &[first.port]);
    let after = settled_owners(&[&first, &second, &third]);
    let moved: Vec<&String> = before
        .keys()
        .filter(|target| before.get(*target) != after.get(*target))
        .collect();
    assert!(
        moved.iter().all(|target| after[*target] == third.name),
        "targets moved only to the new instance: before {before:?}, after {after:?}"
    );
    // A third is 20 of 60; the ring's placement is a hash, so allow for its spread.
    let expected = TARGETS / 3;
    assert!(
        (expected * 2 / 5..=expected * 8 / 5).contains(&moved.len()),
        "about 1/3 of the targets move to the third instance: {} of {TARGETS} moved",
        moved.len()
    );
    eprintln!(
        "2 instances: {} + {} targets; 3 instances: {} + {} + {}; moved {} of {TARGETS}",
        per_instance(&before, &first.name),
        per_instance(&before, &second.name),
        per_instance(&after, &first.name),
        per_instance(&after, &second.name),
        per_instance(&after, &third.name),
        moved.len()
    );

    // A pod killed outright (no leave message): once the others see it gone, its targets
    // are shared between them and theirs stay where they were.
    let killed = second.name.clone();
    drop(second);
    let survivors = settled_owners(&[&first, &third]);
    let reassigned: Vec<&String> = after
        .keys()
        .filter(|target| after.get(*target) != survivors.get(*target))
        .collect();
    assert!(
        reassigned.iter().all(|target| after[*target] == killed),
        "only the killed instance's targets move: before {after:?}, after {survivors:?}"
    );
    assert_eq!(
        reassigned.len(),
        per_instance(&after, &killed),
        "every target of the killed instance is scraped by a survivor"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_replicas_are_two_clusters_that_each_scrape_every_target_once_and_never_merge() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a test server");
    let server = listener.local_addr().expect("its address").port();
    let received = Received::default();
    let serving = received.clone();
    std::thread::spawn(move || serve(listener, serving));

    let (config, clusters) = rendered(&plan_of(&input(server, 2, 2)));
    let names: Vec<&str> = clusters.iter().map(|c| c.statefulset.as_str()).collect();
    assert_eq!(names, ["clustered", "clustered-replica-1"]);
    // The clusters' flags differ only in where the peers are found and the cluster's name.
    let own = |args: &[String]| -> Vec<String> {
        args.iter()
            .filter(|a| {
                a.starts_with("--cluster.join-addresses=") || a.starts_with("--cluster.name=")
            })
            .cloned()
            .collect()
    };
    assert_eq!(
        own(&clusters[0].args),
        [
            "--cluster.join-addresses=clustered-replica-0.monitoring.svc:8080",
            "--cluster.name=monitoring/clustered/replica-0"
        ]
    );
    assert_eq!(
        own(&clusters[1].args),
        [
            "--cluster.join-addresses=clustered-replica-1.monitoring.svc:8080",
            "--cluster.name=monitoring/clustered/replica-1"
        ]
    );
    let shared = |args: &[String]| -> Vec<String> {
        let own = own(args);
        args.iter().filter(|a| !own.contains(a)).cloned().collect()
    };
    assert_eq!(shared(&clusters[0].args), shared(&clusters[1].args));

    // One config Secret; each cluster's loader writes its own replica label, the same in
    // every pod of the cluster.
    let texts: Vec<String> = clusters.iter().map(|c| c.config(&config, 0)).collect();
    for (replica, (cluster, text)) in clusters.iter().zip(&texts).enumerate() {
        assert_eq!(
            cluster.loader_env.get(CLUSTER_REPLICA),
            Some(&replica.to_string())
        );
        assert_eq!(&cluster.config(&config, 1), text, "{}", cluster.statefulset);
        let label = format!(r#"__replica__ = "replica-{replica}""#);
        assert!(text.contains(&label), "{text}");
    }
    assert_eq!(
        texts[0].replace("replica-0", "replica-1"),
        texts[1],
        "the clusters' configs differ only in the replica label"
    );

    let dir = support::configs::scratch_dir("alloy-clustering", "replicas");
    let alloy = alloy_binary();
    let files: Vec<PathBuf> = clusters
        .iter()
        .zip(&texts)
        .map(|(cluster, text)| {
            let file = dir.join(format!("{}.alloy", cluster.statefulset));
            std::fs::write(&file, text).expect("config file");
            file
        })
        .collect();
    let start = |cluster: usize, ordinal: usize, join: &[u16]| {
        let c = &clusters[cluster];
        let name = format!("{}-{ordinal}", c.statefulset);
        Instance::start(&alloy, &c.args, &files[cluster], &dir, name, join)
    };
    let a0 = start(0, 0, &[]);
    let a1 = start(0, 1, &[a0.port]);
    // The second cluster's pods are told the first cluster's addresses (its first pod only
    // those), as when an address that was a peer's now belongs to another cluster's pod: the
    // cluster names keep them apart.
    let b0 = start(1, 0, &[a0.port]);
    let b1 = start(1, 1, &[b0.port, a1.port]);

    // `settled_owners` requires every instance to see exactly the given peers.
    let first = settled_owners(&[&a0, &a1]);
    let second = settled_owners(&[&b0, &b1]);
    for (cluster, owners) in [(&[&a0, &a1], &first), (&[&b0, &b1], &second)] {
        assert_eq!(owners.len(), TARGETS);
        for instance in cluster {
            assert!(
                owners.values().any(|o| *o == instance.name),
                "{} scrapes some of the targets: {owners:?}",
                instance.name
            );
        }
    }
    for instance in [&a0, &a1, &b0, &b1] {
        let peers = instance.peers();
        let same_cluster = |p: &String| {
            p.strip_suffix(|c: char| c.is_ascii_digit())
                == instance.name.strip_suffix(|c: char| c.is_ascii_digit())
        };
        assert!(
            peers.iter().all(same_cluster),
            "{}: {peers:?}",
            instance.name
        );
    }

    // Every target's samples arrive from both clusters, told apart by `__replica__`.
    let targets: BTreeSet<String> = (0..TARGETS).map(|i| format!("t{i:02}")).collect();
    let expected: BTreeSet<(String, String)> = ["replica-0", "replica-1"]
        .into_iter()
        .flat_map(|r| targets.iter().map(move |t| (r.to_owned(), t.clone())))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = received.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if seen == expected {
            break;
        }
        assert!(
            seen.is_subset(&expected) && Instant::now() < deadline,
            "the samples received are not every target once per replica label: \
             missing {:?}, unexpected {:?}",
            expected.difference(&seen).collect::<Vec<_>>(),
            seen.difference(&expected).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    eprintln!(
        "replica-0: {} + {} targets; replica-1: {} + {}; {} (replica, target) pairs of probe_success received",
        first.values().filter(|o| **o == a0.name).count(),
        first.values().filter(|o| **o == a1.name).count(),
        second.values().filter(|o| **o == b0.name).count(),
        second.values().filter(|o| **o == b1.name).count(),
        expected.len()
    );
    drop((a0, a1, b0, b1));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Prometheus remote write 1.0 as Alloy sends it: a snappy-compressed (block format)
/// `prometheus.WriteRequest` protobuf. Only what the test reads: each series' labels.
mod remote_write {
    use std::collections::BTreeMap;

    /// The label sets of the series of one request body.
    pub fn decode(body: &[u8]) -> Result<Vec<BTreeMap<String, String>>, String> {
        let message = snappy_block(body)?;
        let mut series = Vec::new();
        for (field, value) in fields(&message)? {
            // WriteRequest.timeseries = 1
            if let (1, Value::Bytes(ts)) = (field, value) {
                let mut labels = BTreeMap::new();
                for (field, value) in fields(ts)? {
                    // TimeSeries.labels = 1, Label.name = 1, Label.value = 2
                    if let (1, Value::Bytes(label)) = (field, value) {
                        let (mut name, mut text) = (String::new(), String::new());
                        for (field, value) in fields(label)? {
                            match (field, value) {
                                (1, Value::Bytes(b)) => name = utf8(b)?,
                                (2, Value::Bytes(b)) => text = utf8(b)?,
                                _ => {}
                            }
                        }
                        labels.insert(name, text);
                    }
                }
                series.push(labels);
            }
        }
        Ok(series)
    }

    fn utf8(bytes: &[u8]) -> Result<String, String> {
        String::from_utf8(bytes.to_vec()).map_err(|e| format!("label text: {e}"))
    }

    enum Value<'a> {
        Number,
        Bytes(&'a [u8]),
    }

    fn varint(data: &[u8], at: &mut usize) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *data.get(*at).ok_or("a varint runs past the end")?;
            *at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a varint longer than 10 bytes".to_owned())
    }

    /// The fields of one protobuf message, by number, in order.
    fn fields(data: &[u8]) -> Result<Vec<(u64, Value<'_>)>, String> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < data.len() {
            let key = varint(data, &mut at)?;
            let value = match key & 7 {
                0 => {
                    varint(data, &mut at)?;
                    Value::Number
                }
                1 | 5 => {
                    at += if key & 7 == 1 { 8 } else { 4 };
                    Value::Number
                }
                2 => {
                    let length = usize::try_from(varint(data, &mut at)?)
                        .map_err(|_| "a length beyond memory")?;
                    let bytes = data
                        .get(at..at + length)
                        .ok_or("a length-delimited field runs past the end")?;
                    at += length;
                    Value::Bytes(bytes)
                }
                other => return Err(format!("wire type {other}")),
            };
            out.push((key >> 3, value));
        }
        Ok(out)
    }

    /// Snappy's block format: the uncompressed length, then literals and back-references.
    fn snappy_block(data: &[u8]) -> Result<Vec<u8>, String> {
        let mut at = 0;
        let length = usize::try_from(varint(data, &mut at)?).map_err(|_| "too long")?;
        let mut out: Vec<u8> = Vec::with_capacity(length);
        let take = |at: &mut usize, n: usize| -> Result<u64, String> {
            let bytes = data
                .get(*at..*at + n)
                .ok_or("an element runs past the end")?;
            *at += n;
            Ok(bytes
                .iter()
                .rev()
                .fold(0u64, |value, b| (value << 8) | u64::from(*b)))
        };
        while at < data.len() {
            let tag = data[at];
            at += 1;
            let (copy_length, offset) = match tag & 3 {
                0 => {
                    let short = usize::from(tag >> 2);
                    let literal = if short < 60 {
                        short + 1
                    } else {
                        take(&mut at, short - 59)? as usize + 1
                    };
                    let bytes = data
                        .get(at..at + literal)
                        .ok_or("a literal runs past the end")?;
                    out.extend_from_slice(bytes);
                    at += literal;
                    continue;
                }
                1 => (
                    usize::from((tag >> 2) & 7) + 4,
                    (usize::from(tag >> 5) << 8) | take(&mut at, 1)? as usize,
                ),
                2 => (usize::from(tag >> 2) + 1, take(&mut at, 2)? as usize),
                _ => (usize::from(tag >> 2) + 1, take(&mut at, 4)? as usize),
            };
            if offset == 0 || offset > out.len() {
                return Err(format!("a copy from offset {offset} of {}", out.len()));
            }
            // Byte by byte: a copy may overlap what it writes.
            let from = out.len() - offset;
            for i in 0..copy_length {
                out.push(out[from + i]);
            }
        }
        if out.len() == length {
            Ok(out)
        } else {
            Err(format!("{} bytes decoded, {length} announced", out.len()))
        }
    }
}
