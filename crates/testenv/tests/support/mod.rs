//! Helpers shared by the test binaries of this crate.
#![allow(dead_code)] // Each test binary uses a different subset.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ObjectMeta, PostParams};
use testenv::TestEnv;
use tokio::io::AsyncWriteExt;

/// The repository's root directory.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shared read-only data beside the checkout (`../shared`, as CI lays it out).
pub fn shared_upstream() -> PathBuf {
    let path = repo_root().join("../shared/upstream");
    assert!(
        path.is_dir(),
        "{} is missing: the upstream examples live in ../shared beside the checkout",
        path.display()
    );
    path
}

/// Runs kubectl against `env` with `args`, feeding `stdin` when given, and returns its output.
pub async fn kubectl(env: &TestEnv, args: &[&str], stdin: Option<&str>) -> Output {
    let mut command = tokio::process::Command::from(env.kubectl());
    command
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .expect("kubectl runs (set KUBECTL to use another binary)");
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        pipe.write_all(input.as_bytes())
            .await
            .expect("writing kubectl's input");
    }
    child.wait_with_output().await.expect("waiting for kubectl")
}

/// Runs kubectl and fails the test, with everything kubectl said, unless it succeeds.
pub async fn kubectl_ok(env: &TestEnv, args: &[&str], stdin: Option<&str>) -> Output {
    let output = kubectl(env, args, stdin).await;
    assert!(
        output.status.success(),
        "[{}] kubectl {} failed ({}):\n{}{}",
        env.backend(),
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Creates the namespace unless it exists (tests sharing the control plane may race for it).
pub async fn ensure_namespace(env: &TestEnv, name: &str) {
    let namespace = Namespace {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    match Api::<Namespace>::all(env.client())
        .create(&PostParams::default(), &namespace)
        .await
    {
        Ok(_) => {}
        Err(kube::Error::Api(status)) if status.code == 409 => {}
        Err(error) => panic!("[{}] creating namespace {name}: {error}", env.backend()),
    }
}

/// Installs our CRDs (server-side apply) and waits until every one is Established.
pub async fn install_crds(env: &TestEnv) -> Output {
    let crds = repo_root().join("deploy/crds/crds.yaml");
    let crds = crds.to_str().expect("the checkout's path is UTF-8");
    let applied = kubectl_ok(
        env,
        &[
            "apply",
            "--server-side",
            "--field-manager=testenv",
            "-f",
            crds,
        ],
        None,
    )
    .await;
    kubectl_ok(
        env,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "-f",
            crds,
        ],
        None,
    )
    .await;
    applied
}

/// Warnings kubectl relayed from the server (`Warning: ...` lines on stderr).
pub fn warnings(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|line| line.starts_with("Warning:"))
        .map(str::to_string)
        .collect()
}

/// Polls `probe` every 200 ms until it returns `Ok`, failing the test after `limit` with the
/// last error it saw.
pub async fn eventually<T, F, Fut>(what: &str, limit: std::time::Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let start = std::time::Instant::now();
    loop {
        match probe().await {
            Ok(value) => return value,
            Err(last) if start.elapsed() > limit => panic!("{what}: not after {limit:?}: {last}"),
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(200)).await,
        }
    }
}

/// Runs the real controller, reconciling `namespace` only, until `checks` completes; both run
/// in the calling task (the operator's future is not `Sync`).
pub async fn beside_operator(env: &TestEnv, namespace: &str, checks: impl Future<Output = ()>) {
    use controller::metrics::Metrics;
    use controller::{Operator, OperatorConfig};

    let mut config = OperatorConfig::new("test");
    config.namespace = Some(namespace.to_owned());
    let metrics = Metrics::new(&mut prometheus_client::registry::Registry::default());
    let operator = Operator::new(env.client(), config, metrics);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = operator.run(async move {
        let _ = stopped.await;
    });
    let checks = async {
        checks.await;
        let _ = stop.send(());
    };
    let (ran, ()) = tokio::join!(running, checks);
    ran.expect("the operator ran until the checks were done");
}
