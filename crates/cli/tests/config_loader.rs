//! `agent-operator config-loader`, the real binary, against testkube and `testenv::backends()`
//! (the real control plane): the config Secrets are written as the operator stores them
//! (`render::segments::store`), a small HTTP server stands in for the agent's `/-/reload`, and
//! the tests read the file the loader writes.
//!
//! * `--once` waits for every segment the head names, then writes the whole config and exits;
//! * the sidecar writes and reloads once per real change, never for an unchanged head, and
//!   never writes a head whose segments do not match it yet (a stale segment);
//! * a refused reload puts the previous file back and `/ready` says 503 and why, until a good
//!   config is accepted;
//! * only the operator's variables are substituted: a tenant's `$(HOSTNAME)`, `${HOSTNAME}`,
//!   `$(` stay as written;
//! * an API server that cannot be reached for a while delays a change, which then arrives;
//! * on the real control plane, a ServiceAccount with nothing but `get, list, watch` on the
//!   named Secrets is enough.

mod support;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use base64::Engine;
use render::segments::{self, SegmentCache};
use serde_json::{Value, json};
use support::{Backend, Cluster, eventually};

const HEAD: &str = "agent-config";

/// testkube (its faults are this file's own forwarder, so both run the same scenarios) and the
/// backends `testenv::backends()` names.
fn all_backends() -> Vec<Backend> {
    let mut backends = testenv::backends();
    if !backends.contains(&Backend::TestKube) {
        backends.insert(0, Backend::TestKube);
    }
    backends
}

/// A config of many segments: `jobs` scrape jobs, with the operator's references and a
/// tenant's hostile strings, edited by `edit` (a marker in job 700's regex).
fn config(edit: &str) -> String {
    let mut text = String::from(
        "server:\n  log_level: info\nmetrics:\n  global:\n    external_labels:\n      \
         __replica__: replica-$(STATEFULSET_ORDINAL_NUMBER)\n      \
         tenant_a: $(HOSTNAME)\n      tenant_b: ${HOSTNAME}\n      tenant_c: $$(SHARD)\n      \
         tenant_d: \"$(\"\n      tenant_e: $(SHARD_BUCKETSX)\n  configs:\n  - name: ns/primary\n    \
         scrape_configs:\n",
    );
    for j in 0..1400 {
        text.push_str(&format!(
            "    - job_name: serviceMonitor/ns/m{j}/0\n      relabel_configs:\n      \
             - source_labels: [__tmp_hash]\n        regex: $(SHARD)\n        action: keep\n"
        ));
        for f in 0..6 {
            let regex = if j == 700 && f == 0 {
                format!("x{j}{edit}")
            } else {
                format!("x{j}")
            };
            text.push_str(&format!(
                "      - source_labels: [__meta_kubernetes_pod_label_{f}]\n        regex: {regex}\n"
            ));
        }
    }
    text
}

/// `text` as the loader should write it for the environment [`loader`] gives.
fn expected(text: &str) -> String {
    text.replace("$(SHARD)", "1")
        .replace("$(STATEFULSET_ORDINAL_NUMBER)", "3")
}

/// The head and segment Secrets of `text`, as the operator writes them.
struct Stored {
    head: Value,
    segments: Vec<Value>,
}

impl Stored {
    fn names(&self) -> Vec<String> {
        std::iter::once(&self.head)
            .chain(&self.segments)
            .map(|s| s["metadata"]["name"].as_str().expect("name").to_owned())
            .collect()
    }
}

