//! `scripts/demo --testkube`, the README's first command, runs to the end without a terminal and
//! shows what it promises: the objects the operator created, the agent's status, its Events, and
//! the config following a live edit; and it leaves nothing behind. `scripts/demo` on a real node
//! shows the agents Running and their samples arriving in Prometheus, and removes its cluster.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn the_demo_shows_the_operator_at_work_and_cleans_up() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(root.join("scripts/demo"))
        .arg("--testkube")
        .env("AGENT_OPERATOR_BIN", env!("CARGO_BIN_EXE_agent-operator"))
        .current_dir(&root)
        .stdin(Stdio::null())
        .output()
        .expect("scripts/demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "scripts/demo failed ({}):\n{stdout}\n{stderr}",
        out.status
    );

    for shown in [
        "secret/agent-config",
        "service/agent-operated",
        "statefulset.apps/agent-shard-1",
        "daemonset.apps/agent-logs",
        "deployment.apps/agent-integrations-deploy",
        "type: Reconciled",
        "type: Available",
        "Applied",
        "job_name: serviceMonitor/shop/checkout/0",
    ] {
        assert!(stdout.contains(shown), "{shown:?} missing from:\n{stdout}");
    }
    let (before, after) = stdout
        .split_once("A live edit")
        .expect("the live edit step");
    assert!(before.contains("scrape_interval: '15s'"), "{before}");
    let (edit, explained) = after
        .split_once("agent-operator explain, against the cluster")
        .expect("the explain step");
    assert!(edit.contains("scrape_interval: '45s'"), "{edit}");
    // explain read the cluster: the checkout monitor's jobs, then why payments, relabelled,
    // is no longer selected.
    let (rendered, relabelled) = explained
        .split_once("instance=canary --overwrite")
        .expect("the relabelling");
    assert!(
        rendered.contains("ServiceMonitor shop/checkout")
            && rendered.contains("selected, jobs")
            && rendered.contains("serviceMonitor/shop/checkout/0"),
        "{rendered}"
    );
    assert!(
        relabelled.contains("PodMonitor shop/payments")
            && relabelled.contains("not selected")
            && relabelled.contains("instance=canary"),
        "{relabelled}"
    );

    // Its scratch files (the kubeconfig with its token) are gone; the logs are kept, and named.
    let kubeconfig = stdout
        .split("(its kubeconfig: ")
        .nth(1)
        .and_then(|rest| rest.split(", removed on exit)").next())
        .expect("the demo names its kubeconfig");
    assert!(
        !Path::new(kubeconfig).exists(),
        "{kubeconfig} is still there after the demo"
    );
    let logs = stderr
        .split("demo: logs kept in ")
        .nth(1)
        .and_then(|rest| rest.split(" (").next())
        .expect("the demo says where its logs are");
    let operator_log = std::fs::read_to_string(Path::new(logs).join("operator.log"))
        .expect("the operator's log is kept");
    std::fs::remove_dir_all(logs).expect("remove the demo's logs");
    assert!(
        operator_log.contains("agent-config"),
        "the operator's log: {operator_log}"
    );
}

/// `scripts/demo` on a real node: the operator installed from deploy/ runs as pods, the agents
/// it deploys are Running, their samples arrive in Prometheus with the ServiceMonitor's labels,
/// and then with the edit's; the cluster is gone afterwards.
#[test]
fn the_demo_on_a_node_shows_agents_running_and_samples_arriving() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(root.join("scripts/demo"))
        .env("AGENT_OPERATOR_BIN", env!("CARGO_BIN_EXE_agent-operator"))
        .current_dir(&root)
        .stdin(Stdio::null())
        .output()
        .expect("scripts/demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "scripts/demo failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let (_, running) = stdout
        .split_once("== The agents running")
        .expect("the agents step");
    let (pods, samples) = running
        .split_once("== Samples arriving in Prometheus")
        .expect("the samples step");
    for pod in [
        "agent-0 ",
        "agent-1 ",
        "agent-shard-1-0 ",
        "agent-shard-1-1 ",
        "agent-logs-",
    ] {
        let line = pods
            .lines()
            .find(|line| line.starts_with(pod))
            .unwrap_or_else(|| panic!("{pod:?} not shown:\n{pods}"));
        assert!(line.contains("2/2") && line.contains("Running"), "{line}");
    }
    let (before, after) = samples.split_once("A live edit").expect("the edit step");
    let sample = |text: &str, edited: bool| {
        text.lines().any(|line| {
            line.starts_with("{__name__=\"up\"")
                && line.contains("team=\"e2e\"")
                && line.contains("__replica__=\"replica-")
                && line.contains("edited=\"yes\"") == edited
                && line.ends_with(" 1")
        })
    };
    assert!(sample(before, false), "no sample shown:\n{before}");
    assert!(sample(after, true), "no edited sample shown:\n{after}");
    assert!(
        after.contains("selected, jobs: serviceMonitor/shop/node-exporter/0"),
        "{after}"
    );

    // The cluster is gone (its network namespace), and so is its kubeconfig.
    let name = stdout
        .lines()
        .find_map(|line| line.strip_prefix("cluster ")?.split_once(" ready: "))
        .map(|(name, _)| name)
        .expect("the demo shows its cluster's line");
    assert!(
        !Path::new("/run/netns").join(name).exists(),
        "the cluster {name} is still there after the demo"
    );
    let kubeconfig = stdout
        .split("(its kubeconfig: ")
        .nth(1)
        .and_then(|rest| rest.split(", removed on exit)").next())
        .expect("the demo names its kubeconfig");
    assert!(
        !Path::new(kubeconfig).exists(),
        "{kubeconfig} is still there"
    );
    let logs = stderr
        .split("demo: logs kept in ")
        .nth(1)
        .and_then(|rest| rest.split(" (").next())
        .expect("the demo says where its logs are");
    std::fs::remove_dir_all(logs).expect("remove the demo's logs");
}

