//! The operator's two ways in agree: the bundled examples applied to an API server with
//! `kubectl apply` and read back with `kubectl get -o yaml` (as the README suggests piping into
//! `render -f -`) render the same objects as the example files, byte for byte, except for the
//! UIDs the server gave the GrafanaAgent (owner references carry them). kubectl is required:
//! without it this test fails, it is never skipped.

mod support;

use std::process::Output;

use support::{Backend, Cluster};

fn render(args: &[&str], stdin: Option<&str>) -> Output {
    let args: Vec<&str> = std::iter::once("render")
        .chain(args.iter().copied())
        .collect();
    support::agent_operator(&args, stdin)
}

/// `uid: '<uuid>'` lines as `uid: ''`, the UID of an object not yet in a cluster; returns
/// how many were replaced.
fn without_uids(text: &str) -> (String, usize) {
    let mut replaced = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|line| match line.split_once("uid: ") {
            Some((indent, value)) if value != "''" => {
                replaced += 1;
                format!("{indent}uid: ''")
            }
            _ => line.to_owned(),
        })
        .collect();
    (lines.join("\n") + "\n", replaced)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rendering_what_a_cluster_holds_equals_rendering_the_files() {
    let cluster = Cluster::start(Backend::TestKube, "from-a-cluster").await;
    cluster.kubectl(&["apply", "-f", "examples/"]);
    let held = cluster.kubectl(&[
        "get",
        "namespaces,secrets,configmaps,grafanaagents,metricsinstances,logsinstances,podlogs,integrations,servicemonitors,podmonitors,probes",
        "-A",
        "-o",
        "yaml",
    ]);

    let from_cluster = render(&["-f", "-"], Some(&held));
    assert!(
        from_cluster.status.success(),
        "{}",
        String::from_utf8_lossy(&from_cluster.stderr)
    );
    let from_files = render(&["-f", "examples/"], None);
    assert!(from_files.status.success());
    assert_eq!(
        String::from_utf8_lossy(&from_cluster.stderr),
        String::from_utf8_lossy(&from_files.stderr),
        "the same problems are reported"
    );

    let (cluster_text, uids) = without_uids(&String::from_utf8_lossy(&from_cluster.stdout));
    assert!(
        uids > 0,
        "objects read from the server have UIDs, so owner references carry them"
    );
    let (files_text, _) = without_uids(&String::from_utf8_lossy(&from_files.stdout));
    pretty_assertions::assert_eq!(cluster_text, files_text);
}