fn store(namespace: &str, text: &str, cache: &mut SegmentCache) -> Stored {
    let stored = segments::store(HEAD, &[text], Some(cache)).expect("stored");
    let encode = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let secret = |name: &str, data: Value, segment: bool| {
        let mut labels = json!({"app.kubernetes.io/managed-by": "test"});
        if segment {
            labels[segments::SEGMENT_OF_LABEL] = json!(HEAD);
        }
        json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "data": data,
        })
    };
    let mut head_data = json!({"agent.yml": encode(&stored[0].bytes)});
    if let Some(manifest) = segments::manifest_of(&stored) {
        head_data[segments::MANIFEST_KEY] = json!(encode(&segments::manifest_bytes(&manifest)));
    }
    Stored {
        head: secret(HEAD, head_data, false),
        segments: stored[1..]
            .iter()
            .map(|s| secret(&s.secret, json!({"agent.yml": encode(&s.bytes)}), true))
            .collect(),
    }
}

fn apply(cluster: &Cluster, objects: &[Value]) {
    if objects.is_empty() {
        return;
    }
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
    cluster.kubectl_with_input(
        &[
            "apply",
            "--server-side",
            "--force-conflicts",
            "--field-manager=test",
            // testkube serves no OpenAPI document to validate against.
            "--validate=false",
            "-f",
            "-",
        ],
        Some(&list.to_string()),
    );
}

/// A stand-in for the agent's `/-/reload`: it reads the config file at each reload, and
/// refuses (400) a config holding `refuse-me`.
struct Agent {
    addr: SocketAddr,
    /// The file's text at each reload, in order.
    reloads: Arc<Mutex<Vec<String>>>,
}

impl Agent {
    fn start(output: PathBuf) -> Agent {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the agent");
        let addr = listener.local_addr().expect("agent address");
        let reloads = Arc::new(Mutex::new(Vec::new()));
        let seen = reloads.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let request = String::from_utf8_lossy(&request);
                let answer = if request.starts_with("POST /-/reload ") {
                    let text = std::fs::read_to_string(&output).unwrap_or_default();
                    let refused = text.contains("refuse-me");
                    seen.lock().expect("reloads").push(text);
                    if refused {
                        let body = "error reloading config: bad config: refuse-me is not allowed\n";
                        format!(
                            "HTTP/1.1 400 Bad Request\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        )
                    } else {
                        "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_owned()
                    }
                } else {
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .to_owned()
                };
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        Agent { addr, reloads }
    }

    fn reloads(&self) -> Vec<String> {
        self.reloads.lock().expect("reloads").clone()
    }

    fn url(&self) -> String {
        format!("http://{}/-/reload", self.addr)
    }
}

/// Records every text the config file holds, polling it, until dropped.
struct Observer {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<BTreeSet<String>>>,
    thread: Option<JoinHandle<()>>,
}

impl Observer {
    fn start(path: PathBuf) -> Observer {
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(BTreeSet::new()));
        let (s, t) = (stop.clone(), seen.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    t.lock().expect("seen").insert(text);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        Observer {
            stop,
            seen,
            thread: Some(thread),
        }
    }

    /// Every text seen, stopping the observer.
    fn finish(mut self) -> BTreeSet<String> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().expect("observer");
        }
        self.seen.lock().expect("seen").clone()
    }
}

/// A config-loader process; killed when dropped.
struct Loader {
    child: Child,
    log: PathBuf,
}

