//! The `run` flags for logging, HTTP endpoints, leader election and the kubelet controller.

use std::time::Duration;

use anyhow::{Context, Result};
use controller::http::ListenAddress;
use controller::kubelet::KubeletService;
use controller::leader::{LeaderElectionConfig, default_identity};
use controller::logging::{LogFormat, LogLevel};
use controller::runtime::RuntimeConfig;

/// Where a Pod finds its own namespace.
const POD_NAMESPACE_FILE: &str = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

#[derive(clap::Args, Debug, Clone)]
pub struct RuntimeFlags {
    /// Log level: debug, info, warn or error.
    #[arg(long = "log.level", default_value = "info", value_name = "LEVEL")]
    pub log_level: LogLevel,
    /// Log format on stderr: logfmt (as upstream) or json.
    #[arg(long = "log.format", default_value = "logfmt", value_name = "FORMAT")]
    pub log_format: LogFormat,
    /// Address of the /metrics endpoint, HOST:PORT or :PORT; empty disables it.
    #[arg(long, default_value = ":8080", value_name = "ADDRESS")]
    pub metrics_listen_address: String,
    /// Address of /healthz and /readyz (also /-/healthy and /-/ready); empty disables them.
    #[arg(long, default_value = "", value_name = "ADDRESS")]
    pub health_listen_address: String,
    /// Maintain this headless Service, its Endpoints and EndpointSlices with every Node's
    /// address, for scraping kubelets and cAdvisor (NAMESPACE/NAME).
    #[arg(long, value_name = "NAMESPACE/NAME")]
    pub kubelet_service: Option<KubeletService>,
    /// Reconcile only while holding a Lease, so that several replicas can run.
    #[arg(long)]
    pub leader_election: bool,
    /// Namespace of the Lease [default: the Pod's namespace, else the kubeconfig's].
    #[arg(long, value_name = "NAMESPACE")]
    pub leader_election_namespace: Option<String>,
    /// Name of the Lease (the one deploy/ and the Helm chart create and grant access to).
    #[arg(long, default_value = "grafana-agent-operator", value_name = "NAME")]
    pub leader_election_lease_name: String,
    /// How long a lease lasts after its last renewal: the longest a standby waits for a
    /// leader that vanished. Whole seconds, as `15s`, `1m` or `1m30s`; at least 3s.
    #[arg(long, default_value = "15s", value_parser = parse_seconds, value_name = "DURATION")]
    pub leader_election_lease_duration: Duration,
    /// This process's identity in the Lease [default: HOSTNAME_PID; the Pod name in a cluster].
    #[arg(long, value_name = "IDENTITY")]
    pub leader_election_identity: Option<String>,
}

impl RuntimeFlags {
    /// The runtime configuration; `default_namespace` is the client's.
    pub fn runtime_config(&self, default_namespace: &str) -> Result<RuntimeConfig> {
        let leader_election = self.leader_election.then(|| {
            let namespace = self.leader_election_namespace.clone().unwrap_or_else(|| {
                std::fs::read_to_string(POD_NAMESPACE_FILE)
                    .map(|ns| ns.trim().to_string())
                    .ok()
                    .filter(|ns| !ns.is_empty())
                    .unwrap_or_else(|| default_namespace.to_string())
            });
            let duration = self.leader_election_lease_duration;
            LeaderElectionConfig {
                identity: self
                    .leader_election_identity
                    .clone()
                    .unwrap_or_else(default_identity),
                lease_duration: duration,
                // A third of the lease, as client-go's 15 s / 10 s renew deadline.
                renew_before: Duration::from_secs((duration.as_secs() / 3).max(1)),
                ..LeaderElectionConfig::new(namespace, &self.leader_election_lease_name)
            }
        });
        if let Some(config) = &leader_election {
            config
                .validate()
                .context("--leader-election-lease-duration")?;
        }
        Ok(RuntimeConfig {
            leader_election,
            kubelet_service: self.kubelet_service.clone(),
            metrics_address: ListenAddress::parse(
                "metrics-listen-address",
                &self.metrics_listen_address,
            )?,
            health_address: ListenAddress::parse(
                "health-listen-address",
                &self.health_listen_address,
            )?,
        })
    }
}

/// `90`, `90s`, `1m30s`, `2m`, `1h`: whole seconds, at least 3.
fn parse_seconds(value: &str) -> Result<Duration, String> {
    let invalid =
        || format!("{value:?} is not a duration in whole seconds such as 15s, 1m or 1m30s");
    let mut total: u64 = 0;
    let mut digits = String::new();
    for c in value.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(invalid()),
        };
        let amount: u64 = digits.parse().map_err(|_| invalid())?;
        total = amount
            .checked_mul(unit)
            .and_then(|seconds| total.checked_add(seconds))
            .ok_or_else(invalid)?;
        digits.clear();
    }
    if !digits.is_empty() {
        total = total
            .checked_add(digits.parse().map_err(|_| invalid())?)
            .ok_or_else(invalid)?;
    }
    if value.is_empty() || total < 3 {
        return Err(format!("{value:?}: a lease lasts at least 3s"));
    }
    Ok(Duration::from_secs(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lease_durations_are_whole_seconds() {
        let secs = |s| Ok(Duration::from_secs(s));
        assert_eq!(parse_seconds("15s"), secs(15));
        assert_eq!(parse_seconds("90"), secs(90));
        assert_eq!(parse_seconds("1m30s"), secs(90));
        assert_eq!(parse_seconds("1h"), secs(3600));
        for bad in [
            "",
            "1.5s",
            "15ms",
            "s",
            "2s",
            "-5s",
            "99999999999999999999h",
        ] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
