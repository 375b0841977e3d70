//! A cluster, kubectl and the operator process, for the end-to-end tests.
//!
//! Every wait polls for a condition with a deadline; none sleeps and hopes.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub use testenv::Backend;

/// Compares `actual` with the golden file at `relative` (from the repository root);
/// `UPDATE_GOLDEN=1` rewrites it.
pub fn golden(relative: &str, actual: &str) {
    let path = root().join(relative);
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("golden dir");
        std::fs::write(&path, actual).expect("write golden");
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    pretty_assertions::assert_eq!(
        expected,
        actual,
        "{} (UPDATE_GOLDEN=1 rewrites it)",
        path.display()
    );
}

/// The images a real node (`testenv::Cluster`) runs the operator and its agents from, built by
/// `scripts/build-images` (cached; the operator's from this test's `agent-operator` binary):
/// their docker-archive tars.
pub fn node_images() -> Vec<PathBuf> {
    node_images_with(&[])
}

/// [`node_images`], `scripts/build-images` given `flags` too (`--alloy`: the Alloy image).
pub fn node_images_with(flags: &[&str]) -> Vec<PathBuf> {
    let output = Command::new(root().join("scripts/build-images"))
        .arg("--operator")
        .arg(env!("CARGO_BIN_EXE_agent-operator"))
        .args(flags)
        .stderr(Stdio::inherit())
        .output()
        .expect("scripts/build-images");
    assert!(output.status.success(), "scripts/build-images failed");
    String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .filter_map(|line| line.split_once(' ').map(|(_, tar)| PathBuf::from(tar)))
        .collect()
}

/// The upstream operator binary, built (or found in the cache) by the script.
pub fn upstream_binary() -> PathBuf {
    let script = root().join("scripts/build-grafana-agent");
    let output = Command::new(&script)
        .env("GO_BUILD_QUIET", "1")
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", script.display()));
    assert!(
        output.status.success(),
        "{} failed ({})",
        script.display(),
        output.status
    );
    let dir = String::from_utf8_lossy(&output.stdout);
    let binary =
        PathBuf::from(dir.trim().lines().last().unwrap_or_default()).join("grafana-agent-operator");
    assert!(binary.is_file(), "{} was not built", binary.display());
    binary
}

