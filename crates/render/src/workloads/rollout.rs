//! How the metrics StatefulSets roll their pods (a new pod template, as an upgrade of the
//! operator or a switch of runtime makes): slowly enough that no scrape is lost (issue 35,
//! ARCHITECTURE.md "Config delivery").

use crate::config::metrics::validate::{DEFAULT_SCRAPE_INTERVAL_MS, prometheus_duration};
use crate::discover::Hierarchy;

/// How long after Ready a new pod's first scrape of a target may come, besides the target's
/// offset in the interval: discovering its targets, then Prometheus' discovery and scrape
/// managers, which pass updates on at most every 5 s each (measured on the real node: up to
/// 14.4 s in all with the target's offset, Alloy at a 5 s interval; BENCHMARKS.md, issue 35).
const FIRST_SCRAPE_SECONDS: i32 = 10;

/// How often the agent's remote write reads its WAL: on Prometheus' 15 s watcher timer only,
/// since the agent's static-mode WAL never wakes the reader on a write (Alloy's does). So a
/// sample reaches the remote end up to this long after its scrape, and at a stop what was not
/// read is never sent (nor by the next pod, whose reader starts at its own start): a stopping
/// partner's last delivered sample can be this and an interval older than its stop (CI saw a
/// handover of 5.6 s at a 5 s interval with only the first-scrape allowance).
pub const AGENT_WAL_READ_SECONDS: i32 = 15;

/// Room for a loaded node (late timers, slow starts).
const LOADED_NODE_SECONDS: i32 = 5;

/// What a handover needs besides the scrape interval (the new pod's first scrape waits for
/// the target's offset in it): the new pod's first scrape has to come before the partner's
/// stop by what the partner may not send.
const FIRST_SCRAPE_ALLOWANCE_SECONDS: i32 =
    FIRST_SCRAPE_SECONDS + AGENT_WAL_READ_SECONDS + LOADED_NODE_SECONDS;

/// `minReadySeconds` of a metrics StatefulSet of `pods` pods: the StatefulSet controller
/// replaces the next pod of a roll only once the new one has been Ready this long, so a new
/// pod has scraped every target (at the agent's `scrapeInterval`) before the last samples the
/// pod covering for it meanwhile sends, and no scrape is missed: the new pod's first sample of
/// a target then comes less than an interval after the partner's last (an overlap of samples
/// is not needed). A lone pod has nobody covering for it: the roll is not slowed then.
pub fn min_ready_seconds(h: &Hierarchy, pods: i32) -> Option<i32> {
    if pods < 2 {
        return None;
    }
    let interval_ms = h
        .agent
        .spec
        .metrics
        .as_ref()
        .and_then(|m| m.scrape_interval.as_deref())
        .filter(|i| !i.is_empty())
        // An invalid interval is reported with the config, which leaves the agent's default.
        .and_then(|i| prometheus_duration(i).ok())
        .unwrap_or(DEFAULT_SCRAPE_INTERVAL_MS);
    let interval_seconds = i32::try_from(interval_ms.div_ceil(1000)).unwrap_or(i32::MAX);
    Some(interval_seconds.saturating_add(FIRST_SCRAPE_ALLOWANCE_SECONDS))
}
