//! A real single-node cluster (`scripts/cluster`): control plane, scheduler, kubelet,
//! containerd and kube-proxy in a network namespace of its own, for tests that need pods to run.
//!
//! ```no_run
//! # async fn demo() -> Result<(), testenv::Error> {
//! let cluster = testenv::Cluster::start(&[std::path::PathBuf::from("my-image.tar")])?;
//! let client = cluster.client().await?;
//! // A process beside the node, reachable from pods at `Cluster::NODE_IP`:
//! let _prometheus = cluster.in_netns("prometheus").arg("--web.listen-address=:9090").spawn();
//! # drop(client);
//! # Ok(())
//! # }
//! ```
//!
//! Each [`Cluster`] is a cluster of its own (tens of seconds to start, its own name); dropping
//! it stops the cluster and waits until everything is cleaned up. If the test process dies
//! instead, the script notices its standard input closing and cleans up all the same.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

use crate::{Error, client_from_kubeconfig};

/// The script that runs the cluster; `AGENT_OPERATOR_CLUSTER` overrides it.
pub fn cluster_script() -> PathBuf {
    match std::env::var_os("AGENT_OPERATOR_CLUSTER") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/cluster"),
    }
}

/// A running cluster; stopped (and cleaned up) on drop.
pub struct Cluster {
    name: String,
    kubeconfig: PathBuf,
    containerd_socket: PathBuf,
    child: Child,
    lifeline: Option<ChildStdin>,
}

impl Cluster {
    /// The node's IP inside the cluster's network namespace: pods reach processes started with
    /// [`Cluster::in_netns`] there.
    pub const NODE_IP: &'static str = "10.254.0.1";

    /// Starts a cluster and waits until its node is Ready (blocks: tens of seconds, more the
    /// first time, when the Kubernetes binaries are built). `images` are docker-archive tars
    /// imported into the node's containerd before the kubelet starts.
    pub fn start(images: &[PathBuf]) -> Result<Cluster, Error> {
        let script = cluster_script();
        let name = format!(
            "aoc-t{}-{}",
            std::process::id(),
            crate::NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let kubeconfig = std::env::temp_dir().join(format!("{name}.kubeconfig"));
        let mut command = Command::new(&script);
        command
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .arg("--name")
            .arg(&name)
            .arg("--stop-on-eof");
        for image in images {
            command.arg("--image").arg(image);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| Error::Spawn {
                script: script.clone(),
                source,
            })?;
        let (Some(lifeline), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            unreachable!("stdin and stdout were configured as pipes")
        };
        let mut line = String::new();
        match BufReader::new(stdout).read_line(&mut line) {
            Ok(0) => {
                drop(lifeline);
                let status = child.wait().map_err(|source| Error::ReadUrl {
                    script: script.clone(),
                    source,
                })?;
                return Err(Error::NotServing { script, status });
            }
            Ok(_) => {}
            Err(source) => return Err(Error::ReadUrl { script, source }),
        }
        // "cluster NAME ready: netns ..., node ..., containerd SOCKET, kubeconfig PATH"
        let containerd_socket = line
            .split(", ")
            .find_map(|part| part.strip_prefix("containerd "))
            .filter(|_| line.starts_with(&format!("cluster {name} ready: ")));
        let Some(containerd_socket) = containerd_socket else {
            drop(lifeline);
            let _ = child.wait();
            return Err(Error::UnexpectedClusterLine {
                script,
                line: line.trim_end().to_string(),
            });
        };
        Ok(Cluster {
            containerd_socket: PathBuf::from(containerd_socket),
            name,
            kubeconfig,
            child,
            lifeline: Some(lifeline),
        })
    }

    /// The cluster's name: also its node's name, network namespace and cgroup.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The admin kubeconfig (works from the host: kubectl, helm, the operator run locally).
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The kubeconfig authenticating as the operator's ServiceAccount identity.
    pub fn operator_kubeconfig(&self) -> PathBuf {
        PathBuf::from(format!("{}.operator", self.kubeconfig.display()))
    }

    /// The network namespace file (`/run/netns/NAME`).
    pub fn netns(&self) -> PathBuf {
        Path::new("/run/netns").join(&self.name)
    }

    /// The node's containerd socket (for `ctr -a SOCKET -n k8s.io ...`).
    pub fn containerd_socket(&self) -> &Path {
        &self.containerd_socket
    }

    /// An admin client.
    pub async fn client(&self) -> Result<kube::Client, Error> {
        client_from_kubeconfig(&self.kubeconfig).await
    }

    /// `program` to run inside the cluster's network namespace (beside the node: it sees the
    /// API server and the kubelet on loopback and pods on their IPs; pods see it at
    /// [`Cluster::NODE_IP`]).
    pub fn in_netns(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new("nsenter");
        command
            .arg(format!("--net={}", self.netns().display()))
            .arg("--")
            .arg(program);
        command
    }

    /// Imports a docker-archive tar into the node's containerd (namespace `k8s.io`, where the
    /// kubelet finds images).
    pub fn import_image(&self, tar: &Path) -> Result<(), Error> {
        let output = Command::new("ctr")
            .arg("-a")
            .arg(&self.containerd_socket)
            .args(["-n", "k8s.io", "images", "import", "--no-unpack"])
            .arg(tar)
            .output()
            .map_err(|source| Error::Spawn {
                script: PathBuf::from("ctr"),
                source,
            })?;
        if output.status.success() {
            Ok(())
        } else {
            Err(Error::ImportImage {
                tar: tar.to_path_buf(),
                message: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            })
        }
    }
}

impl Drop for Cluster {
    /// Closes the script's standard input (it then stops the cluster) and waits until it has
    /// cleaned up, so that the next test starts on a clean machine.
    fn drop(&mut self) {
        drop(self.lifeline.take());
        let _ = self.child.wait();
    }
}