/// The names docs/compatibility.md gives its differences: the first word of the first cell of
/// every table row (`Q11`, `Q25 (operators)`, `secret-agent-label`).
pub fn documented_quirks() -> BTreeSet<String> {
    let path = root().join("docs/compatibility.md");
    let text = std::fs::read_to_string(&path).expect("docs/compatibility.md");
    text.lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .map(|cell| {
            cell.split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .filter(|name| {
            !name.is_empty() && !name.starts_with("---") && name != "quirk" && name != "name"
        })
        .collect()
}

/// A backend (testenv's: testkube, or the real control plane shared by the test binary) with
/// the CRDs installed, and a scratch directory for logs and kubectl's cache.
///
/// The examples use fixed namespaces and the operator watches all of them, so a test binary
/// runs at most one scenario on the shared control plane.
pub struct Cluster {
    pub env: testenv::TestEnv,
    pub dir: PathBuf,
    pub kubeconfig: PathBuf,
}

/// Every kind `render` reads, for `kubectl get`.
const INPUT_KINDS: &str = "namespaces,secrets,configmaps,grafanaagents,metricsinstances,logsinstances,podlogs,integrations,servicemonitors,podmonitors,probes";
/// Every kind the operator creates.
const OUTPUT_KINDS: &str =
    "secrets,services,statefulsets,daemonsets,deployments,roles,rolebindings";
const MANAGED: &str = "app.kubernetes.io/managed-by=grafana-agent-operator";

/// Write requests by `(verb, resource)`, `resource` with its subresource (`grafanaagents/status`).
pub type WriteCounts = BTreeMap<(String, String), u64>;

/// What kube-controller-manager writes on its own (leases, pods, endpoints, workload status,
/// and Events, which the operator also writes): left out of the control plane's counts, so
/// they show the operator's writes and the test's kubectl.
const CONTROL_PLANE_WRITERS_OWN: &[&str] = &[
    "leases",
    "events",
    "pods",
    "pods/binding",
    "endpoints",
    "endpointslices",
    "replicasets",
    "replicasets/status",
    "controllerrevisions",
    "statefulsets/status",
    "daemonsets/status",
    "deployments/status",
    "serviceaccounts",
    "serviceaccounts/token",
    "namespaces/finalize",
    "namespaces/status",
    "tokenreviews",
    "subjectaccessreviews",
    "selfsubjectreviews",
];

impl Cluster {
    /// Starts (testkube) or joins (control plane) the backend and installs the CRDs.
    pub async fn start(backend: Backend, name: &str) -> Cluster {
        let env = testenv::TestEnv::start(backend)
            .await
            .unwrap_or_else(|e| panic!("starting {backend}: {e}"));
        let dir = std::env::temp_dir().join(format!(
            "agent-operator-e2e-{name}-{backend}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let kubeconfig = env.kubeconfig().to_path_buf();
        let cluster = Cluster {
            env,
            dir,
            kubeconfig,
        };
        cluster.kubectl(&["apply", "--server-side", "-f", "deploy/crds/"]);
        cluster.kubectl(&[
            "wait",
            "--for",
            "condition=Established",
            "crd",
            "--all",
            "--timeout",
            "30s",
        ]);
        cluster
    }

    pub fn backend(&self) -> Backend {
        self.env.backend()
    }

    /// The testkube server, for fault injection (testkube only).
    pub fn testkube(&self) -> &testkube::TestKube {
        self.env
            .testkube()
            .unwrap_or_else(|| panic!("{} has no fault injection", self.backend()))
    }

    /// Every write request the server has served so far (see [`CONTROL_PLANE_WRITERS_OWN`]).
    pub fn write_counts(&self) -> WriteCounts {
        match self.env.testkube() {
            Some(server) => server
                .counters()
                .snapshot()
                .into_iter()
                .filter(|((verb, _), _)| !matches!(verb.as_str(), "get" | "list" | "watch"))
                .collect(),
            None => apiserver_write_counts(&self.kubectl(&["get", "--raw", "/metrics"])),
        }
    }

    /// Counts the writes from now on.
    pub fn count_writes(&self) -> Writes<'_> {
        Writes {
            cluster: self,
            before: self.write_counts(),
        }
    }

    fn command(&self) -> Command {
        let binary = std::env::var_os("KUBECTL").unwrap_or_else(|| "kubectl".into());
        let mut command = Command::new(binary);
        command
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .arg("--cache-dir")
            .arg(self.dir.join("kubectl-cache"))
            .env_remove("KUBECONFIG")
            .current_dir(root());
        command
    }

    /// Runs kubectl; panics with its stderr when it fails (kubectl is required, never skipped).
    pub fn kubectl(&self, args: &[&str]) -> String {
        self.kubectl_with_input(args, None)
    }

    pub fn kubectl_with_input(&self, args: &[&str], input: Option<&str>) -> String {
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("kubectl is required by this test: {e}"));
        let mut stdin = child.stdin.take().expect("stdin");
        if let Some(text) = input {
            stdin.write_all(text.as_bytes()).expect("write stdin");
        }
        drop(stdin);
        let output = child.wait_with_output().expect("kubectl");
        assert!(
            output.status.success(),
            "kubectl {args:?} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    pub fn apply(&self, manifest: &str) {
        self.kubectl_with_input(&["apply", "-f", "-"], Some(manifest));
    }

    pub fn get_json(&self, args: &[&str]) -> Value {
        let mut all = vec!["get"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", "json"]);
        serde_json::from_str(&self.kubectl(&all)).expect("kubectl JSON")
    }

    /// The objects `render` prints for what the cluster holds now, by (kind, namespace, name).
    pub fn rendered(&self) -> BTreeMap<(String, String, String), Value> {
        self.rendered_in(None)
    }

    /// [`Cluster::rendered`] for the inputs of one namespace (and every Namespace's labels), or
    /// of all of them.
    pub fn rendered_in(
        &self,
        namespace: Option<&str>,
    ) -> BTreeMap<(String, String, String), Value> {
        self.rendered_with(namespace, &[])
    }

    /// [`Cluster::rendered_in`], `render` given `flags` as well (those the operator runs
    /// with, such as `--runtime alloy`).
    pub fn rendered_with(
        &self,
        namespace: Option<&str>,
        flags: &[&str],
    ) -> BTreeMap<(String, String, String), Value> {
        let scope = match namespace {
            Some(ns) => ["-n", ns],
            None => ["-A", ""],
        };
        let mut args = vec!["get", INPUT_KINDS];
        args.extend(scope.iter().filter(|a| !a.is_empty()));
        args.extend(["-o", "yaml"]);
        let inputs = self.kubectl(&args);
        let mut render = vec!["render", "-f", "-"];
        render.extend_from_slice(flags);
        let output = agent_operator(&render, Some(&inputs));
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains("no GrafanaAgent in the input"),
                "render failed:\n{stderr}"
            );
            return BTreeMap::new();
        }
        let documents: Vec<Value> =
            serde_saphyr::from_multiple(&stdout).expect("render prints YAML documents");
        documents
            .into_iter()
            .filter(|d| !d.is_null())
            .map(|d| (identity(&d), d))
            .collect()
    }

    /// The objects the operator manages in the cluster now.
    pub fn managed(&self) -> BTreeMap<(String, String, String), Value> {
        self.managed_in(None)
    }

    /// [`Cluster::managed`] in one namespace, or in all of them.
    pub fn managed_in(&self, namespace: Option<&str>) -> BTreeMap<(String, String, String), Value> {
        let list = match namespace {
            Some(ns) => self.get_json(&[OUTPUT_KINDS, "-n", ns, "-l", MANAGED]),
            None => self.get_json(&[OUTPUT_KINDS, "-A", "-l", MANAGED]),
        };
        list["items"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(|o| (identity(&o), o))
            .collect()
    }

    /// Why the managed objects differ from what render prints for the cluster's inputs
    /// (`None`: they are equal in every field render prints, and no other object is managed).
    pub fn difference(&self) -> Option<String> {
        self.difference_in(None)
    }

    /// [`Cluster::difference`] for the inputs and managed objects of one namespace.
    pub fn difference_in(&self, namespace: Option<&str>) -> Option<String> {
        self.difference_with(namespace, &[])
    }

    /// [`Cluster::difference_in`] against `render` given `flags` as well.
    pub fn difference_with(&self, namespace: Option<&str>, flags: &[&str]) -> Option<String> {
        let expected = self.rendered_with(namespace, flags);
        let live = self.managed_in(namespace);
        let expected_names: BTreeSet<_> = expected.keys().collect();
        let live_names: BTreeSet<_> = live.keys().collect();
        if expected_names != live_names {
            return Some(format!(
                "objects differ: missing {:?}, unexpected {:?}",
                expected_names.difference(&live_names).collect::<Vec<_>>(),
                live_names.difference(&expected_names).collect::<Vec<_>>()
            ));
        }
        for (id, want) in &expected {
            if let Err(e) = contains(want, &live[id], "") {
                return Some(format!("{id:?}: {e}"));
            }
        }
        None
    }

    /// Waits until the managed objects equal what render prints.
    pub fn converge(&self, what: &str) {
        self.converge_in(None, what);
    }

    /// [`Cluster::converge`] for one namespace.
    pub fn converge_in(&self, namespace: Option<&str>, what: &str) {
        self.converge_with(namespace, &[], what);
    }

    /// [`Cluster::converge_in`] against `render` given `flags` as well (the operator's).
    pub fn converge_with(&self, namespace: Option<&str>, flags: &[&str], what: &str) {
        eventually(what, Duration::from_secs(60), || {
            match self.difference_with(namespace, flags) {
                None => Ok(()),
                Some(d) => Err(d),
            }
        });
    }

    /// Waits until the server has served no write for a second, so counts can be read.
    pub fn settle(&self) {
        let total = || self.write_counts().values().sum::<u64>();
        let mut last = total();
        let mut since = Instant::now();
        let deadline = Instant::now() + Duration::from_secs(60);
        while since.elapsed() < Duration::from_secs(1) {
            assert!(Instant::now() < deadline, "writes never settled");
            std::thread::sleep(Duration::from_millis(200));
            let now = total();
            if now != last {
                last = now;
                since = Instant::now();
            }
        }
    }

    /// The config stored under the config Secret `secret`, assembled as the config loader
    /// does: its own segment, then those its manifest names (each checked against its
    /// digest). Empty while the Secret, or a segment it names, is not there yet (callers poll).
    pub fn config_text(&self, namespace: &str, secret: &str) -> String {
        let data = |name: &str| -> Option<BTreeMap<String, Vec<u8>>> {
            let found = self.kubectl(&[
                "get",
                "secret",
                "-n",
                namespace,
                name,
                "--ignore-not-found",
                "-o",
                "json",
            ]);
            if found.trim().is_empty() {
                return None;
            }
            let secret: Value = serde_json::from_str(&found).expect("kubectl JSON");
            Some(
                secret["data"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(key, value)| {
                        (
                            key.clone(),
                            decode_base64_bytes(value.as_str().unwrap_or_default()),
                        )
                    })
                    .collect(),
            )
        };
        let text = |data: &BTreeMap<String, Vec<u8>>| {
            let bytes = data.get(render::desired::CONFIG_KEY)?;
            Some(render::segments::decode(bytes).expect("a config segment"))
        };
        let Some(head) = data(secret) else {
            return String::new();
        };
        let head_text = text(&head).unwrap_or_default();
        let Some(manifest) = head.get(render::segments::MANIFEST_KEY) else {
            return head_text;
        };
        let manifest =
            render::segments::parse_manifest(secret, manifest).expect("the head's manifest");
        let segments: BTreeMap<String, String> = manifest
            .segments
            .iter()
            .filter_map(|entry| Some((entry.secret.clone(), text(&data(&entry.secret)?)?)))
            .collect();
        render::segments::assemble(&head_text, &manifest, |name| {
            segments.get(name).map(String::as_str)
        })
        .unwrap_or_default()
    }
}

/// The write requests counted since [`Cluster::count_writes`].
pub struct Writes<'a> {
    cluster: &'a Cluster,
    before: WriteCounts,
}

impl Writes<'_> {
    /// Every `(verb, resource)` written since, with its count.
    pub fn since(&self) -> Vec<((String, String), u64)> {
        self.cluster
            .write_counts()
            .into_iter()
            .filter_map(|(key, now)| {
                let added = now - self.before.get(&key).copied().unwrap_or_default();
                (added > 0).then_some((key, added))
            })
            .collect()
    }

    /// Writes of one resource since, by any verb.
    pub fn of(&self, resource: &str) -> u64 {
        self.since()
            .into_iter()
            .filter(|((_, r), _)| r == resource)
            .map(|(_, count)| count)
            .sum()
    }
}

/// Write requests from kube-apiserver's `apiserver_request_total`, by (lower-case verb,
/// resource[/subresource]), without the control plane's own (see [`CONTROL_PLANE_WRITERS_OWN`]).
fn apiserver_write_counts(metrics: &str) -> WriteCounts {
    let mut counts = WriteCounts::new();
    for line in metrics.lines() {
        let Some(rest) = line.strip_prefix("apiserver_request_total{") else {
            continue;
        };
        let Some((labels, value)) = rest.rsplit_once("} ") else {
            continue;
        };
        let label = |name: &str| {
            labels
                .split(',')
                .find_map(|pair| pair.strip_prefix(name)?.strip_prefix("=\""))
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or_default()
                .to_owned()
        };
        let verb = label("verb").to_lowercase();
        if !matches!(
            verb.as_str(),
            "create" | "update" | "patch" | "apply" | "delete" | "deletecollection"
        ) || !label("dry_run").is_empty()
        {
            continue;
        }
        let resource = match label("subresource").as_str() {
            "" => label("resource"),
            sub => format!("{}/{sub}", label("resource")),
        };
        if CONTROL_PLANE_WRITERS_OWN.contains(&resource.as_str()) {
            continue;
        }
        let count = value.trim().parse::<f64>().unwrap_or_default() as u64;
        *counts.entry((verb, resource)).or_default() += count;
    }
    counts
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `(kind, namespace, name)` of an object.
fn identity(o: &Value) -> (String, String, String) {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (
        text(&o["kind"]),
        text(&o["metadata"]["namespace"]),
        text(&o["metadata"]["name"]),
    )
}

/// Whether every field of `want` has the same value in `have` (maps may have more keys).
pub fn contains(want: &Value, have: &Value, path: &str) -> Result<(), String> {
    match (want, have) {
        (Value::Object(w), Value::Object(h)) => {
            for (k, v) in w {
                let here = format!("{path}.{k}");
                match h.get(k) {
                    Some(hv) => contains(v, hv, &here)?,
                    // The API server drops empty values (`data: {}` of an empty Secret).
                    None if v.is_null() || v.as_object().is_some_and(|o| o.is_empty()) => {}
                    None => return Err(format!("{here}: missing, want {v}")),
                }
            }
            Ok(())
        }
        (Value::Array(w), Value::Array(h)) if w.len() == h.len() => w
            .iter()
            .zip(h)
            .enumerate()
            .try_for_each(|(i, (wv, hv))| contains(wv, hv, &format!("{path}[{i}]"))),
        // YAML numbers may come back as floats or strings of the same value.
        (Value::Number(w), Value::Number(h)) if w.as_f64() == h.as_f64() => Ok(()),
        _ if want == have => Ok(()),
        _ => Err(format!("{path}: want {want}, have {have}")),
    }
}

/// Polls `check` until it succeeds; panics with its last complaint after `timeout`.
pub fn eventually<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Result<T, String>,
) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        match check() {
            Ok(v) => return v,
            Err(e) if Instant::now() >= deadline => panic!("{what}: not within {timeout:?}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

pub fn agent_operator(args: &[&str], stdin: Option<&str>) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-operator"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agent-operator");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).expect("write stdin");
    }
    drop(input);
    child.wait_with_output().expect("agent-operator")
}