impl Loader {
    fn start(
        kubeconfig: &Path,
        namespace: &str,
        output: &Path,
        log: PathBuf,
        extra: &[&str],
    ) -> Loader {
        let file = std::fs::File::create(&log).expect("log file");
        let child = Command::new(env!("CARGO_BIN_EXE_agent-operator"))
            .arg("config-loader")
            .arg(format!("--namespace={namespace}"))
            .arg(format!("--secret={HEAD}"))
            .arg(format!("--output={}", output.display()))
            .arg("--log.level=debug")
            .args(extra)
            .env_clear()
            .env("KUBECONFIG", kubeconfig)
            .env("NO_COLOR", "1")
            // The pod's environment: the operator's variables, and what a tenant would read.
            .env("SHARD", "1")
            .env("SHARDS", "4")
            .env("POD_NAME", "agent-shard-1-3")
            .env("POD_NAMESPACE", namespace)
            .env("HOSTNAME", "leaked-hostname")
            .stdin(Stdio::null())
            .stdout(file.try_clone().expect("log file"))
            .stderr(file)
            .spawn()
            .expect("spawn agent-operator config-loader");
        Loader { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The exit status, once it exits.
    fn wait(&mut self, within: Duration) -> std::process::ExitStatus {
        let log = self.log.clone();
        eventually("the loader exits", within, || {
            self.child
                .try_wait()
                .map_err(|e| e.to_string())?
                .ok_or_else(|| {
                    format!(
                        "still running:\n{}",
                        std::fs::read_to_string(&log).unwrap_or_default()
                    )
                })
        })
    }

    fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The port of `/ready`, from the loader's log.
    fn ready_port(&self) -> u16 {
        eventually("the loader serves /ready", Duration::from_secs(30), || {
            let log = self.log();
            log.lines()
                .filter(|l| l.contains("serving /ready"))
                .find_map(|l| l.split_whitespace().find_map(|f| f.strip_prefix("addr=")))
                .and_then(|addr| addr.rsplit(':').next()?.parse().ok())
                .ok_or_else(|| format!("no address in the log:\n{log}"))
        })
    }

    /// Stops it with SIGTERM; it exits 0.
    fn stop(mut self) {
        let pid = self.child.id().to_string();
        let status = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        assert!(status.success());
        let exit = self.wait(Duration::from_secs(30));
        assert!(exit.success(), "exited with {exit}:\n{}", self.log());
    }
}

impl Drop for Loader {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `GET /ready` of the loader: status and body.
fn ready(port: u16) -> (u16, String) {
    get(port, "/ready")
}

/// The MD5 of the assembled config the loader's `GET /status` says the agent runs.
fn loaded_md5(port: u16) -> Option<String> {
    let (status, body) = get(port, "/status");
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).expect("/status is JSON");
    body["loaded_md5"].as_str().map(str::to_owned)
}

/// `GET path` of the loader: status and body.
fn get(port: u16, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the loader");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .expect("read the answer");
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, body.to_owned())
}

/// The file's text, or `""` while there is none.
fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn file_is(path: &Path, want: &str) -> Result<(), String> {
    let have = read(path);
    (have == want).then_some(()).ok_or_else(|| {
        format!(
            "the file holds {} bytes (want {}){}",
            have.len(),
            want.len(),
            if have.contains("refuse-me") {
                ", the refused config"
            } else {
                ""
            }
        )
    })
}

/// A scratch directory of one scenario.
fn scratch(cluster: &Cluster, name: &str) -> PathBuf {
    let dir = cluster.dir.join(name);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_waits_for_every_segment_then_writes_the_whole_config() {
    for backend in all_backends() {
        let cluster = Cluster::start(backend, "loader-once").await;
        let namespace = cluster
            .env
            .create_namespace("loader-once")
            .await
            .expect("namespace");
        let dir = scratch(&cluster, "once");
        let output = dir.join("agent.yml");
        let text = config("");
        let stored = store(&namespace, &text, &mut SegmentCache::default());
        assert!(
            stored.segments.len() > 3,
            "{} segments",
            stored.segments.len()
        );

        // The head alone: it names segments that are not written yet.
        apply(&cluster, std::slice::from_ref(&stored.head));
        let mut loader = Loader::start(
            &cluster.kubeconfig,
            &namespace,
            &output,
            dir.join("loader.log"),
            &["--once"],
        );
        eventually(
            "the loader waits for the segments",
            Duration::from_secs(30),
            || {
                let log = loader.log();
                log.contains("not there yet")
                    .then_some(())
                    .ok_or_else(|| format!("log:\n{log}"))
            },
        );
        // All segments but one: still nothing.
        let (last, others) = stored.segments.split_last().expect("segments");
        apply(&cluster, others);
        std::thread::sleep(Duration::from_secs(2));
        assert!(
            loader.running(),
            "{backend}: exited early:\n{}",
            loader.log()
        );
        assert!(!output.exists(), "{backend}: wrote a partial config");

        apply(&cluster, std::slice::from_ref(last));
        let status = loader.wait(Duration::from_secs(60));
        assert!(status.success(), "{backend}: {status}:\n{}", loader.log());
        let written = read(&output);
        assert_eq!(written.len(), expected(&text).len(), "{backend}");
        assert!(
            written == expected(&text),
            "{backend}: not the whole config"
        );
        // Only the operator's variables were substituted.
        for kept in [
            "tenant_a: $(HOSTNAME)\n",
            "tenant_b: ${HOSTNAME}\n",
            "tenant_c: $1\n",
            "tenant_d: \"$(\"\n",
            "tenant_e: $(SHARD_BUCKETSX)\n",
            "__replica__: replica-3\n",
        ] {
            assert!(written.contains(kept), "{backend}: {kept:?} missing");
        }
        assert!(!written.contains("leaked-hostname"), "{backend}");
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .filter(|n| n != "agent.yml" && n != "loader.log")
            .collect();
        assert!(leftovers.is_empty(), "{backend}: {leftovers:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_variable_that_is_unset_writes_nothing() {
    for backend in all_backends() {
        let cluster = Cluster::start(backend, "loader-unset").await;
        let namespace = cluster
            .env
            .create_namespace("loader-unset")
            .await
            .expect("namespace");
        let dir = scratch(&cluster, "unset");
        let output = dir.join("agent.yml");
        let stored = store(
            &namespace,
            "keep: $(SHARD_BUCKETS)\nother: $(NOT_OURS)\n",
            &mut SegmentCache::default(),
        );
        apply(&cluster, std::slice::from_ref(&stored.head));
        let mut loader = Loader::start(
            &cluster.kubeconfig,
            &namespace,
            &output,
            dir.join("loader.log"),
            &["--once"],
        );
        let status = loader.wait(Duration::from_secs(30));
        let log = loader.log();
        assert!(!status.success(), "{backend}:\n{log}");
        assert!(
            log.contains(&format!("Secret {namespace}/{HEAD}: key agent.yml: line 1 refers to $(SHARD_BUCKETS), but the loader's environment has no SHARD_BUCKETS")),
            "{backend}:\n{log}"
        );
        assert!(!output.exists(), "{backend}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sidecar_reloads_once_per_change_and_never_a_stale_set() {
    for backend in all_backends() {
        let cluster = Cluster::start(backend, "loader-sidecar").await;
        let namespace = cluster
            .env
            .create_namespace("loader-sidecar")
            .await
            .expect("namespace");
        let dir = scratch(&cluster, "sidecar");
        let output = dir.join("agent.yml");
        let mut cache = SegmentCache::default();
        let v1 = config("");
        let stored = store(&namespace, &v1, &mut cache);
        apply(&cluster, &stored.segments);
        apply(&cluster, std::slice::from_ref(&stored.head));

        // The init container, then the sidecar.
        let mut once = Loader::start(
            &cluster.kubeconfig,
            &namespace,
            &output,
            dir.join("once.log"),
            &["--once"],
        );
        assert!(
            once.wait(Duration::from_secs(60)).success(),
            "{}",
            once.log()
        );
        let agent = Agent::start(output.clone());
        let observer = Observer::start(output.clone());
        let loader = Loader::start(
            &cluster.kubeconfig,
            &namespace,
            &output,
            dir.join("sidecar.log"),
            &[
                &format!("--reload-url={}", agent.url()),
                "--listen-address=127.0.0.1:0",
            ],
        );
        let port = loader.ready_port();
        assert_eq!(ready(port).0, 200, "{backend}: the file is the config");

        // A change of the head that is no change of the config: no write, no reload.
        cluster.kubectl(&["label", "secret", "-n", &namespace, HEAD, "touched=yes"]);

        // v2 changes one segment; its head is written first and names a text that segment
        // does not hold yet: nothing is written until it does.
        let v2 = config("-v2");
        let stored2 = store(&namespace, &v2, &mut cache);
        let changed: Vec<Value> = stored2
            .segments
            .iter()
            .filter(|s| !stored.segments.contains(s))
            .cloned()
            .collect();
        assert_eq!(changed.len(), 1, "{backend}: one segment changes");
        assert_eq!(stored.names(), stored2.names(), "{backend}: same names");
        apply(&cluster, std::slice::from_ref(&stored2.head));
        eventually(
            "the loader sees the stale segment",
            Duration::from_secs(30),
            || {
                let log = loader.log();
                log.contains("holds a text of MD5")
                    .then_some(())
                    .ok_or_else(|| format!("log:\n{log}"))
            },
        );
        std::thread::sleep(Duration::from_secs(1));
        file_is(&output, &expected(&v1)).expect("still v1");
        assert!(
            agent.reloads().is_empty(),
            "{backend}: reloaded without a change"
        );

        apply(&cluster, &changed);
        eventually("v2 is written", Duration::from_secs(30), || {
            file_is(&output, &expected(&v2))
        });
        eventually("v2 is reloaded", Duration::from_secs(10), || {
            (agent.reloads().len() == 1)
                .then_some(())
                .ok_or_else(|| format!("{} reloads", agent.reloads().len()))
        });
        assert_eq!(ready(port).0, 200, "{backend}");
        // /status names the config the agent runs by the MD5 of its Secrets' text.
        assert_eq!(
            loaded_md5(port),
            Some(render::segments::md5_hex(v2.as_bytes())),
            "{backend}"
        );

        // v3: segments first, as the operator writes them.
        let v3 = config("-v3");
        let stored3 = store(&namespace, &v3, &mut cache);
        apply(&cluster, &stored3.segments);
        apply(&cluster, std::slice::from_ref(&stored3.head));
        eventually("v3 is reloaded", Duration::from_secs(30), || {
            (agent.reloads().len() == 2)
                .then_some(())
                .ok_or_else(|| format!("{} reloads", agent.reloads().len()))
        });
        // No more reloads come of it.
        std::thread::sleep(Duration::from_secs(1));
        let reloads = agent.reloads();
        assert_eq!(reloads.len(), 2, "{backend}");
        assert!(
            reloads[0] == expected(&v2),
            "{backend}: the first reload saw v2"
        );
        assert!(
            reloads[1] == expected(&v3),
            "{backend}: the second reload saw v3"
        );
        loader.stop();

        // The file only ever held whole configs.
        let seen = observer.finish();
        let whole: BTreeSet<String> = [&v1, &v2, &v3].iter().map(|t| expected(t)).collect();
        assert!(
            seen.is_subset(&whole),
            "{backend}: the file held something else: lengths {:?}",
            seen.iter().map(String::len).collect::<Vec<_>>()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_reload_puts_the_previous_file_back_and_says_why() {
    for backend in all_backends() {
        let cluster = Cluster::start(backend, "loader-refused").await;
        let namespace = cluster
            .env
            .create_namespace("loader-refused")
            .await
            .expect("namespace");
        let dir = scratch(&cluster, "refused");
        let output = dir.join("agent.yml");
        let mut cache = SegmentCache::default();
        let good = config("");
        let stored = store(&namespace, &good, &mut cache);
        apply(&cluster, &stored.segments);
        apply(&cluster, std::slice::from_ref(&stored.head));
        let agent = Agent::start(output.clone());
        // No init container this time: the sidecar writes the first config and reloads.
        let loader = Loader::start(
            &cluster.kubeconfig,
            &namespace,
            &output,
            dir.join("sidecar.log"),
            &[
                &format!("--reload-url={}", agent.url()),
                "--listen-address=127.0.0.1:0",
            ],
        );
        let port = loader.ready_port();
        eventually(
            "the first config is accepted",
            Duration::from_secs(30),
            || match ready(port) {
                (200, _) => file_is(&output, &expected(&good)),
                (status, body) => Err(format!("{status}: {body}")),
            },
        );
        assert_eq!(agent.reloads().len(), 1, "{backend}");

        let bad = config("-refuse-me");
        let stored_bad = store(&namespace, &bad, &mut cache);
        apply(&cluster, &stored_bad.segments);
        apply(&cluster, std::slice::from_ref(&stored_bad.head));
        let (status, body) =
            eventually("not ready", Duration::from_secs(30), || match ready(port) {
                (200, body) => Err(format!("still ready: {body}")),
                other => Ok(other),
            });
        assert_eq!(status, 503, "{backend}: {body}");
        assert!(
            body.contains(&format!(
                "the agent refused the config of Secret {namespace}/{HEAD}"
            )) && body.contains("400 Bad Request")
                && body.contains("refuse-me is not allowed"),
            "{backend}: {body}"
        );
        // The agent saw the bad config once, and the file is the good one again.
        eventually("the good config is back", Duration::from_secs(10), || {
            file_is(&output, &expected(&good))
        });
        let reloads = agent.reloads();
        assert_eq!(reloads.len(), 2, "{backend}");
        assert!(reloads[1] == expected(&bad), "{backend}");
        // Not offered again while the head stays.
        cluster.kubectl(&["label", "secret", "-n", &namespace, HEAD, "touched=yes"]);
        std::thread::sleep(Duration::from_secs(1));
        assert_eq!(agent.reloads().len(), 2, "{backend}");
        assert_eq!(ready(port).0, 503, "{backend}");

        let fixed = config("-fixed");
        let stored_fixed = store(&namespace, &fixed, &mut cache);
        apply(&cluster, &stored_fixed.segments);
        apply(&cluster, std::slice::from_ref(&stored_fixed.head));
        eventually("ready again", Duration::from_secs(30), || {
            match ready(port) {
                (200, _) => file_is(&output, &expected(&fixed)),
                (status, body) => Err(format!("{status}: {body}")),
            }
        });
        assert_eq!(agent.reloads().len(), 3, "{backend}");
        loader.stop();
    }
}

/// A TCP forwarder to the API server that can be taken down (every connection cut, new ones
/// refused) and brought back on the same port.
struct Forwarder {
    port: u16,
    target: SocketAddr,
    up: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    connections: Arc<Mutex<Vec<TcpStream>>>,
}

impl Forwarder {
    fn start(target: SocketAddr) -> Forwarder {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut forwarder = Forwarder {
            port,
            target,
            up: None,
            connections: Arc::default(),
        };
        forwarder.bring_up();
        forwarder
    }

    fn bring_up(&mut self) {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).expect("bind the forwarder");
        listener.set_nonblocking(true).expect("nonblocking");
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, connections, target) = (stop.clone(), self.connections.clone(), self.target);
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                let client = match listener.accept() {
                    Ok((client, _)) => client,
                    Err(_) => {
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    }
                };
                let _ = client.set_nonblocking(false);
                let Ok(server) = TcpStream::connect(target) else {
                    continue;
                };
                let mut held = connections.lock().expect("connections");
                for stream in [&client, &server] {
                    held.push(stream.try_clone().expect("clone"));
                }
                let pipe = |mut from: TcpStream, mut to: TcpStream| {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Write);
                    });
                };
                pipe(
                    client.try_clone().expect("clone"),
                    server.try_clone().expect("clone"),
                );
                pipe(server, client);
            }
        });
        self.up = Some((stop, thread));
    }

    fn take_down(&mut self) {
        if let Some((stop, thread)) = self.up.take() {
            stop.store(true, Ordering::Relaxed);
            thread.join().expect("forwarder");
        }
        for stream in self.connections.lock().expect("connections").drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        self.take_down();
    }
}

/// `kubeconfig`'s text with its server's address replaced by `127.0.0.1:port`, and that
/// address.
fn through_forwarder(kubeconfig: &Path) -> (String, SocketAddr) {
    let text = std::fs::read_to_string(kubeconfig).expect("kubeconfig");
    let server = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("server:"))
        .map(|s| s.trim().trim_matches('\'').trim_matches('"').to_owned())
        .expect("a server");
    let hostport = server
        .split_once("://")
        .map_or(server.as_str(), |(_, rest)| rest)
        .trim_end_matches('/');
    let addr: SocketAddr = hostport.parse().expect("the server is IP:port");
    (text.replace(hostport, "{FORWARDER}"), addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_made_while_the_api_server_is_away_arrives_when_it_is_back() {
    for backend in all_backends() {
        let cluster = Cluster::start(backend, "loader-away").await;
        let namespace = cluster
            .env
            .create_namespace("loader-away")
            .await
            .expect("namespace");
        let dir = scratch(&cluster, "away");
        let output = dir.join("agent.yml");
        let (template, server) = through_forwarder(&cluster.kubeconfig);
        let mut forwarder = Forwarder::start(server);
        let kubeconfig = dir.join("forwarded.kubeconfig");
        std::fs::write(
            &kubeconfig,
            template.replace("{FORWARDER}", &format!("127.0.0.1:{}", forwarder.port)),
        )
        .expect("kubeconfig");

        let mut cache = SegmentCache::default();
        let v1 = config("");
        let stored = store(&namespace, &v1, &mut cache);
        apply(&cluster, &stored.segments);
        apply(&cluster, std::slice::from_ref(&stored.head));
        let agent = Agent::start(output.clone());
        let loader = Loader::start(
            &kubeconfig,
            &namespace,
            &output,
            dir.join("sidecar.log"),
            &[
                &format!("--reload-url={}", agent.url()),
                "--listen-address=127.0.0.1:0",
            ],
        );
        let port = loader.ready_port();
        eventually("v1 is loaded", Duration::from_secs(30), || {
            match ready(port) {
                (200, _) => file_is(&output, &expected(&v1)),
                (status, body) => Err(format!("{status}: {body}")),
            }
        });

        forwarder.take_down();
        let v2 = config("-v2");
        let stored2 = store(&namespace, &v2, &mut cache);
        apply(&cluster, &stored2.segments);
        apply(&cluster, std::slice::from_ref(&stored2.head));
        std::thread::sleep(Duration::from_secs(4));
        file_is(&output, &expected(&v1)).expect("v1 while the API server is away");
        assert_eq!(agent.reloads().len(), 1, "{backend}");
        // The agent still runs its last config: the loader stays ready.
        assert_eq!(ready(port).0, 200, "{backend}");
        let log = loader.log();
        assert!(
            log.contains("watching the config Secret; retrying"),
            "{backend}:\n{log}"
        );

        let back = Instant::now();
        forwarder.bring_up();
        eventually("v2 arrives", Duration::from_secs(60), || {
            file_is(&output, &expected(&v2))
        });
        eventually("v2 is reloaded", Duration::from_secs(10), || {
            (agent.reloads().len() == 2)
                .then_some(())
                .ok_or_else(|| format!("{} reloads", agent.reloads().len()))
        });
        eprintln!(
            "{backend}: v2 arrived {:?} after the API server came back",
            back.elapsed()
        );
        loader.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_account_allowed_only_the_named_secrets_is_enough() {
    // RBAC and tokens exist on the real control plane only.
    if !testenv::backends().contains(&Backend::ControlPlane) {
        return;
    }
    let cluster = Cluster::start(Backend::ControlPlane, "loader-rbac").await;
    let namespace = cluster
        .env
        .create_namespace("loader-rbac")
        .await
        .expect("namespace");
    let dir = scratch(&cluster, "rbac");
    let output = dir.join("agent.yml");
    let mut cache = SegmentCache::default();
    let v1 = config("");
    let stored = store(&namespace, &v1, &mut cache);
    apply(&cluster, &stored.segments);
    apply(&cluster, std::slice::from_ref(&stored.head));
    // Another Secret of the namespace, which the loader's identity may not read.
    cluster.kubectl(&[
        "create",
        "secret",
        "generic",
        "-n",
        &namespace,
        "other",
        "--from-literal=k=v",
    ]);

    // What the operator writes: a Role naming the agent's config Secrets, bound to the pods'
    // ServiceAccount.
    let names = stored.names();
    let rbac = json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "ServiceAccount",
         "metadata": {"name": "agent", "namespace": namespace}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
         "metadata": {"name": "agent-config-loader", "namespace": namespace},
         "rules": [{"apiGroups": [""], "resources": ["secrets"],
                    "verbs": ["get", "list", "watch"], "resourceNames": names}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
         "metadata": {"name": "agent-config-loader", "namespace": namespace},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                     "name": "agent-config-loader"},
         "subjects": [{"kind": "ServiceAccount", "name": "agent", "namespace": namespace}]},
    ]});
    cluster.kubectl_with_input(&["apply", "-f", "-"], Some(&rbac.to_string()));
    let token = cluster.kubectl(&[
        "create",
        "token",
        "agent",
        "-n",
        &namespace,
        "--duration=1h",
    ]);
    let admin = std::fs::read_to_string(&cluster.kubeconfig).expect("kubeconfig");
    let admin_token = admin
        .lines()
        .find_map(|l| l.trim().strip_prefix("token:"))
        .expect("the admin kubeconfig has a token")
        .trim()
        .to_owned();
    let kubeconfig = dir.join("agent.kubeconfig");
    std::fs::write(&kubeconfig, admin.replace(&admin_token, token.trim())).expect("kubeconfig");

