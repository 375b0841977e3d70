//! `agent-operator`: deploys and configures Grafana Agent from custom resources.
//!
//! * `render`: what the operator would create for the GrafanaAgents in some manifests, offline;
//! * `explain`: why a monitor, PodLogs, instance or Integration is (not) in an agent's config,
//!   from manifests or from a cluster;
//! * `crds`: the CustomResourceDefinitions it reads (`--reference`: their Markdown reference);
//! * `run`: the operator, reconciling a cluster;
//! * `config-loader`: in each agent pod, writes the agent's config file from its Secrets.

mod config_loader;
mod export;
mod inputs;
mod run;
mod runtime_flags;

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use render::PlanOptions;
use render::explain::{ExplainError, Explanation, explain, parse_kind};
use render::input_ref::{InputRef, Kind};
use render::manifest::{Loader, Severity};
use render::output::{configs_stream, crds_stream, objects_stream, plan_all};
use render::store::InputStore;

#[derive(Parser)]
#[command(
    name = "agent-operator",
    version,
    about = "Kubernetes operator for Grafana Agent"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print every object the operator would create for the GrafanaAgents in the input.
    ///
    /// Reads YAML files or directories (recursively, *.yaml and *.yml, multi-document; `-` is
    /// stdin) holding GrafanaAgents, MetricsInstances, LogsInstances, PodLogs, Integrations,
    /// ServiceMonitors, PodMonitors, Probes, ScrapeConfigs, Secrets, ConfigMaps and Namespaces;
    /// other kinds are skipped. Problems go to stderr, naming the file, document, object and
    /// field; everything valid is still rendered. Exits non-zero when nothing could be rendered, or with
    /// --strict when anything was reported.
    Render {
        /// A file, a directory or `-` (stdin); repeatable.
        #[arg(short = 'f', long = "filename", required = true)]
        files: Vec<String>,
        /// Only this GrafanaAgent (NAMESPACE/NAME).
        #[arg(long)]
        agent: Option<String>,
        /// Print the rendered agent.yml documents instead of the objects.
        #[arg(long, conflicts_with = "export")]
        config: bool,
        /// Write, for each GrafanaAgent, what plain Grafana Alloy needs to run without the
        /// operator into DIR/<namespace>/<name>/: each workload's Alloy config as the config
        /// loader would write it in each pod (`<workload>.alloy`, or `<pod>.alloy` when pods
        /// differ), the Secret of referenced credentials the configs read (secrets.yaml), the
        /// objects that run them with plain Alloy (manifests.yaml: the operator's workloads and
        /// Services without its config loader, owner or labels, the configs in Secrets, a
        /// ServiceAccount and ClusterRole) and a README.txt (what to check before applying,
        /// mounts, arguments). Every agent is treated as `runtime: alloy` with
        /// `alloy.configFormat: native`, whatever its spec says; an agent with anything that
        /// keeps a config static is not exported (the error names the object and field), the
        /// others are, and the exit code is non-zero. See docs/alloy.md "Leaving the
        /// operator".
        #[arg(long, value_name = "DIR")]
        export: Option<std::path::PathBuf>,
        /// Fail on any warning, error or rejected object.
        #[arg(long)]
        strict: bool,
        /// Extra labels for generated objects, `k1=v1,k2=v2` (the operator's --labels).
        #[arg(long, value_parser = parse_labels, default_value = "")]
        labels: std::collections::BTreeMap<String, String>,
        /// The operator version shown in the pods' app.kubernetes.io/version label.
        #[arg(long, default_value = concat!("v", env!("CARGO_PKG_VERSION")))]
        operator_version: String,
        /// What runs the configs of agents without spec.runtime: agent or alloy (the
        /// operator's --runtime).
        #[arg(long, value_enum, default_value = "agent")]
        runtime: RuntimeArg,
        /// The image of the pods' config loader (the operator's --config-loader-image).
        #[arg(
            long,
            env = "AGENT_OPERATOR_CONFIG_LOADER_IMAGE",
            default_value = render::desired::DEFAULT_CONFIG_LOADER_IMAGE,
            value_name = "IMAGE"
        )]
        config_loader_image: String,
        /// Refuse inputs over this many megabytes in total (render holds about 22 times its
        /// input in memory).
        #[arg(long, default_value_t = inputs::DEFAULT_MAX_INPUT_MB)]
        max_input_mb: u64,
    },
    /// Explain why a monitor, PodLogs, instance or Integration is (not) in each GrafanaAgent's
    /// config: for every agent and instance on the way, whether it is selected and, if not, the
    /// first selector requirement that fails and the value the object (or its namespace) has;
    /// if selected, its rejection or the scrape jobs it produced.
    ///
    /// KIND is servicemonitor, podmonitor, probe, podlogs, metricsinstance, logsinstance or
    /// integration (singular, plural or short name, any case). Reads manifests with -f as
    /// `render` does; without -f, reads the cluster KUBECONFIG (or the in-cluster
    /// configuration) points at, read-only: it lists the inputs, Secrets and ConfigMaps
    /// metadata-only, and reads only the values the agents refer to, as the operator does.
    /// Exits non-zero only when the object does not exist or the cluster cannot be read.
    Explain {
        /// KIND/NAMESPACE/NAME, e.g. servicemonitor/default/web.
        object: String,
        /// A file, a directory or `-` (stdin); repeatable. Without it, read the cluster.
        #[arg(short = 'f', long = "filename")]
        files: Vec<String>,
        /// Output format.
        #[arg(short = 'o', long, value_enum, default_value = "text")]
        output: OutputFormat,
        /// What runs the configs of agents without spec.runtime: agent or alloy (the
        /// operator's --runtime).
        #[arg(long, value_enum, default_value = "agent")]
        runtime: RuntimeArg,
        /// Print every agent (and instance) on a line of its own; without it, those that leave
        /// the object out for the same reason share one line, with a count and a few names.
        /// `-o json` always has every one.
        #[arg(long)]
        all: bool,
        /// With -f: refuse inputs over this many megabytes in total (as `render`).
        #[arg(long, default_value_t = inputs::DEFAULT_MAX_INPUT_MB)]
        max_input_mb: u64,
    },
    /// Print the CustomResourceDefinitions the operator reads, as one YAML stream.
    ///
    /// The monitoring.coreos.com CRDs (ServiceMonitor, PodMonitor, Probe, ScrapeConfig) hold
    /// only the fields this operator reads: in a cluster that runs prometheus-operator, install
    /// `--group grafana` and keep prometheus-operator's own CRDs, or the API server drops the
    /// fields ours lack.
    Crds {
        /// Only the CRDs of one API group.
        #[arg(long, value_enum, conflicts_with = "reference")]
        group: Option<Group>,
        /// Print the CRD reference (Markdown, as in docs/crd-reference.md) instead.
        #[arg(long)]
        reference: bool,
    },
    /// Run the operator: reconcile the GrafanaAgents of the cluster KUBECONFIG (or the
    /// in-cluster configuration) points at until SIGTERM or Ctrl-C.
    Run(run::RunArgs),
    /// Write an agent's config file from its config Secrets, in the agent's pod: with --once
    /// (the init container), once a complete config can be written; without (the
    /// config-reloader sidecar), on every change, reloading the agent and putting the last
    /// accepted config back when the agent refuses one. Substitutes only the operator's
    /// variables: $(SHARD), $(SHARDS), $(SHARD_BUCKETS), $(STATEFULSET_ORDINAL_NUMBER).
    ConfigLoader(config_loader::ConfigLoaderArgs),
}

