//! `testenv`: one API to run an end-to-end test against either API server backend.
//!
//! * [`Backend::TestKube`]: the in-memory `testkube` server, fresh for every [`TestEnv`], with
//!   fault injection and request counters. Fast.
//! * [`Backend::ControlPlane`]: the real etcd, kube-apiserver and kube-controller-manager
//!   (`scripts/control-plane`), started once per test binary on first use and shared by every
//!   test in it, stopped when the test process exits. Faithful: real validation, defaulting,
//!   server-side apply, RBAC, garbage collection and workload controllers.
//!
//! Tests in one binary share the control plane, so each test works in namespaces of its own
//! ([`TestEnv::create_namespace`]).
//!
//! ```no_run
//! # async fn demo() -> Result<(), testenv::Error> {
//! for backend in testenv::backends() {
//!     let env = testenv::TestEnv::start(backend).await?;
//!     let namespace = env.create_namespace("demo").await?;
//!     let client = env.client();
//!     // ... exercise the operator in `namespace` through `client` or `env.kubectl()`
//! #   drop((namespace, client));
//! }
//! # Ok(())
//! # }
//! ```

mod cluster;
mod control_plane;
mod proxy;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};

pub use cluster::{Cluster, cluster_script};
pub use control_plane::control_plane_script;
pub use proxy::Proxy;

/// The environment variable that selects the backends [`backends`] returns: a comma-separated
/// list of `testkube` and `control-plane`. Unset means the control plane only.
pub const BACKENDS_VAR: &str = "AGENT_OPERATOR_TEST_BACKENDS";

/// Which API server a test runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The in-memory server from `crates/testkube`.
    TestKube,
    /// The real etcd + kube-apiserver + kube-controller-manager.
    ControlPlane,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::TestKube => "testkube",
            Backend::ControlPlane => "control-plane",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = Error;

    fn from_str(value: &str) -> Result<Self, Error> {
        match value.trim() {
            "testkube" => Ok(Backend::TestKube),
            "control-plane" => Ok(Backend::ControlPlane),
            other => Err(Error::UnknownBackend(other.to_string())),
        }
    }
}

/// Failures to start a backend or to reach it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "unknown backend '{0}' in {BACKENDS_VAR} (expected a comma-separated list of testkube, control-plane)"
    )]
    UnknownBackend(String),
    #[error("starting testkube: {0}")]
    TestKube(#[from] testkube::StartError),
    #[error("starting {script}: {source}")]
    Spawn {
        script: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{script} stopped before serving ({status}); its messages are above in the test output"
    )]
    NotServing {
        script: PathBuf,
        status: std::process::ExitStatus,
    },
    #[error("reading the first line of {script}: {source}")]
    ReadUrl {
        script: PathBuf,
        source: std::io::Error,
    },
    #[error("{script} printed '{line}' instead of 'control-plane serving at URL'")]
    UnexpectedLine { script: PathBuf, line: String },
    #[error(
        "{script} printed '{line}' instead of 'cluster NAME ready: ..., containerd SOCKET, ...'"
    )]
    UnexpectedClusterLine { script: PathBuf, line: String },
    #[error("the shared control plane could not be started: {0}")]
    Shared(Arc<Error>),
    #[error("reading kubeconfig {path}: {source}")]
    ReadKubeconfig {
        path: PathBuf,
        source: kube::config::KubeconfigError,
    },
    #[error("writing kubeconfig {path}: {source}")]
    WriteKubeconfig {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("building a client from {path}: {source}")]
    ClientConfig {
        path: PathBuf,
        source: kube::config::KubeconfigError,
    },
    #[error("building a client from {path}: {source}")]
    Client { path: PathBuf, source: kube::Error },
    #[error("the {0} backend has no operator identity (no authentication)")]
    NoOperatorIdentity(Backend),
    #[error("importing image {tar}: {message}")]
    ImportImage { tar: PathBuf, message: String },
    #[error("creating namespace {name}: {source}")]
    CreateNamespace { name: String, source: kube::Error },
    #[error("starting the test proxy: {0}")]
    Proxy(std::io::Error),
}

