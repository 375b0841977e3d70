//! `scripts/demo --testkube`, the README's first command, runs to the end without a terminal and
//! shows what it promises: the objects the operator created, the agent's status, its Events, and
//! the config following a live edit; and it leaves nothing behind.

use std::path::Path;
use std::process::{Command, Stdio};

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

    let work_dir = stdout
        .split("log in ")
        .nth(1)
        .and_then(|rest| rest.split("/operator.log").next())
        .expect("the demo names its scratch directory");
    assert!(
        !Path::new(work_dir).exists(),
        "{work_dir} is still there after the demo"
    );
}
