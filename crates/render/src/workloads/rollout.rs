//! How the metrics StatefulSets roll their pods (a new pod template, as an upgrade of the
//! operator or a switch of runtime makes): slowly enough that no scrape is lost (issue 35,
//! ARCHITECTURE.md "Config delivery").

use crate::config::metrics::validate::{DEFAULT_SCRAPE_INTERVAL_MS, prometheus_duration};
use crate::discover::Hierarchy;

/// What a handover needs besides two scrape intervals: the new pod discovering its targets,
/// the batching of target updates before its scrape loops start (Prometheus' discovery and
/// scrape managers pass updates on at most every 5 s each), and the partner's last samples,
/// which a pod being stopped may not send; with room for a loaded node. The real-node test
/// prints how long each part took (BENCHMARKS.md, issue 35).
pub const FIRST_SCRAPE_ALLOWANCE_SECONDS: i32 = 15;

/// `minReadySeconds` of a metrics StatefulSet of `pods` pods: the StatefulSet controller
/// replaces the next pod of a roll only once the new one has been Ready this long, so a new
/// pod has scraped every target (at the agent's `scrapeInterval`) before the pod that covers
/// for it meanwhile stops, and no scrape is missed. One interval: the new pod's first scrape of
/// a target waits for the target's offset in the interval; the partner's last scrape then came
/// less than an interval before the new pod's first, which is all "no scrape missed" asks (an
/// overlap of samples is not needed). A lone pod has nobody covering for it: the roll is not
/// slowed then.
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