/// The backends a scenario runs on that needs nothing only testkube gives: the real control
/// plane, unless [`BACKENDS_VAR`] names others (`testkube` for a fast loop while developing).
///
/// testkube is fenced to what the real API server cannot give: speed (benchmarks, the demo),
/// fault injection and request counters. A test that uses one of those names
/// `Backend::TestKube` itself; a behaviour that both can show is shown where the answer is
/// authoritative, since when the two disagree the real one is right.
///
/// # Panics
/// When [`BACKENDS_VAR`] holds something other than backend names: a test run configured
/// wrongly should stop at once, not quietly test less.
pub fn backends() -> Vec<Backend> {
    match std::env::var(BACKENDS_VAR) {
        Ok(value) => match parse_backends(&value) {
            Ok(backends) => backends,
            Err(error) => panic!("{error}"),
        },
        Err(_) => vec![Backend::ControlPlane],
    }
}

/// Parses a comma-separated list of backend names (empty entries are ignored).
pub fn parse_backends(value: &str) -> Result<Vec<Backend>, Error> {
    let mut backends = Vec::new();
    for name in value.split(',').filter(|name| !name.trim().is_empty()) {
        let backend = name.parse()?;
        if !backends.contains(&backend) {
            backends.push(backend);
        }
    }
    Ok(backends)
}

/// A running backend and an admin client for it, for one test.
pub struct TestEnv {
    backend: Backend,
    client: kube::Client,
    kubeconfig: PathBuf,
    operator_kubeconfig: Option<PathBuf>,
    testkube: Option<testkube::TestKube>,
    /// The kubeconfig file this value wrote itself (testkube), removed on drop.
    owned_kubeconfig: Option<PathBuf>,
}

impl TestEnv {
    /// Starts (testkube) or joins (control plane) a backend. The first control-plane start in a
    /// test binary builds the binaries if they are not cached yet and waits until the control
    /// plane is ready; later ones return at once.
    pub async fn start(backend: Backend) -> Result<TestEnv, Error> {
        match backend {
            Backend::TestKube => Self::start_testkube().await,
            Backend::ControlPlane => Self::join_control_plane().await,
        }
    }

    async fn start_testkube() -> Result<TestEnv, Error> {
        let server = testkube::TestKube::start().await?;
        let client = server.client()?;
        let kubeconfig = scratch_path("testkube.kubeconfig");
        server
            .write_kubeconfig(&kubeconfig)
            .map_err(|source| match source {
                testkube::StartError::Kubeconfig { source, .. } => Error::WriteKubeconfig {
                    path: kubeconfig.clone(),
                    source,
                },
                other => Error::TestKube(other),
            })?;
        Ok(TestEnv {
            backend: Backend::TestKube,
            client,
            kubeconfig: kubeconfig.clone(),
            operator_kubeconfig: None,
            testkube: Some(server),
            owned_kubeconfig: Some(kubeconfig),
        })
    }

    async fn join_control_plane() -> Result<TestEnv, Error> {
        let shared = tokio::task::spawn_blocking(control_plane::shared)
            .await
            .map_err(|join| {
                Error::Shared(Arc::new(Error::Spawn {
                    script: control_plane_script(),
                    source: std::io::Error::other(join.to_string()),
                }))
            })??;
        let client = client_from_kubeconfig(&shared.kubeconfig).await?;
        Ok(TestEnv {
            backend: Backend::ControlPlane,
            client,
            kubeconfig: shared.kubeconfig.clone(),
            operator_kubeconfig: Some(shared.operator_kubeconfig.clone()),
            testkube: None,
            owned_kubeconfig: None,
        })
    }

