//! `agent-operator run`: the operator itself, reconciling the GrafanaAgents of the cluster the
//! usual kubeconfig (`KUBECONFIG`, `~/.kube/config`) or in-cluster configuration points at.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use clap::Args;
use controller::{Metrics, Operator, OperatorConfig};
use prometheus_client::registry::Registry;

#[derive(Args)]
pub struct RunArgs {
    /// Watch and reconcile only this namespace (Namespaces themselves are still read).
    #[arg(long)]
    namespace: Option<String>,
    /// Reconcile only the GrafanaAgents matching this label selector (standard syntax,
    /// set-based included), so several operators can share a cluster.
    #[arg(long)]
    agent_selector: Option<String>,
    /// Extra labels for generated objects, `k1=v1,k2=v2` (spec 3.2).
    #[arg(long, value_parser = crate::parse_labels, default_value = "")]
    labels: BTreeMap<String, String>,
    /// The operator version shown in the pods' app.kubernetes.io/version label.
    #[arg(long, default_value = concat!("v", env!("CARGO_PKG_VERSION")))]
    operator_version: String,
}

pub fn run(args: RunArgs) -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(serve(args))
}

async fn serve(args: RunArgs) -> Result<()> {
    let client = kube::Client::try_default()
        .await
        .context("connecting to the cluster (KUBECONFIG, ~/.kube/config or in-cluster)")?;
    let mut config = OperatorConfig::new(args.operator_version);
    config.namespace = args.namespace;
    config.agent_selector = args.agent_selector.filter(|s| !s.trim().is_empty());
    config.labels = args.labels;
    config.instance = std::env::var("POD_NAME").ok();
    let mut registry = Registry::default();
    let metrics = Metrics::new(&mut registry);
    let operator = Operator::new(client, config, metrics);
    operator
        .run(shutdown_signal())
        .await
        .context("running the controller")?;
    Ok(())
}

/// Resolves on SIGTERM or Ctrl-C.
async fn shutdown_signal() {
    let interrupt = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing the reconciles in flight");
}
