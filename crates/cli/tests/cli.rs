//! The `agent-operator` binary as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

mod support;
use support::root;

fn agent_operator(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-operator"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .expect("run agent-operator")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 stderr")
}

#[test]
fn render_of_the_bundled_examples_matches_its_golden_files() {
    let objects = agent_operator(&["render", "-f", "examples/", "--operator-version", "v0.1.0"]);
    assert!(objects.status.success(), "{}", stderr(&objects));
    assert_eq!(
        stderr(&objects),
        "",
        "the examples render without any warning"
    );
    support::golden("testdata/examples/objects.yaml", &stdout(&objects));
    let configs = agent_operator(&[
        "render",
        "-f",
        "examples/",
        "--config",
        "--operator-version",
        "v0.1.0",
    ]);
    assert!(configs.status.success(), "{}", stderr(&configs));
    support::golden("testdata/examples/configs.yaml", &stdout(&configs));
}

#[test]
fn render_output_is_valid_kubernetes_yaml() {
    let out = agent_operator(&["render", "-f", "examples/"]);
    let text = stdout(&out);
    let docs: Vec<&str> = text
        .split("---\n")
        .filter(|d| !d.trim().is_empty())
        .collect();
    assert!(docs.len() >= 8, "{} objects", docs.len());
    for doc in docs {
        let v: serde_json::Value = serde_saphyr::from_str(doc).expect("YAML");
        for field in ["apiVersion", "kind"] {
            assert!(v[field].is_string(), "{field} in {doc}");
        }
        assert!(
            v["metadata"]["name"].is_string() && v["metadata"]["namespace"].is_string(),
            "{doc}"
        );
    }
}

#[test]
fn render_is_deterministic() {
    let a = stdout(&agent_operator(&["render", "-f", "examples/"]));
    let b = stdout(&agent_operator(&[
        "render",
        "-f",
        "examples/40-integrations.yaml",
        "-f",
        "examples/",
    ]));
    assert_eq!(a, b, "input order and duplicates do not change the output");
}

#[test]
fn agent_filter_and_missing_agent() {
    let only = agent_operator(&["render", "-f", "examples/", "--agent", "monitoring/agent"]);
    assert!(only.status.success());
    let none = agent_operator(&["render", "-f", "examples/", "--agent", "monitoring/nope"]);
    assert!(!none.status.success());
    assert!(
        stderr(&none).contains("no GrafanaAgent monitoring/nope in the input"),
        "{}",
        stderr(&none)
    );
    let bad = agent_operator(&["render", "-f", "examples/", "--agent", "nope"]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("expected NAMESPACE/NAME"));
}

#[test]
fn bad_objects_are_reported_but_do_not_stop_the_rest_unless_strict() {
    let dir = tempdir();
    std::fs::write(
        dir.join("typo.yaml"),
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {name: typo, namespace: monitoring, labels: {agent: agent}}\nspec:\n  remoteWritee: []\n",
    )
    .expect("write");
    let examples = root().join("examples");
    let args = [
        "render",
        "-f",
        examples.to_str().expect("path"),
        "-f",
        dir.to_str().expect("path"),
    ];
    let lenient = agent_operator(&args);
    assert!(lenient.status.success(), "{}", stderr(&lenient));
    let err = stderr(&lenient);
    assert!(
        err.contains("typo.yaml (document 1): MetricsInstance monitoring/typo: spec.remoteWritee: unknown field, ignored"),
        "{err}"
    );
    let mut strict_args = args.to_vec();
    strict_args.push("--strict");
    assert!(!agent_operator(&strict_args).status.success());
}

#[test]
fn nothing_to_render_fails() {
    let dir = tempdir();
    std::fs::write(dir.join("x.yaml"), "not: [valid\n").expect("write");
    let out = agent_operator(&["render", "-f", dir.to_str().expect("path")]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("not valid YAML"), "{}", stderr(&out));
    let missing = agent_operator(&["render", "-f", "does/not/exist.yaml"]);
    assert!(!missing.status.success());
    assert!(stderr(&missing).contains("does/not/exist.yaml"));
}