    // The identity is as narrow as meant: the other Secret and a list of all are refused.
    let as_agent = |args: &[&str]| {
        Command::new(std::env::var_os("KUBECTL").unwrap_or_else(|| "kubectl".into()))
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(args)
            .output()
            .expect("kubectl")
    };
    for denied in [
        &["get", "secret", "-n", &namespace, "other"][..],
        &["get", "secrets", "-n", &namespace],
    ] {
        let out = as_agent(denied);
        assert!(!out.status.success(), "{denied:?} was allowed");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("Forbidden"),
            "{denied:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let mut once = Loader::start(
        &kubeconfig,
        &namespace,
        &output,
        dir.join("once.log"),
        &["--once"],
    );
    assert!(
        once.wait(Duration::from_secs(60)).success(),
        "{}",
        once.log()
    );
    file_is(&output, &expected(&v1)).expect("v1");

    let agent = Agent::start(output.clone());
    let loader = Loader::start(
        &kubeconfig,
        &namespace,
        &output,
        dir.join("sidecar.log"),
        &[
            &format!("--reload-url={}", agent.url()),
            "--listen-address=127.0.0.1:0",
        ],
    );
    let port = loader.ready_port();
    let v2 = config("-v2");
    let stored2 = store(&namespace, &v2, &mut cache);
    apply(&cluster, &stored2.segments);
    apply(&cluster, std::slice::from_ref(&stored2.head));
    eventually("v2 is loaded", Duration::from_secs(30), || {
        match ready(port) {
            (200, _) if agent.reloads().len() == 1 => file_is(&output, &expected(&v2)),
            (status, body) => Err(format!(
                "{status}: {body}, {} reloads",
                agent.reloads().len()
            )),
        }
    });
    let log = loader.log();
    assert!(
        !log.contains("Forbidden") && !log.contains("forbidden"),
        "{log}"
    );
    loader.stop();
}