/// Printed whenever the coreos CRDs are: applying them over prometheus-operator's own would
/// make the API server prune every field our schemas lack from stored monitors.
const COREOS_SUBSET_WARNING: &str = "warning: the monitoring.coreos.com CRDs printed here hold only \
the fields agent-operator reads; in a cluster that runs prometheus-operator, do not apply them \
over its own CRDs (use --group grafana)";

/// `--runtime` of `run`, `render` and `explain`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RuntimeArg {
    /// Grafana Agent in static mode.
    Agent,
    /// Grafana Alloy, on configs in its own syntax (spec.alloy.configFormat; docs/alloy.md).
    Alloy,
}

impl From<RuntimeArg> for api::Runtime {
    fn from(r: RuntimeArg) -> Self {
        match r {
            RuntimeArg::Agent => api::Runtime::Agent,
            RuntimeArg::Alloy => api::Runtime::Alloy,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum OutputFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Group {
    /// monitoring.grafana.com: GrafanaAgent, MetricsInstance, LogsInstance, PodLogs, Integration.
    Grafana,
    /// monitoring.coreos.com: ServiceMonitor, PodMonitor, Probe, ScrapeConfig.
    Coreos,
}

fn parse_labels(s: &str) -> Result<std::collections::BTreeMap<String, String>, String> {
    s.split(',')
        .filter(|pair| !pair.trim().is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
            _ => Err(format!("label {pair:?} is not of the form key=value")),
        })
        .collect()
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run(args) => {
            run::run(args)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::ConfigLoader(args) => {
            config_loader::run(args)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Crds {
            reference: true, ..
        } => {
            print(&api::reference::markdown())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Crds { group, .. } => {
            let group = group.map(|g| match g {
                Group::Grafana => api::crds::CrdGroup::Grafana,
                Group::Coreos => api::crds::CrdGroup::Coreos,
            });
            if group != Some(api::crds::CrdGroup::Grafana) {
                eprintln!("{COREOS_SUBSET_WARNING}");
            }
            print(&crds_stream(group)?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain {
            object,
            files,
            output,
            runtime,
            all,
            max_input_mb,
        } => {
            let target = parse_object(&object)?;
            // The errors the target was refused with when read from the files.
            let mut refused = Vec::new();
            let store = if files.is_empty() {
                read_cluster()?
            } else {
                let mut loader = Loader::new();
                for (source, text) in inputs::read_all(&files, max_input_mb)? {
                    loader.add_source(&source, &text);
                }
                let loaded = loader.finish();
                let label = format!("{} {}/{}", target.kind, target.namespace, target.name);
                for d in &loaded.diagnostics {
                    eprintln!("{d}");
                    if d.severity == Severity::Error && d.object.as_deref() == Some(label.as_str())
                    {
                        refused.push(d.to_string());
                    }
                }
                loaded.store
            };
            let opts = PlanOptions {
                runtime: runtime.into(),
                ..PlanOptions::default()
            };
            let explanation = match explain(&store, &target, &opts) {
                Err(ExplainError::NotFound(_)) if !refused.is_empty() => {
                    Explanation::refused(&target, refused)
                }
                other => other?,
            };
            match output {
                OutputFormat::Text if all => print(&explanation.to_string())?,
                OutputFormat::Text => print(&explanation.summary().to_string())?,
                OutputFormat::Json => {
                    let mut text = serde_json::to_string_pretty(&explanation)?;
                    text.push('\n');
                    print(&text)?
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Render {
            files,
            agent,
            config,
            export,
            strict,
            labels,
            operator_version,
            runtime,
            config_loader_image,
            max_input_mb,
        } => {
            let only = agent.as_deref().map(parse_agent).transpose()?;
            let mut loader = Loader::new();
            for (source, text) in inputs::read_all(&files, max_input_mb)? {
                loader.add_source(&source, &text);
            }
            let loaded = loader.finish();
            let mut problems = 0;
            for d in &loaded.diagnostics {
                eprintln!("{d}");
                problems += usize::from(d.severity >= Severity::Warning);
            }
            let opts = PlanOptions {
                labels,
                operator_version,
                runtime: runtime.into(),
                config_loader_image,
            };
            let plans = match &export {
                Some(_) => export::plans(&loaded.store, &opts, only.as_ref()),
                None => plan_all(&loaded.store, &opts, only.as_ref()),
            };
            for r in plans.iter().flat_map(|p| &p.rejections) {
                // Named like the load errors: the file and document the object came from.
                match loaded.origin_of(&r.object) {
                    Some(origin) => eprintln!("rejected: {origin}: {r}"),
                    None => eprintln!("rejected: {r}"),
                }
                problems += 1;
            }
            for w in plans.iter().flat_map(|p| &p.warnings) {
                // The loader warned of each unknown field already, naming its file and
                // document (and of those of objects no agent selects).
                if w.reason == render::rejection::Reason::UnknownField {
                    continue;
                }
                eprintln!("warning: {w}");
            }
            if plans.is_empty() {
                let what = match &only {
                    Some(o) => format!("no {o} in the input"),
                    None => "no GrafanaAgent in the input".to_owned(),
                };
                eprintln!("error: nothing to render: {what}");
                return Ok(ExitCode::FAILURE);
            }
            if let Some(dir) = &export {
                let mut failed = false;
                for plan in &plans {
                    match export::export(plan, dir) {
                        Ok(written) => eprintln!("exported: {}", written.display()),
                        Err(e) => {
                            eprintln!("error: {e}");
                            failed = true;
                        }
                    }
                }
                return Ok(if failed || (strict && problems > 0) {
                    ExitCode::FAILURE
                } else {
                    ExitCode::SUCCESS
                });
            }
            let text = if config {
                configs_stream(&plans)
            } else {
                objects_stream(&plans)?
            };
            print(&text)?;
            // The process ends here: the kernel takes the memory back at once, where freeing
            // the input, the plans and the text object by object takes a tenth of a large
            // render.
            std::mem::forget((loaded, plans, text));
            Ok(if strict && problems > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

fn parse_agent(s: &str) -> Result<InputRef> {
    let (ns, name) = s
        .split_once('/')
        .filter(|(ns, name)| !ns.is_empty() && !name.is_empty())
        .with_context(|| format!("--agent {s:?}: expected NAMESPACE/NAME"))?;
    Ok(InputRef::new(Kind::GrafanaAgent, ns, name))
}

/// The inputs of the cluster KUBECONFIG (or the in-cluster configuration) points at, as the
/// operator would see them.
fn read_cluster() -> Result<InputStore> {
    // Multi-threaded: discovery runs in `block_in_place`, as in the operator.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let controller::Connection { client, url } = controller::connect().await?;
        controller::list_inputs(&client)
            .await
            .with_context(|| format!("reading the cluster at {url}"))
    })
}

fn parse_object(s: &str) -> Result<InputRef> {
    let parts: Vec<&str> = s.split('/').collect();
    let [kind, ns, name] = parts[..] else {
        anyhow::bail!("{s:?}: expected KIND/NAMESPACE/NAME, e.g. servicemonitor/default/web");
    };
    anyhow::ensure!(
        !ns.is_empty() && !name.is_empty(),
        "{s:?}: expected KIND/NAMESPACE/NAME, e.g. servicemonitor/default/web"
    );
    let kind = parse_kind(kind).with_context(|| {
        format!("{kind:?}: not a kind explain takes (servicemonitor, podmonitor, probe, podlogs, metricsinstance, logsinstance, integration)")
    })?;
    Ok(InputRef::new(kind, ns, name))
}

fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is not an error worth reporting.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to stdout"),
    }
}
