//! The command blocks of the docs are run, in order, against the real control plane
//! (`scripts/control-plane`: etcd, kube-apiserver, kube-controller-manager), and any error fails
//! the test: docs/getting-started.md from an empty cluster to a scraped ServiceMonitor, then
//! docs/troubleshooting.md, docs/security.md and docs/alloy.md (whose "Leaving the operator"
//! exports the agent and deletes it: last) on what it built.
//!
//! In the Markdown, a fenced block's info string says what the test does with it:
//! * `sh`: run with bash (`set -euo pipefail`) in a scratch directory where `deploy/` and
//!   `examples/` are the repository's, `agent-operator` is on PATH and KUBECONFIG is the
//!   cluster's admin. A block whose lines start with `$ ` is a session: each command runs on its
//!   own, and the lines after it, when there are any, are its exact standard output.
//! * `yaml file=PATH`: written to PATH in the scratch directory (the page says to save it there).
//! * `sh needs-node`: needs a kubelet (pod logs), which the control plane does not have: run only
//!   by the second test, which runs docs/getting-started.md on a real node (`scripts/cluster`,
//!   the images of `scripts/build-images`), where the operator's own pods run.
//! * `sh untested: REASON`: not run, for the reason given.
//!
//! The control plane has no kubelet, so nothing runs the Deployment's pods: after the block that
//! installs the operator, the test starts `agent-operator` with the Deployment's own arguments,
//! authenticated as its ServiceAccount, as its pod would.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use testenv::{Backend, Cluster, TestEnv};

mod support;
use support::root;

/// One fenced block of a Markdown file.
#[derive(Debug)]
struct Block {
    /// `file:line` of the opening fence.
    place: String,
    info: String,
    body: String,
}

fn blocks(file: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String, String)> = None;
    for (index, line) in text.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((index + 1, info.trim().to_owned(), String::new())),
            (Some((start, info, body)), Some("")) => {
                blocks.push(Block {
                    place: format!("{file}:{start}"),
                    info: std::mem::take(info),
                    body: std::mem::take(body),
                });
                open = None;
            }
            (Some((_, _, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "{file}: a code block is not closed");
    blocks
}

/// What the test does with a block.
#[derive(Debug, PartialEq)]
enum Kind {
    Run,
    File(String),
    NeedsNode,
    Untested,
    /// Not a command: another language, an output sample.
    Other,
}

fn kind(block: &Block) -> Kind {
    let mut words = block.info.splitn(2, ' ');
    let language = words.next().unwrap_or_default();
    let rest = words.next().unwrap_or_default().trim();
    match (language, rest) {
        ("sh", "") => Kind::Run,
        ("sh", "needs-node") => Kind::NeedsNode,
        ("sh", reason) if reason.starts_with("untested:") => {
            assert!(
                reason.len() > "untested:".len() + 3,
                "{}: an untested block says why",
                block.place
            );
            Kind::Untested
        }
        ("sh", other) => panic!("{}: unknown marker {other:?}", block.place),
        ("yaml", rest) if rest.starts_with("file=") => Kind::File(rest["file=".len()..].to_owned()),
        _ => Kind::Other,
    }
}

/// The pages this test runs, in order, on one cluster.
const RUN: [&str; 4] = [
    "docs/getting-started.md",
    "docs/troubleshooting.md",
    "docs/security.md",
    "docs/alloy.md",
];

/// Every Markdown page for users.
fn pages() -> Vec<String> {
    let mut pages = vec!["README.md".to_owned()];
    for dir in ["docs", "crates/testkube", "crates/testenv"] {
        for entry in std::fs::read_dir(root().join(dir))
            .expect("docs dir")
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") {
                pages.push(format!("{dir}/{name}"));
            }
        }
    }
    pages.sort();
    pages
}