/// `agent-operator run` against a cluster, its output going to a file; killed when dropped.
pub struct OperatorProcess {
    child: Child,
    pub log: PathBuf,
}

impl OperatorProcess {
    pub fn start(cluster: &Cluster, log_level: &str, extra: &[&str]) -> OperatorProcess {
        Self::start_with(cluster, &cluster.kubeconfig, log_level, extra)
    }

    /// [`OperatorProcess::start`] with another kubeconfig (a `testenv::Proxy`'s, say).
    pub fn start_with(
        cluster: &Cluster,
        kubeconfig: &Path,
        log_level: &str,
        extra: &[&str],
    ) -> OperatorProcess {
        let name: String = extra
            .join("_")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let log = cluster.dir.join(format!("operator-{name}.log"));
        let file = std::fs::File::create(&log).expect("log file");
        // Loopback and a free port, unless the test chose: the default `:8080` would clash
        // between tests running at the same time.
        let metrics = if extra
            .iter()
            .any(|a| a.starts_with("--metrics-listen-address"))
        {
            None
        } else {
            Some("--metrics-listen-address=127.0.0.1:0")
        };
        let child = Command::new(env!("CARGO_BIN_EXE_agent-operator"))
            .arg("run")
            .args(metrics)
            .args(extra)
            .env("KUBECONFIG", kubeconfig)
            .env("RUST_LOG", log_level)
            .env("NO_COLOR", "1")
            .current_dir(root())
            .stdin(Stdio::null())
            .stdout(file.try_clone().expect("log file"))
            .stderr(file)
            .spawn()
            .expect("spawn agent-operator run");
        OperatorProcess { child, log }
    }

