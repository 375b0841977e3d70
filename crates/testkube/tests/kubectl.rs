//! Real `kubectl` against the standalone `testkube` binary: apply (client- and server-side), get,
//! get -o yaml, get -w, label, patch --type merge and delete, on built-in and custom resources.
//! kubectl is required: without it this test fails, it is never skipped.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// Kills the child when the test ends, however it ends.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Kubectl {
    binary: PathBuf,
    kubeconfig: PathBuf,
    cache_dir: PathBuf,
}

impl Kubectl {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.binary);
        command
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .arg("--cache-dir")
            .arg(&self.cache_dir)
            .args(args)
            .env_remove("KUBECONFIG");
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args)
            .output()
            .unwrap_or_else(|error| panic!("running {} failed: {error}", self.binary.display()))
    }

    /// Runs kubectl, expecting success; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        assert!(
            output.status.success(),
            "kubectl {args:?} failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
            output.status
        );
        stdout
    }

    /// Runs kubectl, expecting failure; returns stderr.
    fn fails(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert!(
            !output.status.success(),
            "kubectl {args:?} unexpectedly succeeded: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        String::from_utf8_lossy(&output.stderr).to_string()
    }
}

/// Finds kubectl (KUBECTL overrides the PATH lookup) and fails loudly when it is missing.
fn find_kubectl() -> PathBuf {
    if let Some(explicit) = std::env::var_os("KUBECTL") {
        return PathBuf::from(explicit);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|directory| directory.join("kubectl"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "kubectl is required by this test but was not found on PATH; install kubectl \
                 (for example to /usr/bin/kubectl) or point the KUBECTL environment variable at it"
            )
        })
}