#[test]
fn stdin_is_read_with_a_dash() {
    let text =
        std::fs::read_to_string(root().join("examples/10-grafana-agent.yaml")).expect("example");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-operator"))
        .args(["render", "-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("name: agent-secrets"));
}

#[test]
fn crds_prints_all_or_one_group() {
    let all = stdout(&agent_operator(&["crds"]));
    let committed = std::fs::read_to_string(root().join("deploy/crds/crds.yaml")).expect("crds");
    assert_eq!(all, committed);
    let coreos = stdout(&agent_operator(&["crds", "--group", "coreos"]));
    // ServiceMonitor, PodMonitor, Probe, ScrapeConfig.
    assert_eq!(coreos.matches("kind: CustomResourceDefinition").count(), 4);
    assert!(!coreos.contains("monitoring.grafana.com"));
}

#[test]
fn crds_warn_that_the_coreos_crds_must_not_replace_prometheus_operators() {
    for args in [&["crds"][..], &["crds", "--group", "coreos"]] {
        let out = agent_operator(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("do not apply them over its own CRDs (use --group grafana)"),
            "{args:?}: {stderr}"
        );
    }
    let grafana = agent_operator(&["crds", "--group", "grafana"]);
    assert!(grafana.status.success());
    assert_eq!(String::from_utf8_lossy(&grafana.stderr), "");
}

#[test]
fn crds_reference_prints_the_committed_reference() {
    let reference = stdout(&agent_operator(&["crds", "--reference"]));
    let committed =
        std::fs::read_to_string(root().join("docs/crd-reference.md")).expect("crd-reference.md");
    assert_eq!(reference, committed);
    let both = agent_operator(&["crds", "--reference", "--group", "grafana"]);
    assert!(!both.status.success(), "--group and --reference conflict");
}

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "agent-operator-cli-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("tempdir");
    dir
}

#[test]
fn explain_names_the_jobs_of_a_selected_monitor_in_text_and_json() {
    let text = agent_operator(&["explain", "smon/shop/checkout", "-f", "examples/"]);
    assert!(text.status.success(), "{}", stderr(&text));
    let out = stdout(&text);
    assert!(out.starts_with("ServiceMonitor shop/checkout\n"), "{out}");
    assert!(out.contains("serviceMonitor/shop/checkout/0"), "{out}");

    let json = agent_operator(&[
        "explain",
        "ServiceMonitors/shop/checkout",
        "-f",
        "examples/",
        "-o",
        "json",
    ]);
    assert!(json.status.success(), "{}", stderr(&json));
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("JSON");
    assert_eq!(v["object"]["kind"], "ServiceMonitor");
    let steps = v["steps"].as_array().expect("steps");
    assert!(!steps.is_empty(), "{v}");
    let rendered: Vec<_> = steps
        .iter()
        .filter(|s| s["outcome"]["result"] == "rendered")
        .collect();
    assert!(!rendered.is_empty(), "{v}");
    assert!(
        rendered[0]["outcome"]["jobs"][0]
            .as_str()
            .is_some_and(|j| j.starts_with("serviceMonitor/shop/checkout/")),
        "{v}"
    );
}

#[test]
fn explain_gives_the_first_failing_requirement_of_a_monitor_not_selected() {
    let dir = std::env::temp_dir().join(format!("explain-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let relabelled = std::fs::read_to_string(root().join("examples/20-metrics.yaml"))
        .expect("example")
        .replace(
            "  name: checkout\n  namespace: shop\n  labels:\n    instance: primary\n",
            "  name: checkout\n  namespace: shop\n  labels:\n    instance: secondary\n",
        );
    std::fs::write(dir.join("20-metrics.yaml"), relabelled).expect("write");
    for f in ["00-namespaces.yaml", "10-grafana-agent.yaml"] {
        std::fs::copy(root().join("examples").join(f), dir.join(f)).expect("copy");
    }
    let out = agent_operator(&[
        "explain",
        "servicemonitor/shop/checkout",
        "-f",
        dir.to_str().expect("utf-8 path"),
    ]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("not selected: MetricsInstance"), "{text}");
    assert!(
        text.contains("does not match: ServiceMonitor shop/checkout has instance=secondary"),
        "{text}"
    );
}

#[test]
fn explain_fails_clearly_for_a_missing_object_or_an_unknown_kind() {
    let missing = agent_operator(&["explain", "podmonitor/shop/nope", "-f", "examples/"]);
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("PodMonitor shop/nope not found"),
        "{}",
        stderr(&missing)
    );
    let unknown = agent_operator(&["explain", "deployment/shop/x", "-f", "examples/"]);
    assert!(!unknown.status.success());
    assert!(
        stderr(&unknown).contains("not a kind explain takes"),
        "{}",
        stderr(&unknown)
    );
    let malformed = agent_operator(&["explain", "smon/checkout", "-f", "examples/"]);
    assert!(stderr(&malformed).contains("expected KIND/NAMESPACE/NAME"));
}

/// The help of every command is written for users: it cites no section of our internal
/// specification ("(spec 3.2)"), which users do not have.
#[test]
fn help_cites_no_internal_spec_section() {
    let spec_section = |text: &str| {
        text.match_indices("spec ")
            .any(|(at, m)| text[at + m.len()..].starts_with(|c: char| c.is_ascii_digit()))
    };
    for command in [
        &["--help"][..],
        &["run", "--help"],
        &["render", "--help"],
        &["explain", "--help"],
        &["crds", "--help"],
    ] {
        let out = agent_operator(command);
        assert!(out.status.success(), "{command:?}: {}", stderr(&out));
        let help = stdout(&out);
        assert!(
            !spec_section(&help),
            "`agent-operator {command:?}`:\n{help}"
        );
    }
}

/// Without `--leader-election-lease-name`, `run --leader-election` campaigns for the Lease the
/// shipped manifests grant access to (deploy/operator/leader-election.yaml names it in the Role's
/// resourceNames), so the default works with deploy/ and the Helm chart.
#[test]
fn the_default_lease_name_is_the_one_deploy_grants() {
    let role = std::fs::read_to_string(root().join("deploy/operator/leader-election.yaml"))
        .expect("deploy/operator/leader-election.yaml");
    let granted = role
        .lines()
        .find_map(|line| line.trim().strip_prefix("resourceNames: ["))
        .and_then(|rest| rest.strip_suffix(']'))
        .expect("the Role names the Lease");
    let out = agent_operator(&["run", "--help"]);
    let help = stdout(&out);
    let flag = help
        .split("--leader-election-lease-name <NAME>")
        .nth(1)
        .and_then(|rest| rest.split("\n      --").next())
        .expect("run --help describes --leader-election-lease-name");
    assert!(
        flag.contains(&format!("[default: {granted}]")),
        "the Role grants the Lease {granted:?}; run --help says:{flag}"
    );
    let deployment = std::fs::read_to_string(root().join("deploy/operator/deployment.yaml"))
        .expect("deploy/operator/deployment.yaml");
    assert!(
        deployment.contains(&format!("--leader-election-lease-name={granted}")),
        "the Deployment campaigns for another Lease than the Role grants"
    );
}

/// Issue 22, item 15: a render-time rejection names the file and document the object came
/// from, as load errors do, and an invalid regex is shown as the user wrote it, not wrapped
/// in the anchors Prometheus adds (`^(?:...)$`).
#[test]
fn render_rejections_name_the_file_and_the_regex_as_written() {
    let dir = std::env::temp_dir().join(format!("render-rejections-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let broken = std::fs::read_to_string(root().join("examples/20-metrics.yaml"))
        .expect("example")
        .replacen("regex: go_gc_.*", "regex: '(go_gc_|x'", 1);
    assert!(broken.contains("(go_gc_|x"), "the example changed");
    std::fs::write(dir.join("20-metrics.yaml"), broken).expect("write");
    for f in ["00-namespaces.yaml", "10-grafana-agent.yaml"] {
        std::fs::copy(root().join("examples").join(f), dir.join(f)).expect("copy");
    }
    let out = agent_operator(&["render", "-f", dir.to_str().expect("utf-8 path")]);
    std::fs::remove_dir_all(&dir).ok();
    let err = stderr(&out);
    let line = err
        .lines()
        .find(|l| l.contains("invalid regular expression"))
        .unwrap_or_else(|| panic!("no rejection in:\n{err}"));
    assert!(
        line.starts_with("rejected: ") && line.contains("20-metrics.yaml (document "),
        "{line}"
    );
    assert!(
        line.ends_with(
            "ServiceMonitor shop/checkout: spec.endpoints[0].metricRelabelings[0].regex: invalid regular expression \"(go_gc_|x\": unclosed group (at character 1)"
        ),
        "{line}"
    );
    assert!(!err.contains("^(?:"), "{err}");
}

/// Issue 22, item 12: a monitor refused when read (a field error) is in the input: explain
/// says it was refused and with which errors, in text and JSON, instead of "not found".
#[test]
fn explain_of_a_monitor_refused_when_read_gives_its_errors() {
    let dir = std::env::temp_dir().join(format!("explain-refused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let broken = std::fs::read_to_string(root().join("examples/20-metrics.yaml"))
        .expect("example")
        .replacen(
            "  - port: http-metrics\n",
            "  - port: http-metrics\n    scheme: htps\n",
            1,
        );
    assert!(
        broken.contains("scheme: htps"),
        "the example changed: {broken}"
    );
    std::fs::write(dir.join("20-metrics.yaml"), broken).expect("write");
    for f in ["00-namespaces.yaml", "10-grafana-agent.yaml"] {
        std::fs::copy(root().join("examples").join(f), dir.join(f)).expect("copy");
    }
    let path = dir.to_str().expect("utf-8 path");
    let text = agent_operator(&["explain", "smon/shop/checkout", "-f", path]);
    let json = agent_operator(&["explain", "smon/shop/checkout", "-f", path, "-o", "json"]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(text.status.success(), "{}", stderr(&text));
    let out = stdout(&text);
    assert!(out.contains("refused when read"), "{out}");
    assert!(out.contains("scheme: \"htps\" is not allowed"), "{out}");
    assert!(!stderr(&text).contains("not found"), "{}", stderr(&text));
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("json");
    let refused = v["refused"].as_array().expect("refused errors");
    assert!(
        refused
            .iter()
            .any(|e| e.as_str().is_some_and(|e| e.contains("htps"))),
        "{v}"
    );
}

/// `render --runtime alloy`: the workloads run Alloy on configs in its own syntax (the
/// default format), and stderr lists what Alloy refuses (`rejected:`) and does differently
/// (`warning:`); without the flag (or with `--runtime agent`) nothing changes for the agent
/// and no Alloy warning is printed.
#[test]
fn render_runtime_alloy_runs_alloy_and_says_what_differs() {
    let input = "testdata/workloads/alloy-every-subsystem/input.yaml";
    let alloy = agent_operator(&["render", "--runtime", "alloy", "-f", input]);
    assert!(alloy.status.success(), "{}", stderr(&alloy));
    let (out, err) = (stdout(&alloy), stderr(&alloy));
    let image = format!(
        "image: {}:{}",
        render::alloy::ALLOY_BASE_IMAGE,
        render::alloy::ALLOY_VERSION
    );
    assert!(out.contains(&image), "{out}");
    assert!(!out.contains("--config.format"), "{out}");
    assert!(!out.contains("grafana/agent:"), "{out}");
    assert!(
        err.contains(
            "warning: MetricsInstance monitoring/b-c: spec.remoteFlushDeadline: not used by Alloy"
        ),
        "{err}"
    );
    assert!(
        err.lines().any(|l| l.starts_with("rejected: ")
            && l.contains("Integration monitoring/vcenter: spec.name: runtime alloy")),
        "{err}"
    );
    // The configs Alloy gets name their instances with identifiers.
    let configs = agent_operator(&["render", "--runtime", "alloy", "--config", "-f", input]);
    assert!(configs.status.success(), "{}", stderr(&configs));
    assert!(
        stdout(&configs).contains("prometheus.remote_write \"metrics_monitoring_b_c\""),
        "{}",
        stdout(&configs)
    );

    for args in [
        &["render", "-f", input][..],
        &["render", "--runtime", "agent", "-f", input][..],
    ] {
        let agent = agent_operator(args);
        assert!(agent.status.success(), "{args:?}: {}", stderr(&agent));
        let (out, err) = (stdout(&agent), stderr(&agent));
        assert!(out.contains("image: grafana/agent:"), "{args:?}: {out}");
        assert!(!out.contains("grafana/alloy"), "{args:?}: {out}");
        assert!(!err.contains("warning: "), "{args:?}: {err}");
        assert!(!err.contains("runtime alloy"), "{args:?}: {err}");
    }
    let bad = agent_operator(&["render", "--runtime", "flow", "-f", input]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("--runtime"), "{}", stderr(&bad));
}

/// Issue 38, item 9e: `render` holds about 22 times its input in memory (a 137 MB List took
/// 3 GB) and had no cap: inputs over `--max-input-mb` (default 64) are refused before they
/// are read, naming the file and the sizes; the flag raises the limit.
#[test]
fn inputs_over_the_size_limit_are_refused_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("render-cap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let big = dir.join("big.yaml");
    let mut text =
        std::fs::read_to_string(root().join("examples/10-grafana-agent.yaml")).expect("example");
    let padding = format!("# {}\n", "x".repeat(1021));
    text.push_str(&padding.repeat(2 * 1024 + 100));
    std::fs::write(&big, &text).expect("write");
    let path = big.to_str().expect("utf-8 path");
    let refused = agent_operator(&["render", "-f", path, "--max-input-mb", "1"]);
    let explained = agent_operator(&[
        "explain",
        "metricsinstance/monitoring/primary",
        "-f",
        path,
        "--max-input-mb",
        "2",
    ]);
    let raised = agent_operator(&["render", "-f", path, "--max-input-mb", "3"]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(!refused.status.success());
    let message = stderr(&refused);
    assert!(
        message.contains(&format!("{path}: 3 MB"))
            && message.contains("over the limit of 1 MB")
            && message.contains("--max-input-mb"),
        "{message}"
    );
    assert!(!explained.status.success());
    assert!(
        stderr(&explained).contains("over the limit of 2 MB"),
        "{}",
        stderr(&explained)
    );
    assert!(raised.status.success(), "{}", stderr(&raised));
    assert!(
        stdout(&raised).contains("kind: Secret"),
        "{}",
        stdout(&raised)
    );
}