    /// The sum of the samples of `name` on the operator's /metrics (the address it logged).
    pub fn metric(&self, name: &str) -> f64 {
        self.try_metric(name).unwrap_or_else(|| {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            panic!("no metrics address in the operator's log:\n{log}")
        })
    }

    /// [`OperatorProcess::metric`], or `None` while the operator has not logged its metrics
    /// address yet (it is starting).
    pub fn try_metric(&self, name: &str) -> Option<f64> {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let addr = log
            .lines()
            .filter(|l| l.contains("serving HTTP") && l.contains("metrics=true"))
            .find_map(|l| l.split_whitespace().find_map(|f| f.strip_prefix("addr=")))?
            .to_owned();
        let mut stream = std::net::TcpStream::connect(&addr).expect("connect to /metrics");
        stream
            .write_all(b"GET /metrics HTTP/1.0\r\nHost: operator\r\n\r\n")
            .expect("request /metrics");
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stream, &mut text).expect("read /metrics");
        text.lines()
            .filter(|l| {
                l.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with('{'))
            })
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>()
            .into()
    }

    /// Sends SIGTERM and waits for a clean exit.
    pub fn stop(mut self) -> String {
        let pid = self.child.id().to_string();
        let status = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        assert!(status.success());
        let exit = eventually(
            "the operator exits on SIGTERM",
            Duration::from_secs(30),
            || {
                self.child
                    .try_wait()
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| "still running".to_owned())
            },
        );
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        assert!(exit.success(), "operator exited with {exit}:\n{log}");
        log
    }
}

impl Drop for OperatorProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub fn decode_base64(s: &str) -> String {
    String::from_utf8_lossy(&decode_base64_bytes(s)).into_owned()
}

pub fn decode_base64_bytes(s: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .expect("base64 from the API server")
}
