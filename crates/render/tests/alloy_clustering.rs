//! `spec.alloy.clustering` on the real Alloy (issue 34 item 3): the operator's clustered
//! metrics config and its pods' flags, run as three Alloy processes on this host that form one
//! cluster. A test HTTP server is the prober of a Probe with many static targets and the
//! remote_write endpoint. Shown through Alloy's own HTTP API (`/api/v0/web/peers` and the
//! `prometheus.scrape` component's debug info): with two instances every target is scraped by
//! exactly one of them; after a third joins, every target is still scraped exactly once, and the
//! targets that moved all moved to the newcomer, about a third of them; after one is killed,
//! its targets, and only those, go to the two left. The config each process runs is the same
//! text whatever the instance count.
//!
//! On a host, unlike a pod, the processes share one address: each gets its own port, storage
//! path and node name, advertises `127.0.0.1:<port>`, and joins the first one instead of the
//! headless Service's name. Every other flag is the StatefulSet's.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use render::desired::{DesiredObject, Subsystem};
use render::plan::Plan;
use render::workloads::pod_template::{AGENT_CONTAINER, CONFIG_FILE};
use serde_json::Value;
use support::alloy_run::{alloy_binary, free_port};

/// Enough targets that a third of them is a count with little noise.
const TARGETS: usize = 60;
const SCRAPE: &str = "prometheus.scrape.metrics_monitoring_primary_probe_monitoring_site";

/// A clustered agent with `shards` instances whose Probe asks the test server (`server`) to
/// probe [`TARGETS`] static targets, and which writes to the same server.
fn input(server: u16, shards: u32) -> String {
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

/// The metrics config text (before the loader's substitution) and the Alloy container's
/// arguments of the one metrics StatefulSet.
fn rendered(plan: &Plan) -> (String, Vec<String>) {
    let config = plan
        .configs
        .iter()
        .find(|c| c.subsystem == Subsystem::Metrics)
        .expect("a metrics config");
    assert!(config.alloy_syntax, "the clustered config is native");
    let statefulsets: Vec<_> = plan
        .objects
        .iter()
        .filter_map(|o| match &o.object {
            DesiredObject::StatefulSet(s) => s.spec.as_ref(),
            _ => None,
        })
        .collect();
    assert_eq!(statefulsets.len(), 1, "one StatefulSet for the cluster");
    let args = statefulsets[0]
        .template
        .spec
        .iter()
        .flat_map(|p| &p.containers)
        .find(|c| c.name == AGENT_CONTAINER)
        .and_then(|c| c.args.clone())
        .expect("the Alloy container's arguments");
    (config.text.as_str().to_owned(), args)
}

/// Answers every request with one sample: the prober's `/probe?target=...` and the
/// remote_write endpoint alike.
fn serve(listener: TcpListener) {
    for stream in listener.incoming().flatten() {
        std::thread::spawn(move || answer(stream));
    }
}

fn answer(mut stream: TcpStream) {
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
    /// Runs Alloy on `config` with the StatefulSet's `args`, the host-specific ones replaced.
    fn start(
        alloy: &Path,
        args: &[String],
        config: &Path,
        dir: &Path,
        ordinal: usize,
        join: Option<u16>,
    ) -> Instance {
        let name = format!("clustered-{ordinal}");
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
                    format!(
                        "--cluster.join-addresses={}",
                        join.map(|p| format!("127.0.0.1:{p}")).unwrap_or_default()
                    )
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
    std::thread::spawn(move || serve(listener));

    let (config, args) = rendered(&plan_of(&input(server, 2)));
    let (config_for_three, args_for_three) = rendered(&plan_of(&input(server, 3)));
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
    let env = |ordinal: usize| {
        BTreeMap::from([
            ("POD_NAME".to_owned(), format!("clustered-{ordinal}")),
            ("SHARD".to_owned(), "0".to_owned()),
            ("SHARDS".to_owned(), "1".to_owned()),
        ])
    };
    let text = render::loader_variables::substitute(&config, &env(0)).expect("substituted");
    assert_eq!(
        render::loader_variables::substitute(&config, &env(2)).expect("substituted"),
        text,
        "every pod of the cluster runs the same config"
    );

    let dir = support::configs::scratch_dir("alloy-clustering", "cluster");
    let file = dir.join("config.alloy");
    std::fs::write(&file, &text).expect("config file");
    let alloy = alloy_binary();

    let first = Instance::start(&alloy, &args, &file, &dir, 0, None);
    let second = Instance::start(&alloy, &args, &file, &dir, 1, Some(first.port));
    let before = settled_owners(&[&first, &second]);
    let per_instance = |owners: &BTreeMap<String, String>, name: &str| {
        owners.values().filter(|o| *o == name).count()
    };
    assert!(
        per_instance(&before, &first.name) > 0 && per_instance(&before, &second.name) > 0,
        "both instances scrape: {before:?}"
    );

    let third = Instance::start(&alloy, &args, &file, &dir, 2, Some(first.port));
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