fn scratch_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let directory =
        std::env::temp_dir().join(format!("testkube-kubectl-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

/// Starts the standalone binary and waits for its "serving at" line.
fn start_server(kubeconfig: &Path) -> (KillOnDrop, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_testkube"))
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("--bookmark-interval")
        .arg("1")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let guard = KillOnDrop(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("testkube serving at ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    (guard, url)
}

/// Collects a watch's output lines until `done` says enough, or a deadline.
fn watch_until(mut child: Child, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let stdout = child.stdout.take().unwrap();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let _guard = KillOnDrop(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut lines = Vec::new();
    while !done(&lines) {
        let left = deadline.saturating_duration_since(Instant::now());
        match receiver.recv_timeout(left) {
            Ok(line) => lines.push(line),
            Err(_) => panic!("watch did not show the expected events; got {lines:?}"),
        }
    }
    lines
}

fn columns(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

#[test]
fn kubectl_works_against_testkube() {
    let binary = find_kubectl();
    let directory = scratch_dir();
    let kubeconfig = directory.join("kubeconfig");
    let (_server, url) = start_server(&kubeconfig);
    let kubectl = Kubectl {
        binary,
        kubeconfig: kubeconfig.clone(),
        cache_dir: directory.join("cache"),
    };

    // The written kubeconfig points at the announced URL.
    let config_text = std::fs::read_to_string(&kubeconfig).unwrap();
    assert!(config_text.contains(&url), "{config_text}");
    let version = kubectl.ok(&["version", "-o", "json"]);
    assert!(version.contains("v1.35.0-testkube"), "{version}");

    // Client-side apply creates, then configures.
    let crd = fixture("widgets-crd.yaml");
    assert_eq!(
        kubectl.ok(&["apply", "-f", &crd]).trim(),
        "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created"
    );
    assert_eq!(
        kubectl
            .ok(&["apply", "-f", &fixture("configmap.yaml")])
            .trim(),
        "configmap/settings created"
    );
    assert_eq!(
        kubectl
            .ok(&["apply", "-f", &fixture("deployment.yaml")])
            .trim(),
        "deployment.apps/web created"
    );
    assert_eq!(
        kubectl.ok(&["apply", "-f", &fixture("widget.yaml")]).trim(),
        "widget.example.com/sprocket created"
    );
    assert_eq!(
        kubectl.ok(&["apply", "-f", &fixture("widget.yaml")]).trim(),
        "widget.example.com/sprocket unchanged"
    );
    let bigger = directory.join("widget-bigger.yaml");
    std::fs::write(
        &bigger,
        std::fs::read_to_string(fixture("widget.yaml"))
            .unwrap()
            .replace("size: 3", "size: 4"),
    )
    .unwrap();
    let bigger = bigger.display().to_string();
    assert_eq!(
        kubectl.ok(&["apply", "-f", &bigger]).trim(),
        "widget.example.com/sprocket configured"
    );
    // Client-side apply of a built-in kind goes through a strategic merge patch.
    let newer = directory.join("deployment-newer.yaml");
    std::fs::write(
        &newer,
        std::fs::read_to_string(fixture("deployment.yaml"))
            .unwrap()
            .replace("nginx:1.27", "nginx:1.28"),
    )
    .unwrap();
    assert_eq!(
        kubectl
            .ok(&["apply", "-f", &newer.display().to_string()])
            .trim(),
        "deployment.apps/web configured"
    );
    assert_eq!(
        kubectl.ok(&[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.metadata.generation} {.spec.template.spec.containers[0].image}"
        ]),
        "2 nginx:1.28"
    );

    // get: tables with printer columns, short names, -o yaml.
    let table = kubectl.ok(&["get", "wg"]);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(columns(rows[0]), vec!["NAME", "SIZE", "AGE"], "{table}");
    assert_eq!(columns(rows[1])[..2], ["sprocket", "4"], "{table}");
    let listed = kubectl.ok(&["get", "configmaps"]);
    assert!(
        listed
            .lines()
            .any(|line| columns(line).first() == Some(&"settings")),
        "{listed}"
    );
    let yaml = kubectl.ok(&["get", "widget", "sprocket", "-o", "yaml"]);
    for expected in [
        "kind: Widget",
        "name: sprocket",
        "size: 4",
        "color: blue",
        "uid: ",
        "resourceVersion: ",
    ] {
        assert!(
            yaml.contains(expected),
            "{expected:?} missing from:\n{yaml}"
        );
    }
    let yaml = kubectl.ok(&["get", "configmap", "settings", "-o", "yaml"]);
    assert!(
        yaml.contains("mode: fast") && yaml.contains("app: demo"),
        "{yaml}"
    );

    // Server-side apply: shared fields are fine, a different value conflicts unless forced.
    assert_eq!(
        kubectl
            .ok(&["apply", "--server-side", "-f", &fixture("configmap.yaml")])
            .trim(),
        "configmap/settings serverside-applied"
    );
    let managed = kubectl.ok(&[
        "get",
        "configmap",
        "settings",
        "-o",
        "yaml",
        "--show-managed-fields",
    ]);
    assert!(
        managed.contains("operation: Apply") && managed.contains("manager: kubectl"),
        "{managed}"
    );
    let rival = directory.join("configmap-rival.yaml");
    std::fs::write(
        &rival,
        std::fs::read_to_string(fixture("configmap.yaml"))
            .unwrap()
            .replace("mode: fast", "mode: turbo"),
    )
    .unwrap();
    let rival = rival.display().to_string();
    let conflict = kubectl.fails(&[
        "apply",
        "--server-side",
        "--field-manager",
        "rival",
        "-f",
        &rival,
    ]);
    assert!(
        conflict.contains("conflict") && conflict.contains(".data.mode"),
        "{conflict}"
    );
    assert_eq!(
        kubectl
            .ok(&[
                "apply",
                "--server-side",
                "--field-manager",
                "rival",
                "--force-conflicts",
                "-f",
                &rival
            ])
            .trim(),
        "configmap/settings serverside-applied"
    );
    assert_eq!(
        kubectl.ok(&[
            "get",
            "configmap",
            "settings",
            "-o",
            "jsonpath={.data.mode}"
        ]),
        "turbo"
    );
    assert_eq!(
        kubectl
            .ok(&[
                "apply",
                "--server-side",
                "-f",
                &fixture("widget.yaml"),
                "--force-conflicts"
            ])
            .trim(),
        "widget.example.com/sprocket serverside-applied"
    );
    assert_eq!(
        kubectl.ok(&["get", "widget", "sprocket", "-o", "jsonpath={.spec.size}"]),
        "3"
    );

    // label and patch --type merge.
    assert_eq!(
        kubectl
            .ok(&["label", "configmap", "settings", "team=blue"])
            .trim(),
        "configmap/settings labeled"
    );
    assert_eq!(
        kubectl
            .ok(&["label", "widget", "sprocket", "tier=large", "--overwrite"])
            .trim(),
        "widget.example.com/sprocket labeled"
    );
    assert_eq!(
        kubectl
            .ok(&["get", "configmaps", "-l", "team=blue", "-o", "name"])
            .trim(),
        "configmap/settings"
    );
    assert_eq!(
        kubectl
            .ok(&["get", "widgets", "-l", "tier in (large)", "-o", "name"])
            .trim(),
        "widget.example.com/sprocket"
    );
    assert_eq!(
        kubectl
            .ok(&[
                "patch",
                "configmap",
                "settings",
                "--type",
                "merge",
                "-p",
                r#"{"data":{"mode":"slow"}}"#
            ])
            .trim(),
        "configmap/settings patched"
    );
    assert_eq!(
        kubectl.ok(&[
            "get",
            "configmap",
            "settings",
            "-o",
            "jsonpath={.data.mode}"
        ]),
        "slow"
    );
    assert_eq!(
        kubectl
            .ok(&[
                "patch",
                "widget",
                "sprocket",
                "--type",
                "merge",
                "-p",
                r#"{"spec":{"color":"red"}}"#
            ])
            .trim(),
        "widget.example.com/sprocket patched"
    );
    assert_eq!(
        kubectl.ok(&["get", "widget", "sprocket", "-o", "jsonpath={.spec.color}"]),
        "red"
    );

    // get -w: the initial state, then changes made by other kubectl calls.
    let watch = kubectl
        .command(&["get", "widgets", "--watch", "--output-watch-events"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (sender, receiver) = mpsc::channel::<Vec<String>>();
    let watcher = std::thread::spawn(move || {
        let lines = watch_until(watch, |lines| {
            lines
                .iter()
                .any(|line| columns(line).first() == Some(&"DELETED"))
        });
        let _ = sender.send(lines);
    });
    // Give the watch time to start before changing things (its initial ADDED is not enough
    // to know the watch request is in flight, so wait for a short while too).
    std::thread::sleep(Duration::from_millis(1500));
    let gizmo = directory.join("gizmo.yaml");
    std::fs::write(
        &gizmo,
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: gizmo\nspec:\n  size: 7\n",
    )
    .unwrap();
    let gizmo = gizmo.display().to_string();
    kubectl.ok(&["apply", "-f", &gizmo]);
    kubectl.ok(&[
        "patch",
        "widget",
        "gizmo",
        "--type",
        "merge",
        "-p",
        r#"{"spec":{"size":8}}"#,
    ]);
    kubectl.ok(&["delete", "-f", &gizmo]);
    let lines = receiver
        .recv_timeout(Duration::from_secs(30))
        .expect("watch finished");
    watcher.join().unwrap();
    let events: Vec<(String, String, String)> = lines
        .iter()
        .skip(1)
        .map(|line| {
            let cells = columns(line);
            (
                cells[0].to_string(),
                cells[1].to_string(),
                cells[2].to_string(),
            )
        })
        .collect();
    let expected = [
        ("ADDED", "sprocket", "3"),
        ("ADDED", "gizmo", "7"),
        ("MODIFIED", "gizmo", "8"),
        ("DELETED", "gizmo", "8"),
    ];
    for (event, name, size) in expected {
        assert!(
            events
                .iter()
                .any(|(e, n, s)| e == event && n == name && s == size),
            "{event} {name} {size} missing from {lines:?}"
        );
    }
    assert_eq!(
        columns(&lines[0]),
        vec!["EVENT", "NAME", "SIZE", "AGE"],
        "{lines:?}"
    );

    // Generator commands send protobuf bodies; the kinds they create most are understood.
    assert_eq!(
        kubectl.ok(&["create", "namespace", "monitoring"]).trim(),
        "namespace/monitoring created"
    );
    assert_eq!(
        kubectl
            .ok(&[
                "-n",
                "monitoring",
                "create",
                "configmap",
                "generated",
                "--from-literal=key=value"
            ])
            .trim(),
        "configmap/generated created"
    );
    assert_eq!(
        kubectl
            .ok(&[
                "-n",
                "monitoring",
                "create",
                "secret",
                "generic",
                "token",
                "--from-literal=password=hunter2"
            ])
            .trim(),
        "secret/token created"
    );
    assert_eq!(
        kubectl.ok(&[
            "-n",
            "monitoring",
            "get",
            "configmap",
            "generated",
            "-o",
            "jsonpath={.data.key}"
        ]),
        "value"
    );
    assert_eq!(
        kubectl.ok(&[
            "-n",
            "monitoring",
            "get",
            "secret",
            "token",
            "-o",
            "jsonpath={.data.password}"
        ]),
        "aHVudGVyMg=="
    );
    assert_eq!(
        kubectl.ok(&["delete", "namespace", "monitoring"]).trim(),
        "namespace \"monitoring\" deleted"
    );
    let gone = kubectl.fails(&["-n", "monitoring", "get", "configmap", "generated"]);
    assert!(gone.contains("NotFound"), "{gone}");

    // delete, of built-in and custom resources.
    assert_eq!(
        kubectl.ok(&["delete", "configmap", "settings"]).trim(),
        "configmap \"settings\" deleted"
    );
    let missing = kubectl.fails(&["get", "configmap", "settings"]);
    assert!(
        missing.contains("Error from server (NotFound): configmaps \"settings\" not found"),
        "{missing}"
    );
    assert_eq!(
        kubectl
            .ok(&["delete", "-f", &fixture("widget.yaml")])
            .trim(),
        "widget.example.com \"sprocket\" deleted"
    );
    assert_eq!(
        kubectl.ok(&["delete", "deployment", "web"]).trim(),
        "deployment.apps \"web\" deleted"
    );
    let empty = kubectl.run(&["get", "widgets"]);
    let mut message = String::new();
    empty
        .stderr
        .as_slice()
        .read_to_string(&mut message)
        .unwrap();
    assert!(
        message.contains("No resources found in default namespace."),
        "{message}"
    );

    let _ = std::fs::remove_dir_all(&directory);
}
