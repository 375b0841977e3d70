//! `agent-operator run`: the operator itself, reconciling the GrafanaAgents of the cluster the
//! usual kubeconfig (`KUBECONFIG`, `~/.kube/config`) or in-cluster configuration points at.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use controller::runtime::{Runtime, Term, termination_signal};
use controller::{Metrics, Operator, OperatorConfig};
use prometheus_client::registry::Registry;

use crate::runtime_flags::RuntimeFlags;

#[derive(Args)]
pub struct RunArgs {
    /// Watch and reconcile only this namespace (Namespaces themselves are still read).
    #[arg(long)]
    namespace: Option<String>,
    /// Reconcile only the GrafanaAgents matching this label selector (standard syntax,
    /// set-based included), so several operators can share a cluster.
    #[arg(long)]
    agent_selector: Option<String>,
    /// Extra labels on generated objects, `k1=v1,k2=v2`.
    #[arg(long, value_parser = crate::parse_labels, default_value = "")]
    labels: BTreeMap<String, String>,
    /// The operator version shown in the pods' app.kubernetes.io/version label.
    #[arg(long, default_value = concat!("v", env!("CARGO_PKG_VERSION")))]
    operator_version: String,
    /// What runs the configs of the GrafanaAgents without spec.runtime: agent (Grafana
    /// Agent, static mode) or alloy (Grafana Alloy, on configs in its own syntax unless
    /// spec.alloy.configFormat is static; docs/alloy.md).
    #[arg(long = "runtime", value_enum, default_value = "agent")]
    default_runtime: crate::RuntimeArg,
    /// The image of the agent pods' config loader (`agent-operator config-loader`): the
    /// operator's own image, so that both run the same version. deploy/ and the Helm chart
    /// set it to the image the operator runs from.
    #[arg(
        long,
        env = "AGENT_OPERATOR_CONFIG_LOADER_IMAGE",
        default_value = render::desired::DEFAULT_CONFIG_LOADER_IMAGE,
        value_name = "IMAGE"
    )]
    config_loader_image: String,
    #[command(flatten)]
    runtime: RuntimeFlags,
}

pub fn run(args: RunArgs) -> Result<()> {
    controller::logging::init(args.runtime.log_level, args.runtime.log_format)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(serve(args))
}

async fn serve(args: RunArgs) -> Result<()> {
    let controller::Connection { client, url } = controller::connect().await?;
    let runtime_config = args.runtime.runtime_config(client.default_namespace())?;
    let mut config = OperatorConfig::new(args.operator_version);
    config.namespace = args.namespace;
    config.agent_selector = args.agent_selector.filter(|s| !s.trim().is_empty());
    config.labels = args.labels;
    config.runtime = args.default_runtime.into();
    config.config_loader_image = args.config_loader_image;
    config.instance = std::env::var("POD_NAME").ok();
    let mut registry = Registry::default();
    let metrics = Metrics::new(&mut registry);
    let runtime = Runtime::new(runtime_config, &mut registry);
    let bound = runtime.bind(client.clone(), Arc::new(registry)).await?;
    let shutdown = termination_signal()?;
    // One term per leadership: a fresh Operator (and caches) each time this process leads.
    let outcome = bound
        .run(shutdown, |term: Term| {
            let operator = Operator::new(client.clone(), config.clone(), metrics.clone());
            let readiness = operator.readiness();
            term.ready.set(move || readiness.is_ready());
            let stop = term.stop;
            operator.run(async move { stop.cancelled().await })
        })
        .await?;
    match outcome {
        Some(result) => result.with_context(|| format!("running the controller against {url}")),
        None => Ok(()),
    }
}