    /// Connects to a control plane started elsewhere (`scripts/control-plane` run by the
    /// caller, e.g. with `--audit-log`): `kubeconfig` is its admin kubeconfig, and the
    /// operator's is beside it (`<kubeconfig>.operator`).
    pub async fn connect(kubeconfig: &Path) -> Result<TestEnv, Error> {
        let client = client_from_kubeconfig(kubeconfig).await?;
        Ok(TestEnv {
            backend: Backend::ControlPlane,
            client,
            kubeconfig: kubeconfig.to_path_buf(),
            operator_kubeconfig: Some(PathBuf::from(format!("{}.operator", kubeconfig.display()))),
            testkube: None,
            owned_kubeconfig: None,
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// An admin client (all permissions), with `default` as its default namespace.
    pub fn client(&self) -> kube::Client {
        self.client.clone()
    }

    /// The admin kubeconfig, for kubectl and child processes.
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// A kubeconfig authenticating as the operator's ServiceAccount
    /// (`system:serviceaccount:agent-operator:grafana-agent-operator`), so that RBAC applies.
    /// Only the control plane authenticates; testkube has none.
    pub fn operator_kubeconfig(&self) -> Option<&Path> {
        self.operator_kubeconfig.as_deref()
    }

    /// A client with the operator's ServiceAccount identity (see [`Self::operator_kubeconfig`]).
    pub async fn operator_client(&self) -> Result<kube::Client, Error> {
        match &self.operator_kubeconfig {
            Some(path) => client_from_kubeconfig(path).await,
            None => Err(Error::NoOperatorIdentity(self.backend)),
        }
    }

    /// The testkube server, for fault injection and request counters.
    pub fn testkube(&self) -> Option<&testkube::TestKube> {
        self.testkube.as_ref()
    }

    /// `kubectl` (or `$KUBECTL`) with `KUBECONFIG` set to the admin kubeconfig.
    pub fn kubectl(&self) -> Command {
        let mut command = Command::new(std::env::var_os("KUBECTL").unwrap_or("kubectl".into()));
        command.env("KUBECONFIG", &self.kubeconfig);
        command
    }

    /// A loopback proxy in front of this backend, with the admin's identity, that can make
    /// watches fail (see [`Proxy`]); it stops when dropped.
    pub async fn proxy(&self) -> Result<Proxy, Error> {
        Proxy::start(self.client.clone(), scratch_path("proxy.kubeconfig")).await
    }

    /// Creates a namespace named `<prefix>-<unique suffix>` and returns its name. Tests sharing
    /// the control plane each work in namespaces of their own.
    pub async fn create_namespace(&self, prefix: &str) -> Result<String, Error> {
        let name = unique_name(prefix);
        let namespace = Namespace {
            metadata: ObjectMeta {
                name: Some(name.clone()),
                ..ObjectMeta::default()
            },
            ..Namespace::default()
        };
        Api::<Namespace>::all(self.client.clone())
            .create(&PostParams::default(), &namespace)
            .await
            .map_err(|source| Error::CreateNamespace {
                name: name.clone(),
                source,
            })?;
        Ok(name)
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        if let Some(path) = &self.owned_kubeconfig {
            let _ = std::fs::remove_file(path);
        }
    }
}

async fn client_from_kubeconfig(path: &Path) -> Result<kube::Client, Error> {
    let kubeconfig = Kubeconfig::read_from(path).map_err(|source| Error::ReadKubeconfig {
        path: path.to_path_buf(),
        source,
    })?;
    let mut config =
        kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
            .await
            .map_err(|source| Error::ClientConfig {
                path: path.to_path_buf(),
                source,
            })?;
    // Watches may idle longer than kube's default read timeout between events.
    config.read_timeout = Some(Duration::from_secs(300));
    kube::Client::try_from(config).map_err(|source| Error::Client {
        path: path.to_path_buf(),
        source,
    })
}

static SEQUENCE: AtomicU64 = AtomicU64::new(0);
/// Numbers the clusters a test process starts.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A name unique within this process and, through the process id, among the test binaries
/// running at the same time.
fn unique_name(prefix: &str) -> String {
    let sequence = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{}-{sequence}", std::process::id())
}

/// A path in the temporary directory unique to this process and call.
fn scratch_path(suffix: &str) -> PathBuf {
    std::env::temp_dir().join(format!("testenv-{}.{suffix}", unique_name("env")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_lists_parse() {
        assert_eq!(
            parse_backends("testkube,control-plane").unwrap(),
            vec![Backend::TestKube, Backend::ControlPlane]
        );
        assert_eq!(
            parse_backends(" control-plane , ,control-plane").unwrap(),
            vec![Backend::ControlPlane]
        );
        assert_eq!(parse_backends("").unwrap(), vec![]);
        let error = parse_backends("testkube,kind").unwrap_err();
        assert!(
            error.to_string().contains("unknown backend 'kind'"),
            "{error}"
        );
    }

    #[test]
    fn names_are_unique_and_valid_namespace_names() {
        let first = unique_name("e2e");
        let second = unique_name("e2e");
        assert_ne!(first, second);
        for name in [first, second] {
            assert!(name.len() <= 63);
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{name}"
            );
        }
    }
}
