//! Failures to reach a cluster, as `agent-operator explain` and `run` report them: one line,
//! naming the server tried, each cause once (issue 22, item 15: ~700-character lines said the
//! cause three times and never the URL).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn agent_operator(args: &[&str], kubeconfig: &Path, home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-operator"))
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", home)
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .stdin(Stdio::null())
        .output()
        .expect("run agent-operator")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "agent-operator-cluster-errors-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The `error:` line of a failed run, checked to be the only one.
fn error_line(output: &Output) -> String {
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    errors[0].to_owned()
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[test]
fn a_server_that_refuses_connections_is_named_once_on_one_line() {
    let dir = scratch("refused");
    let url = format!("https://127.0.0.1:{}", closed_port());
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {{server: '{url}', insecure-skip-tls-verify: true}}\n\
             users:\n- name: u\n  user: {{token: t}}\ncontexts:\n- name: c\n  context: {{cluster: c, user: u}}\ncurrent-context: c\n"
        ),
    )
    .expect("write kubeconfig");
    for args in [
        &["explain", "servicemonitor/shop/web"][..],
        &["run", "--metrics-listen-address=127.0.0.1:0"][..],
    ] {
        let line = error_line(&agent_operator(args, &kubeconfig, &dir));
        assert!(
            line.contains(&url),
            "{args:?}: the URL is not named: {line}"
        );
        assert_eq!(
            line.to_lowercase().matches("connection refused").count(),
            1,
            "{args:?}: {line}"
        );
        assert!(
            line.len() < 300,
            "{args:?}: {} characters: {line}",
            line.len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_cluster_configuration_is_said_once_on_one_line() {
    let dir = scratch("none");
    let kubeconfig = dir.join("no-such-kubeconfig");
    let line = error_line(&agent_operator(
        &["explain", "servicemonitor/shop/web"],
        &kubeconfig,
        &dir,
    ));
    assert_eq!(
        line.matches("no-such-kubeconfig").count(),
        1,
        "the path said once: {line}"
    );
    assert!(line.contains("no cluster to connect to"), "{line}");
    assert!(line.len() < 400, "{} characters: {line}", line.len());
    let _ = std::fs::remove_dir_all(&dir);
}
