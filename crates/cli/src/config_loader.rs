//! `agent-operator config-loader`: writes an agent's config file from its config Secrets, in
//! the agent's pod (the init container with `--once`, the `config-reloader` sidecar without).
//! What it does is `controller::config_loader`'s; this is its flags and process.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use controller::config_loader::{LoaderOptions, ReloadUrl, run_once, run_sidecar};
use controller::http::ListenAddress;
use controller::logging::{LogFormat, LogLevel};
use controller::runtime::termination_signal;

#[derive(Args)]
pub struct ConfigLoaderArgs {
    /// Namespace of the config Secrets (the pod's: `$(POD_NAMESPACE)`).
    #[arg(long)]
    namespace: String,
    /// Name of the head config Secret (`<agent>-config`, `<agent>-logs-config`, ...).
    #[arg(long, value_name = "NAME")]
    secret: String,
    /// The config file to write; its directory must exist.
    #[arg(long, value_name = "PATH")]
    output: PathBuf,
    /// Wait until a complete config can be written, write it and exit (the init container).
    #[arg(long)]
    once: bool,
    /// POSTed after each change of the file; a non-2xx answer puts the last accepted config
    /// back. Empty: no reload. Not used with --once.
    #[arg(
        long,
        default_value = "http://127.0.0.1:8080/-/reload",
        value_name = "URL"
    )]
    reload_url: String,
    /// Address of GET /ready (200 when the agent runs the newest config, 503 and the reason
    /// otherwise) and GET /healthz, HOST:PORT or :PORT; empty disables them. Not used with
    /// --once.
    #[arg(long, default_value = "0.0.0.0:8079", value_name = "ADDRESS")]
    listen_address: String,
    /// Log level: debug, info, warn or error.
    #[arg(long = "log.level", default_value = "info", value_name = "LEVEL")]
    log_level: LogLevel,
    /// Log format on stderr: logfmt or json.
    #[arg(long = "log.format", default_value = "logfmt", value_name = "FORMAT")]
    log_format: LogFormat,
}

pub fn run(args: ConfigLoaderArgs) -> Result<()> {
    controller::logging::init(args.log_level, args.log_format)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(serve(args))
}

async fn serve(args: ConfigLoaderArgs) -> Result<()> {
    let options = LoaderOptions {
        reload_url: ReloadUrl::parse(&args.reload_url)?,
        listen_address: ListenAddress::parse("listen-address", &args.listen_address)?,
        namespace: args.namespace,
        secret: args.secret,
        output: args.output,
        // Values that are not UTF-8 are no operator variable's.
        env: std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect(),
    };
    let shutdown = termination_signal()?;
    // KUBECONFIG, ~/.kube/config, or the pod's ServiceAccount.
    let controller::Connection { client, url } = controller::connect().await?;
    let secret = format!("{}/{}", options.namespace, options.secret);
    if args.once {
        let written = run_once(client, options, shutdown)
            .await
            .with_context(|| format!("loading the config of Secret {secret} from {url}"))?;
        anyhow::ensure!(
            written,
            "stopped before a complete config of Secret {secret} could be written"
        );
    } else {
        run_sidecar(client, options, shutdown)
            .await
            .with_context(|| format!("loading the config of Secret {secret} from {url}"))?;
    }
    Ok(())
}
