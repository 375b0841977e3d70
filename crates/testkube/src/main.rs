//! `testkube --kubeconfig PATH [--addr 127.0.0.1:PORT]`: serves an in-memory Kubernetes API until
//! killed, after writing a kubeconfig for it and printing its URL.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;

/// An in-memory Kubernetes API server for tests and local try-outs.
#[derive(Debug, Parser)]
#[command(version)]
struct Arguments {
    /// Where to write a kubeconfig pointing at the server.
    #[arg(long)]
    kubeconfig: PathBuf,
    /// Listen address; port 0 (the default) picks a free port.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// Seconds between watch bookmarks.
    #[arg(long, default_value_t = 5)]
    bookmark_interval: u64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let arguments = Arguments::parse();
    let options = testkube::Options {
        addr: arguments.addr,
        config: testkube::ServerConfig {
            bookmark_interval: Duration::from_secs(arguments.bookmark_interval.max(1)),
            ..testkube::ServerConfig::default()
        },
    };
    let server = testkube::TestKube::start_with(options)
        .await
        .context("starting the server")?;
    server
        .write_kubeconfig(&arguments.kubeconfig)
        .context("writing the kubeconfig")?;
    // The listener is bound and serving by now: this line tells scripts they may connect.
    println!("testkube serving at {}", server.url());
    tokio::signal::ctrl_c()
        .await
        .context("waiting for Ctrl-C")?;
    Ok(())
}
