//! The `scripts/control-plane` contract: one line with the URL once ready, both kubeconfigs,
//! the audit log, and a clean stop (processes, data, kubeconfigs) when its standard input
//! closes. Runs only when the control-plane backend is selected.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use testenv::{Backend, control_plane_script};

#[test]
fn serves_until_stdin_closes_then_cleans_up() {
    if !testenv::backends().contains(&Backend::ControlPlane) {
        return;
    }
    let scratch = std::env::temp_dir().join(format!("control-plane-script-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let kubeconfig = scratch.join("kubeconfig");
    let operator_kubeconfig = PathBuf::from(format!("{}.operator", kubeconfig.display()));
    let audit_log = scratch.join("audit.log");
    let data = scratch.join("data");

    let mut child = Command::new(control_plane_script())
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--dir")
        .arg(&data)
        .arg("--audit-log")
        .arg(&audit_log)
        .arg("--stop-on-eof")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    assert!(
        line.starts_with("control-plane serving at https://127.0.0.1:"),
        "{line}"
    );
    assert!(kubeconfig.is_file() && operator_kubeconfig.is_file());

    let namespaces = Command::new(std::env::var_os("KUBECTL").unwrap_or("kubectl".into()))
        .env("KUBECONFIG", &kubeconfig)
        .args(["get", "namespace", "kube-system", "-o", "name"])
        .output()
        .unwrap();
    assert!(namespaces.status.success(), "{namespaces:?}");
    assert_eq!(
        String::from_utf8_lossy(&namespaces.stdout).trim(),
        "namespace/kube-system"
    );
    let audit = std::fs::read_to_string(&audit_log).unwrap();
    assert!(
        audit
            .lines()
            .any(|event| event.contains("\"/api/v1/namespaces/kube-system\"")
                && event.contains("\"username\":\"admin\"")),
        "no audit event for the request in {}",
        audit_log.display()
    );

    drop(child.stdin.take());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "still running after stdin closed"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "{status}");
    assert!(lines.next().is_none(), "the URL line is the only output");
    assert!(!kubeconfig.exists() && !operator_kubeconfig.exists());
    // --dir keeps the data (and the logs) for a look afterwards.
    assert!(data.join("logs/kube-apiserver.log").is_file());
    std::fs::remove_dir_all(&scratch).unwrap();
}
