//! `testkube`: an in-memory Kubernetes API server speaking the real HTTP API on loopback, for
//! end-to-end tests and local try-outs. See the crate README for fidelity and approximations.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! let kube = testkube::TestKube::start().await?;
//! let client = kube.client()?;
//! # drop(client);
//! # Ok(())
//! # }
//! ```

pub mod error;
pub mod faults;
pub mod fieldmanager;
pub mod patch;
pub mod presentation;
pub mod protobuf;
pub mod resources;
pub mod selector;
pub mod server;
pub mod store;
pub mod table;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;

pub use faults::{Counters, Faults, RequestMatch};
pub use server::ServerConfig;

/// Failures to start a server or to hand out a client for it.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("binding {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("reading the bound address: {0}")]
    LocalAddr(std::io::Error),
    #[error("building a kube client for {url}: {source}")]
    Client { url: String, source: kube::Error },
    #[error("invalid server URL {url}: {source}")]
    Url {
        url: String,
        source: http::uri::InvalidUri,
    },
    #[error("writing kubeconfig {path}: {source}")]
    Kubeconfig {
        path: String,
        source: std::io::Error,
    },
}

/// Options for [`TestKube::start_with`].
#[derive(Debug, Clone)]
pub struct Options {
    /// Where to listen; port 0 picks a free port.
    pub addr: SocketAddr,
    pub config: ServerConfig,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            config: ServerConfig::default(),
        }
    }
}

/// A running in-memory API server; it stops when dropped.
pub struct TestKube {
    addr: SocketAddr,
    shared: Arc<server::Shared>,
    shutdown: watch::Sender<bool>,
}

impl TestKube {
    /// Starts a server on a free loopback port with default settings.
    pub async fn start() -> Result<Self, StartError> {
        Self::start_with(Options::default()).await
    }

    /// Starts a server; it accepts requests as soon as this returns.
    pub async fn start_with(options: Options) -> Result<Self, StartError> {
        let listener =
            TcpListener::bind(options.addr)
                .await
                .map_err(|source| StartError::Bind {
                    addr: options.addr,
                    source,
                })?;
        let addr = listener.local_addr().map_err(StartError::LocalAddr)?;
        let shared = Arc::new(server::Shared::new(options.config, addr));
        let (shutdown, stopped) = watch::channel(false);
        tokio::spawn(server::serve(listener, shared.clone(), stopped));
        Ok(TestKube {
            addr,
            shared,
            shutdown,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The client configuration [`TestKube::client`] uses, to adjust before building a client.
    pub fn client_config(&self) -> Result<kube::Config, StartError> {
        let url = self.url();
        let uri: http::Uri = url
            .parse()
            .map_err(|source| StartError::Url { url, source })?;
        let mut config = kube::Config::new(uri);
        // Watches may idle longer than kube's default read timeout between events.
        config.read_timeout = Some(Duration::from_secs(300));
        Ok(config)
    }

    /// A client for this server, with `default` as its default namespace.
    pub fn client(&self) -> Result<kube::Client, StartError> {
        let config = self.client_config()?;
        kube::Client::try_from(config).map_err(|source| StartError::Client {
            url: self.url(),
            source,
        })
    }

    /// A kubeconfig pointing at this server, usable by kubectl and kube-rs.
    pub fn kubeconfig_yaml(&self) -> String {
        kubeconfig_for(&self.url())
    }

    pub fn write_kubeconfig(&self, path: impl AsRef<Path>) -> Result<(), StartError> {
        write_kubeconfig(&self.url(), path.as_ref())
    }

    pub fn faults(&self) -> Faults {
        Faults {
            shared: self.shared.clone(),
        }
    }

    pub fn counters(&self) -> Counters {
        Counters {
            shared: self.shared.clone(),
        }
    }

    /// Objects stored, over all resources (the four initial namespaces included).
    pub fn object_count(&self) -> usize {
        self.shared.state.lock().object_count()
    }

    /// The latest resourceVersion handed out.
    pub fn resource_version(&self) -> u64 {
        self.shared.state.lock().resource_version()
    }

    /// Watch streams currently open.
    pub fn open_watches(&self) -> usize {
        self.shared.state.lock().watcher_count()
    }
}

impl Drop for TestKube {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
    }
}

/// A kubeconfig for a plain-HTTP server at `url`, with `default` as the namespace.
pub fn kubeconfig_for(url: &str) -> String {
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: testkube
  cluster:
    server: {url}
users:
- name: testkube
  user: {{}}
contexts:
- name: testkube
  context:
    cluster: testkube
    user: testkube
    namespace: default
current-context: testkube
preferences: {{}}
"
    )
}

pub fn write_kubeconfig(url: &str, path: &Path) -> Result<(), StartError> {
    std::fs::write(path, kubeconfig_for(url)).map_err(|source| StartError::Kubeconfig {
        path: path.display().to_string(),
        source,
    })
}
