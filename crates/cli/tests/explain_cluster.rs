//! `explain` without `-f` reads the cluster KUBECONFIG points at with the kube client and
//! explains exactly what it explains from the same manifests on disk, on testkube and on the
//! real control plane, the examples applied with kubectl. It only reads: on testkube, no
//! request but get and list reaches the server, and only the referenced Secrets are read
//! whole. kubectl is required: without it this test fails, it is never skipped.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use testenv::{Backend, TestEnv};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn kubectl(env: &TestEnv, args: &[&str]) -> String {
    let output = env
        .kubectl()
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("kubectl is required by this test: {e}"));
    assert!(
        output.status.success(),
        "{}: kubectl {args:?} failed:\n{}",
        env.backend(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `agent-operator explain ARGS`, with KUBECONFIG pointing at `kubeconfig` (or nowhere).
fn explain(kubeconfig: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-operator"));
    command
        .arg("explain")
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null());
    match kubeconfig {
        Some(path) => command.env("KUBECONFIG", path),
        None => command.env("KUBECONFIG", "/nonexistent"),
    };
    command.output().expect("run agent-operator")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

async fn explains_like_the_files(backend: Backend) {
    let env = TestEnv::start(backend).await.expect("start the backend");
    kubectl(&env, &["apply", "--server-side", "-f", "deploy/crds/"]);
    kubectl(
        &env,
        &[
            "wait",
            "--for",
            "condition=Established",
            "crd",
            "--all",
            "--timeout",
            "60s",
        ],
    );
    kubectl(&env, &["apply", "-f", "examples/"]);
    // An unrelated Secret: its value is never read.
    kubectl(
        &env,
        &[
            "create",
            "secret",
            "generic",
            "unrelated",
            "-n",
            "shop",
            "--from-literal=k=v",
        ],
    );
    let counters = env.testkube().map(|server| {
        let counters = server.counters();
        counters.reset();
        counters
    });

    let objects = [
        "servicemonitor/shop/checkout",
        "podmonitor/shop/payments",
        "probe/monitoring/storefront",
        "metricsinstance/monitoring/primary",
        "logsinstance/monitoring/primary",
        "integration/monitoring/node-exporter",
    ];
    for object in objects {
        for format in ["json", "text"] {
            let from_cluster = explain(Some(env.kubeconfig()), &[object, "-o", format]);
            assert!(
                from_cluster.status.success(),
                "{backend}: {object}: {}",
                text(&from_cluster.stderr)
            );
            let from_files = explain(None, &[object, "-f", "examples/", "-o", format]);
            assert!(from_files.status.success(), "{object}");
            let answer = text(&from_cluster.stdout);
            if format == "json" {
                assert!(
                    answer.contains("\"result\": \"rendered\""),
                    "{backend}: {object}: {answer}"
                );
            }
            pretty_assertions::assert_eq!(
                answer,
                text(&from_files.stdout),
                "{backend}: {object} -o {format}"
            );
        }
    }

    // What explain asked of the server so far; kubectl's label below is not explain's.
    let mut requests = counters.as_ref().map(|c| c.snapshot()).unwrap_or_default();
    // A monitor the instance does not select: the same reason as from the files.
    kubectl(
        &env,
        &[
            "label",
            "servicemonitor",
            "-n",
            "shop",
            "checkout",
            "instance=canary",
            "--overwrite",
        ],
    );
    if let Some(counters) = &counters {
        counters.reset();
    }
    let from_cluster = explain(Some(env.kubeconfig()), &["servicemonitor/shop/checkout"]);
    let answer = text(&from_cluster.stdout);
    assert!(
        from_cluster.status.success(),
        "{}",
        text(&from_cluster.stderr)
    );
    assert!(
        answer.contains("instance") && answer.contains("canary") && !answer.contains("rendered"),
        "{backend}: {answer}"
    );

    let missing = explain(Some(env.kubeconfig()), &["probe/shop/nope"]);
    assert!(!missing.status.success());
    assert!(
        text(&missing.stderr).contains("Probe shop/nope"),
        "{backend}: {}",
        text(&missing.stderr)
    );

    if let Some(counters) = counters {
        for (request, count) in counters.snapshot() {
            *requests.entry(request).or_default() += count;
        }
        let writes: Vec<_> = requests
            .iter()
            .filter(|((verb, _), _)| !matches!(verb.as_str(), "get" | "list"))
            .collect();
        assert!(writes.is_empty(), "explain only reads: {writes:?}");
        // One explain per object and format above, plus the two after: each reads the two
        // Secrets the agent refers to (the MetricsInstance's mimir-credentials, the
        // Integration's redis-auth), not `unrelated`.
        let explains = (objects.len() * 2 + 2) as u64;
        let secret_gets = requests[&("get".to_owned(), "secrets".to_owned())];
        assert_eq!(secret_gets, 2 * explains, "{requests:?}");
    }
}

/// On testkube as well as `testenv::backends()`: its request counters show that explain only
/// reads, and which Secrets it reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_from_a_cluster_equals_explain_from_the_files() {
    let mut backends = testenv::backends();
    if !backends.contains(&Backend::TestKube) {
        backends.insert(0, Backend::TestKube);
    }
    for backend in backends {
        explains_like_the_files(backend).await;
    }
}