/// Every `sh` block of the docs is run by this test or says why not; the docs cite no section of
/// our internal specification, which users do not have.
#[test]
fn every_command_block_is_run_or_says_why_not() {
    let mut problems = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(root().join(&page)).expect("page");
        for (index, line) in text.lines().enumerate() {
            if line.contains("(spec ") {
                problems.push(format!(
                    "{page}:{}: cites the internal spec: {line}",
                    index + 1
                ));
            }
        }
        if RUN.contains(&page.as_str()) {
            continue;
        }
        for block in blocks(&page) {
            if kind(&block) == Kind::Run {
                problems.push(format!(
                    "{}: a command block no test runs: run it (crates/cli/tests/docs.rs) or mark it \
                     `sh untested: REASON`",
                    block.place
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The operator as the Deployment's pod runs it; SIGTERM and wait on drop.
struct Operator(Child);

impl Operator {
    /// `agent-operator` with the args of deploy/operator/deployment.yaml (its listeners on
    /// loopback ports of the system's choosing), as the operator's ServiceAccount.
    fn start(kubeconfig: &Path, log: &Path) -> Operator {
        let deployment = std::fs::read_to_string(root().join("deploy/operator/deployment.yaml"))
            .expect("deploy/operator/deployment.yaml");
        let args: Vec<String> = deployment
            .split("args:\n")
            .nth(1)
            .expect("the Deployment's args")
            .lines()
            .map_while(|line| line.trim().strip_prefix("- "))
            .map(|arg| match arg.split_once('=') {
                Some((flag, _)) if flag.ends_with("-listen-address") => {
                    format!("{flag}=127.0.0.1:0")
                }
                _ => arg.to_owned(),
            })
            .collect();
        assert_eq!(args.first().map(String::as_str), Some("run"), "{args:?}");
        let file = std::fs::File::create(log).expect("operator log");
        let child = Command::new(env!("CARGO_BIN_EXE_agent-operator"))
            .args(&args)
            .env("KUBECONFIG", kubeconfig)
            .env("POD_NAME", "grafana-agent-operator-docs-test")
            .stdin(Stdio::null())
            .stdout(file.try_clone().expect("log"))
            .stderr(file)
            .spawn()
            .expect("agent-operator run");
        Operator(child)
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

struct Shell {
    dir: PathBuf,
    kubeconfig: PathBuf,
    path: String,
}

impl Shell {
    /// Runs `script` with bash; its stdout if it succeeded.
    fn try_run(&self, script: &str) -> Option<String> {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("set -euo pipefail\n{script}"))
            .current_dir(&self.dir)
            .env("KUBECONFIG", &self.kubeconfig)
            .env("PATH", &self.path)
            .stdin(Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs `script` with bash; its stdout, or a panic naming `place` with both outputs.
    fn run(&self, place: &str, script: &str) -> String {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("set -euo pipefail\n{script}"))
            .current_dir(&self.dir)
            .env("KUBECONFIG", &self.kubeconfig)
            .env("PATH", &self.path)
            .stdin(Stdio::null())
            .output()
            .expect("bash");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{place}: failed ({}):\n{script}\n--- stdout\n{stdout}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }
}

fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(90);
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn getting_started_and_troubleshooting_run_on_the_control_plane() {
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let env = runtime
        .block_on(TestEnv::start(Backend::ControlPlane))
        .expect("the control plane (scripts/control-plane)");
    let dir = std::env::temp_dir().join(format!("agent-operator-docs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    for linked in ["deploy", "examples"] {
        std::os::unix::fs::symlink(root().join(linked), dir.join(linked)).expect("symlink");
    }
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_agent-operator"))
        .parent()
        .expect("bin dir");
    let shell = Shell {
        dir: dir.clone(),
        kubeconfig: env.kubeconfig().to_owned(),
        path: format!(
            "{}:{}",
            bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    };
    let operator_kubeconfig = env
        .operator_kubeconfig()
        .expect("the control plane's operator identity")
        .to_owned();
    let mut operator = None;
    let mut ran = 0;
    for page in RUN {
        ran += run_page(&shell, page, false, || {
            if operator.is_none() {
                operator = Some(Operator::start(
                    &operator_kubeconfig,
                    &dir.join("operator.log"),
                ));
                // Its pod is ready once it holds the Lease (or a standby, with another).
                wait_for("the operator's Lease", || {
                    Command::new("kubectl")
                        .args(["-n", "agent-operator", "get", "lease"])
                        .arg("grafana-agent-operator")
                        .env("KUBECONFIG", env.kubeconfig())
                        .output()
                        .is_ok_and(|o| o.status.success())
                });
            }
        });
    }
    assert!(
        operator.is_some(),
        "docs/getting-started.md never installs the operator with `kubectl apply --server-side -k deploy/`"
    );
    drop(operator);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(ran >= 8, "only {ran} blocks ran");
}

/// Runs the blocks of `page` in order (the `needs-node` ones too when `node`); after the block
/// that installs the operator, calls `installed`. The number of command blocks run.
fn run_page(shell: &Shell, page: &str, node: bool, mut installed: impl FnMut()) -> usize {
    let mut ran = 0;
    for block in blocks(page) {
        match kind(&block) {
            Kind::File(path) => {
                let path = shell.dir.join(path);
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::write(&path, &block.body).expect("write the page's file");
            }
            Kind::Run if block.body.lines().any(|l| l.starts_with("$ ")) => {
                run_session(shell, &block);
                ran += 1;
            }
            Kind::Run | Kind::NeedsNode if node || kind(&block) == Kind::Run => {
                shell.run(&block.place, &block.body);
                ran += 1;
                if block
                    .body
                    .lines()
                    .any(|l| l.trim() == "kubectl apply --server-side -k deploy/")
                {
                    installed();
                }
            }
            Kind::Run | Kind::NeedsNode | Kind::Untested | Kind::Other => {}
        }
    }
    ran
}

/// docs/getting-started.md on a real node, its `needs-node` blocks included: the operator runs
/// as the Deployment that `kubectl apply -k deploy/` creates (its image built from this test's
/// binary), and the agent the page creates runs until its GrafanaAgent is Available.
#[test]
fn getting_started_runs_on_a_node() {
    let cluster = Cluster::start(&support::node_images())
        .unwrap_or_else(|e| panic!("starting the cluster (scripts/cluster): {e}"));
    let dir = std::env::temp_dir().join(format!("agent-operator-docs-node-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    for linked in ["deploy", "examples"] {
        std::os::unix::fs::symlink(root().join(linked), dir.join(linked)).expect("symlink");
    }
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_agent-operator"))
        .parent()
        .expect("bin dir");
    let shell = Shell {
        dir: dir.clone(),
        kubeconfig: cluster.kubeconfig().to_owned(),
        path: format!(
            "{}:{}",
            bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    };
    let mut installed = false;
    let ran = run_page(&shell, "docs/getting-started.md", true, || {
        installed = true;
        // What a user waits for before the page's next step: the Deployment rolled out and
        // one replica holding the Lease.
        shell.run(
            "the operator's rollout",
            "kubectl -n agent-operator rollout status deployment/grafana-agent-operator --timeout=300s",
        );
        wait_for("the operator's Lease", || {
            shell
                .try_run("kubectl -n agent-operator get lease grafana-agent-operator -o jsonpath='{.spec.holderIdentity}'")
                .is_some_and(|holder| !holder.is_empty())
        });
    });
    assert!(
        installed,
        "docs/getting-started.md never installs the operator with `kubectl apply --server-side -k deploy/`"
    );
    assert!(ran >= 8, "only {ran} blocks ran");
    // The agent the page describes runs: its pods Ready, the GrafanaAgent Available.
    shell.run(
        "the page's agent",
        "kubectl -n monitoring wait grafanaagent/agent --for=condition=Available --timeout=300s",
    );
    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `$ ` session: each command runs alone; the lines after it up to the next `$ ` line, when
/// there are any, are its exact standard output.
fn run_session(shell: &Shell, block: &Block) {
    let mut steps: Vec<(String, Vec<&str>)> = Vec::new();
    for line in block.body.lines() {
        match line.strip_prefix("$ ") {
            Some(command) => steps.push((command.to_owned(), Vec::new())),
            None => steps
                .last_mut()
                .unwrap_or_else(|| panic!("{}: output before the first `$ `", block.place))
                .1
                .push(line),
        }
    }
    for (command, expected) in steps {
        let place = format!("{}: `{command}`", block.place);
        let stdout = shell.run(&place, &command);
        if expected.is_empty() {
            continue;
        }
        let actual: Vec<&str> = stdout.lines().map(str::trim_end).collect();
        let expected: Vec<&str> = expected.iter().map(|l| l.trim_end()).collect();
        assert_eq!(actual, expected, "{place}: the page shows another output");
    }
}