/// The demo builds what it runs in the foreground, with its progress shown (here the control
/// plane, into an empty cache), and a demo stopped during that build stops the build too: no
/// `scripts/build-control-plane` or `go build` is left running.
#[test]
fn the_demo_shows_the_control_plane_build_and_stops_it_when_stopped() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cache =
        std::env::temp_dir().join(format!("agent-operator-demo-cache-{}", std::process::id()));
    std::fs::create_dir_all(&cache).expect("an empty cache");
    let mut demo = Command::new(root.join("scripts/demo"))
        .env("AGENT_OPERATOR_BIN", env!("CARGO_BIN_EXE_agent-operator"))
        .env("AGENT_OPERATOR_CACHE", &cache)
        .current_dir(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("scripts/demo");

    // Both streams, line by line, into one channel (the build reports on stderr).
    let (lines, received) = std::sync::mpsc::channel::<String>();
    for stream in [
        Box::new(demo.stdout.take().expect("stdout")) as Box<dyn std::io::Read + Send>,
        Box::new(demo.stderr.take().expect("stderr")),
    ] {
        let lines = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
    }
    drop(lines);
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut shown = Vec::new();
    let started = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match received.recv_timeout(left) {
            Ok(line) => {
                let building = line.contains("control-plane: building");
                shown.push(line);
                if building {
                    break true;
                }
            }
            Err(_) => break false,
        }
    };
    if !started {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(demo.id().to_string())
            .status();
        let _ = demo.wait();
        let _ = std::fs::remove_dir_all(&cache);
    }
    assert!(
        started,
        "the demo did not show the control-plane build starting within 120 s:\n{}",
        shown.join("\n")
    );
    // Let go build start its compilers, then stop the demo as a user or CI would.
    std::thread::sleep(Duration::from_secs(3));
    let kill = Command::new("kill")
        .arg("-TERM")
        .arg(demo.id().to_string())
        .status()
        .expect("kill");
    assert!(kill.success());
    let status = demo.wait().expect("the demo exits");
    assert!(
        !status.success(),
        "a stopped demo reports failure: {status}"
    );

    // Everything the build started carries AGENT_OPERATOR_CACHE=<cache> in its environment.
    let marker = format!("AGENT_OPERATOR_CACHE={}", cache.display());
    let deadline = Instant::now() + Duration::from_secs(20);
    let left = loop {
        let left = processes_with_env(&marker);
        if left.is_empty() || Instant::now() > deadline {
            break left;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    let _ = std::fs::remove_dir_all(&cache);
    assert!(
        left.is_empty(),
        "still running after the demo stopped: {left:#?}"
    );
}

/// The command lines of the processes whose environment holds `entry`.
fn processes_with_env(entry: &str) -> Vec<String> {
    let mut found = Vec::new();
    for process in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let path = process.path();
        let Ok(environ) = std::fs::read(path.join("environ")) else {
            continue;
        };
        if environ.split(|b| *b == 0).any(|e| e == entry.as_bytes()) {
            let cmdline = std::fs::read(path.join("cmdline")).unwrap_or_default();
            found.push(String::from_utf8_lossy(&cmdline).replace('\0', " "));
        }
    }
    found
}
