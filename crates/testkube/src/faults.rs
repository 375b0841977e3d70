//! Fault injection and request counters, shared by the server and the handles tests hold.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use crate::server::Shared;

/// Which requests a fault applies to; `None` matches anything. Resources are plural names,
/// with `/status` for the subresource (`deployments/status`). Verbs are Kubernetes verbs:
/// get, list, watch, create, update, patch, delete, deletecollection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestMatch {
    pub verb: Option<String>,
    pub resource: Option<String>,
}

impl RequestMatch {
    pub fn any() -> Self {
        Self::default()
    }

    pub fn verb(verb: &str) -> Self {
        RequestMatch {
            verb: Some(verb.to_string()),
            resource: None,
        }
    }

    pub fn resource(resource: &str) -> Self {
        RequestMatch {
            verb: None,
            resource: Some(resource.to_string()),
        }
    }

    pub fn verb_resource(verb: &str, resource: &str) -> Self {
        RequestMatch {
            verb: Some(verb.to_string()),
            resource: Some(resource.to_string()),
        }
    }

    pub fn matches(&self, verb: &str, resource: &str) -> bool {
        self.verb.as_deref().is_none_or(|wanted| wanted == verb)
            && self
                .resource
                .as_deref()
                .is_none_or(|wanted| wanted == resource)
    }
}

#[derive(Debug)]
struct FailureRule {
    matcher: RequestMatch,
    remaining: usize,
    code: u16,
}

#[derive(Debug)]
struct DelayRule {
    matcher: RequestMatch,
    delay: Duration,
}

#[derive(Debug, Default)]
pub(crate) struct FaultRules {
    failures: Vec<FailureRule>,
    delays: Vec<DelayRule>,
}

impl FaultRules {
    /// The status code to fail this request with, consuming one use of the rule.
    pub(crate) fn take_failure(&mut self, verb: &str, resource: &str) -> Option<u16> {
        let rule = self
            .failures
            .iter_mut()
            .find(|rule| rule.remaining > 0 && rule.matcher.matches(verb, resource))?;
        rule.remaining -= 1;
        let code = rule.code;
        self.failures.retain(|rule| rule.remaining > 0);
        Some(code)
    }

    pub(crate) fn delay_for(&self, verb: &str, resource: &str) -> Duration {
        self.delays
            .iter()
            .filter(|rule| rule.matcher.matches(verb, resource))
            .map(|rule| rule.delay)
            .sum()
    }
}

/// Handle to inject faults into a running server.
#[derive(Clone)]
pub struct Faults {
    pub(crate) shared: Arc<Shared>,
}

impl Faults {
    /// Fails the next `count` requests matching `matcher` with HTTP `code` and a Status body
    /// whose reason fits the code (409 Conflict, 500 InternalError, 429 TooManyRequests, ...).
    pub fn fail_next(&self, matcher: RequestMatch, count: usize, code: u16) {
        self.shared.faults.lock().failures.push(FailureRule {
            matcher,
            remaining: count,
            code,
        });
    }

    /// Delays every matching request (until [`Faults::clear`]) before it is served.
    pub fn delay(&self, matcher: RequestMatch, delay: Duration) {
        self.shared
            .faults
            .lock()
            .delays
            .push(DelayRule { matcher, delay });
    }

    /// Removes all failure and delay rules.
    pub fn clear(&self) {
        *self.shared.faults.lock() = FaultRules::default();
    }

    /// Ends every open watch stream now; clients reconnect from their last resourceVersion.
    pub fn close_watches(&self) {
        self.shared.state.lock().close_watches();
    }

    /// Makes every resourceVersion handed out so far too old: watches from one and continue
    /// tokens get 410 Gone, which forces clients to relist.
    pub fn expire_resource_versions(&self) {
        self.shared.state.lock().expire_resource_versions();
    }
}

/// Requests served, by verb and resource.
#[derive(Clone)]
pub struct Counters {
    pub(crate) shared: Arc<Shared>,
}

/// The counter table itself.
#[derive(Debug, Default)]
pub(crate) struct CounterTable {
    counts: BTreeMap<(String, String), u64>,
}

impl CounterTable {
    pub(crate) fn increment(&mut self, verb: &str, resource: &str) {
        *self
            .counts
            .entry((verb.to_string(), resource.to_string()))
            .or_default() += 1;
    }
}

const WRITE_VERBS: &[&str] = &["create", "update", "patch", "delete", "deletecollection"];

impl Counters {
    /// Requests with this verb on this resource (`configmaps`, `deployments/status`, ...).
    pub fn get(&self, verb: &str, resource: &str) -> u64 {
        let table: &Mutex<CounterTable> = &self.shared.counters;
        table
            .lock()
            .counts
            .get(&(verb.to_string(), resource.to_string()))
            .copied()
            .unwrap_or_default()
    }

    /// Requests with this verb on any resource.
    pub fn verb_total(&self, verb: &str) -> u64 {
        self.shared
            .counters
            .lock()
            .counts
            .iter()
            .filter(|((counted_verb, _), _)| counted_verb == verb)
            .map(|(_, count)| count)
            .sum()
    }

    /// Writes (create, update, patch, delete, deletecollection) on one resource.
    pub fn writes(&self, resource: &str) -> u64 {
        WRITE_VERBS
            .iter()
            .map(|verb| self.get(verb, resource))
            .sum()
    }

    /// Writes on any resource.
    pub fn total_writes(&self) -> u64 {
        WRITE_VERBS.iter().map(|verb| self.verb_total(verb)).sum()
    }

    /// Every counter, keyed by (verb, resource).
    pub fn snapshot(&self) -> BTreeMap<(String, String), u64> {
        self.shared.counters.lock().counts.clone()
    }

    pub fn reset(&self) {
        self.shared.counters.lock().counts.clear();
    }
}
