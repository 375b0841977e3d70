//! The real single-node cluster (`scripts/cluster`, `testenv::Cluster`): pods are scheduled and
//! run from locally imported images, logs and exec work through the API server, a Service's
//! ClusterIP reaches its pod, a pod reaches the API server through the `kubernetes` Service, and
//! stopping the cluster leaves nothing behind on the host.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use testenv::Cluster;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A busybox image (Debian's busybox-static) built with the project's docker-archive tool.
fn busybox_image(dir: &Path) -> PathBuf {
    let tar = dir.join("busybox.tar");
    let busybox = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v busybox"])
            .output()
            .expect("sh")
            .stdout,
    )
    .expect("utf-8");
    let status = Command::new(root().join("scripts/lib/docker-archive"))
        .arg(&tar)
        .arg("docker.io/library/cluster-test:1")
        .args(["--entrypoint", r#"["/bin/sh"]"#])
        .arg(format!("{}:/bin/busybox", busybox.trim()))
        .args([
            "/bin/sh=>busybox",
            "/bin/httpd=>busybox",
            "/bin/nc=>busybox",
        ])
        .args(["/bin/sleep=>busybox", "/bin/echo=>busybox", "/www/"])
        .status()
        .expect("docker-archive");
    assert!(status.success(), "docker-archive failed");
    tar
}

fn kubectl(cluster: &Cluster, args: &[&str], input: Option<&str>) -> String {
    let mut command = Command::new("kubectl");
    command
        .env("KUBECONFIG", cluster.kubeconfig())
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("kubectl");
    if let Some(input) = input {
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write");
    }
    drop(child.stdin.take());
    let output = child.wait_with_output().expect("kubectl");
    assert!(
        output.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8")
}

fn eventually(what: &str, limit: Duration, mut condition: impl FnMut() -> bool) {
    let start = Instant::now();
    while !condition() {
        assert!(start.elapsed() < limit, "{what}: not after {limit:?}");
        std::thread::sleep(Duration::from_millis(300));
    }
}

const POD: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: web
    image: docker.io/library/cluster-test:1
    imagePullPolicy: Never
    command: [/bin/sh, -c]
    args:
    - |
      echo hello from the pod > /www/index.html
      echo started
      # The `kubernetes` Service: a TCP connection to the API server through its ClusterIP.
      if nc -w 5 "$KUBERNETES_SERVICE_HOST" "$KUBERNETES_SERVICE_PORT" < /dev/null; then echo api-reachable; fi
      exec httpd -f -p 8080 -h /www
    readinessProbe:
      tcpSocket: {port: 8080}
      periodSeconds: 1
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
"#;

#[test]
fn a_pod_runs_and_stopping_leaves_nothing_behind() {
    let scratch = tempdir();
    let image = busybox_image(&scratch);
    let sysctls_before = kubelet_sysctls();
    let alone_at_start = other_clusters().is_empty();
    let start = Instant::now();
    let cluster = Cluster::start(&[image]).unwrap_or_else(|e| panic!("starting the cluster: {e}"));
    eprintln!("cluster {} ready in {:?}", cluster.name(), start.elapsed());
    let name = cluster.name().to_string();
    assert!(Path::new("/run/netns").join(&name).exists());

    let node = kubectl(&cluster, &["get", "node", &name, "-o", "json"], None);
    let node: serde_json::Value = serde_json::from_str(&node).expect("node JSON");
    assert!(
        node["status"]["addresses"]
            .as_array()
            .expect("addresses")
            .iter()
            .any(|a| a["type"] == "InternalIP" && a["address"] == Cluster::NODE_IP),
        "{}",
        node["status"]["addresses"]
    );

    kubectl(&cluster, &["apply", "-f", "-"], Some(POD));
    kubectl(
        &cluster,
        &["wait", "--for=condition=Ready", "pod/web", "--timeout=120s"],
        None,
    );
    // Logs and exec go through the API server to the kubelet on the node IP.
    eventually("the pod's logs", Duration::from_secs(30), || {
        kubectl(&cluster, &["logs", "web"], None).contains("started")
    });
    let logs = kubectl(&cluster, &["logs", "web"], None);
    assert!(logs.contains("api-reachable"), "{logs}");
    let exec = kubectl(&cluster, &["exec", "web", "--", "echo", "exec works"], None);
    assert_eq!(exec.trim(), "exec works");

    // The Service's ClusterIP, from beside the node (kube-proxy's rules in the namespace).
    let cluster_ip = kubectl(
        &cluster,
        &["get", "service", "web", "-o", "jsonpath={.spec.clusterIP}"],
        None,
    );
    eventually("the Service answering", Duration::from_secs(60), || {
        let output = cluster
            .in_netns("curl")
            .args(["-sS", "-m", "3", &format!("http://{cluster_ip}/")])
            .output()
            .expect("curl");
        String::from_utf8_lossy(&output.stdout).contains("hello from the pod")
    });

    drop(cluster);
    assert!(
        !Path::new("/run/netns").join(&name).exists(),
        "the network namespace is left"
    );
    for controller in ["memory", "pids", "cpu", "cpuset", "unified"] {
        let cgroup = Path::new("/sys/fs/cgroup").join(controller).join(&name);
        assert!(!cgroup.exists(), "{} is left", cgroup.display());
    }
    let registry = Path::new("/run/agent-operator-cluster").join(&name);
    assert!(!registry.exists(), "{} is left", registry.display());
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").expect("mountinfo");
    assert!(
        !mounts.contains(&format!("/run/netns/{name}")),
        "a mount is left"
    );
    // The kubelet rewrites three host-wide sysctls; they are restored once no cluster runs.
    if alone_at_start && other_clusters().is_empty() {
        assert_eq!(kubelet_sysctls(), sysctls_before);
    } else {
        eprintln!(
            "other clusters run ({:?}): the host sysctls stay as their kubelets set them",
            other_clusters()
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

fn kubelet_sysctls() -> Vec<(String, String)> {
    [
        "vm/overcommit_memory",
        "kernel/panic",
        "kernel/panic_on_oops",
    ]
    .iter()
    .map(|key| {
        let value = std::fs::read_to_string(Path::new("/proc/sys").join(key)).expect("sysctl");
        (key.to_string(), value.trim().to_string())
    })
    .collect()
}

fn other_clusters() -> Vec<String> {
    std::fs::read_dir("/run/agent-operator-cluster")
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn tempdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("testenv-cluster-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}
