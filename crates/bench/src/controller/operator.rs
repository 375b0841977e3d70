//! The `agent-operator run` process under measurement: started with a kubeconfig, its
//! /metrics read over loopback, its memory read from /proc, stopped or killed.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::requests::metric_sum;

/// Reconciles started, as the operator counts them.
pub const RECONCILES: &str = "agent_operator_reconcile_operations_total";

/// `--leader-election` settings for one process.
#[derive(Debug, Clone)]
pub struct LeaderElection {
    pub namespace: String,
    pub lease_name: String,
    pub identity: String,
    pub lease_duration: Duration,
}

/// Which operator a process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// `agent-operator run`.
    Ours,
    /// The upstream Grafana Agent Operator (`grafana-agent-operator`, Go flags).
    Upstream,
}

impl Flavor {
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Ours => "agent-operator",
            Flavor::Upstream => "upstream",
        }
    }

    /// The counter of reconciles started, as each operator exports it.
    pub fn reconciles_metric(self) -> &'static str {
        match self {
            Flavor::Ours => RECONCILES,
            Flavor::Upstream => "controller_runtime_reconcile_total",
        }
    }
}

/// A running operator; killed when dropped.
pub struct OperatorProcess {
    child: Child,
    metrics: SocketAddr,
    pub log: PathBuf,
}

impl OperatorProcess {
    pub fn start(
        binary: &Path,
        kubeconfig: &Path,
        log: PathBuf,
        leader_election: Option<&LeaderElection>,
    ) -> Result<OperatorProcess> {
        Self::start_flavor(Flavor::Ours, binary, kubeconfig, log, leader_election)
    }

    /// Starts `flavor`'s operator (leader election: ours only).
    pub fn start_flavor(
        flavor: Flavor,
        binary: &Path,
        kubeconfig: &Path,
        log: PathBuf,
        leader_election: Option<&LeaderElection>,
    ) -> Result<OperatorProcess> {
        let metrics = free_port()?;
        let log_file =
            std::fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
        let mut command = Command::new(binary);
        match flavor {
            Flavor::Ours => {
                command
                    .arg("run")
                    .arg("--metrics-listen-address")
                    .arg(metrics.to_string());
            }
            Flavor::Upstream => {
                command.arg(format!("-metrics-listen-address={metrics}"));
            }
        }
        command
            .env("KUBECONFIG", kubeconfig)
            .env_remove("POD_NAME")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file);
        if let Some(le) = leader_election {
            command
                .arg("--leader-election")
                .arg("--leader-election-namespace")
                .arg(&le.namespace)
                .arg("--leader-election-lease-name")
                .arg(&le.lease_name)
                .arg("--leader-election-identity")
                .arg(&le.identity)
                .arg("--leader-election-lease-duration")
                .arg(format!("{}s", le.lease_duration.as_secs()));
        }
        let child = command
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        Ok(OperatorProcess {
            child,
            metrics,
            log,
        })
    }

    /// Fails when the process has exited, pointing at its log.
    pub fn check_running(&mut self) -> Result<()> {
        if let Some(status) = self.child.try_wait()? {
            bail!(
                "agent-operator exited ({status}); see {}",
                self.log.display()
            );
        }
        Ok(())
    }

    /// The operator's /metrics text.
    pub async fn metrics_text(&self) -> Result<String> {
        let mut stream = tokio::net::TcpStream::connect(self.metrics)
            .await
            .with_context(|| {
                format!("connecting to the operator's /metrics at {}", self.metrics)
            })?;
        stream
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .await?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await?;
        let response = String::from_utf8_lossy(&response);
        let (head, body) = response
            .split_once("\r\n\r\n")
            .context("no HTTP response from /metrics")?;
        if !head.starts_with("HTTP/1.1 200") {
            bail!(
                "/metrics answered {}",
                head.lines().next().unwrap_or_default()
            );
        }
        Ok(body.to_owned())
    }

    /// The sum of metric `name`'s samples.
    pub async fn metric(&self, name: &str) -> Result<f64> {
        Ok(metric_sum(&self.metrics_text().await?, name))
    }

    /// Waits until /metrics answers (the process is up and serving).
    pub async fn wait_serving(&mut self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            self.check_running()?;
            if self.metrics_text().await.is_ok() {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("agent-operator did not serve /metrics within {timeout:?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Peak resident memory so far (`VmHWM`), in bytes.
    pub fn peak_rss(&self) -> Result<u64> {
        self.status_kib("VmHWM:").map(|kib| kib * 1024)
    }

    /// Resident memory now (`VmRSS`), in bytes.
    pub fn rss(&self) -> Result<u64> {
        self.status_kib("VmRSS:").map(|kib| kib * 1024)
    }

    fn status_kib(&self, field: &str) -> Result<u64> {
        status_kib(self.child.id(), field)
    }

    /// CPU time used so far (user + system).
    pub fn cpu_time(&self) -> Result<Duration> {
        cpu_time(self.child.id())
    }

    /// The process id (the process may have exited, but is not reaped before this is dropped).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `kill -9`: no lease release, no graceful shutdown.
    pub fn kill(&mut self) -> Result<()> {
        self.child.kill().context("killing agent-operator")?;
        self.child.wait()?;
        Ok(())
    }

    /// SIGTERM, then SIGKILL if it has not exited within 10 s.
    pub fn stop(&mut self) -> Result<()> {
        if self.child.try_wait()?.is_some() {
            return Ok(());
        }
        let pid = libc::pid_t::try_from(self.child.id()).context("pid out of range")?;
        // SAFETY: kill(2) on our own child's pid, which has not been reaped yet.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.child.try_wait()?.is_some() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill()
    }
}

impl Drop for OperatorProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A loopback address with a port free right now.
fn free_port() -> Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(listener.local_addr()?)
}

/// A `kB` field of `/proc/<pid>/status` (`VmHWM:`, `VmRSS:`), in KiB.
pub fn status_kib(pid: u32, field: &str) -> Result<u64> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .with_context(|| format!("no {field} in {path}"))
}

/// CPU time used so far by process `pid` (user + system), from `/proc/<pid>/stat`.
pub fn cpu_time(pid: u32) -> Result<Duration> {
    let path = format!("/proc/{pid}/stat");
    let stat = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    // Fields after the command name (which may hold spaces, inside parentheses): state is
    // field 3, utime 14 and stime 15.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .with_context(|| format!("no command name in {path}"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| -> Result<u64> {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .with_context(|| format!("no field {} in {path}", i + 3))
    };
    let total = ticks(11)? + ticks(12)?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = u64::try_from(hz).ok().filter(|&h| h > 0).unwrap_or(100);
    Ok(Duration::from_secs_f64(total as f64 / hz as f64))
}
