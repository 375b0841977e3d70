//! What can go wrong while reconciling, and whether trying again soon can help.

use std::time::Duration;

/// A failed reconcile step, naming the object it was acting on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An API request failed; `action` says what was being done to which object.
    #[error("{action}: {source}")]
    Api {
        action: String,
        #[source]
        source: kube::Error,
    },
    #[error("encoding {object}: {source}")]
    Encode {
        object: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("agent-selector {selector:?}: {message}")]
    AgentSelector { selector: String, message: String },
    /// The render step panicked or its blocking task was cancelled.
    #[error("rendering {agent}: {message}")]
    Render { agent: String, message: String },
}

impl Error {
    pub(crate) fn api(action: impl Into<String>) -> impl FnOnce(kube::Error) -> Error {
        let action = action.into();
        move |source| Error::Api { action, source }
    }

    /// Whether retrying soon can succeed: server errors, conflicts, throttling and
    /// connection problems. Anything else (an invalid object, missing permission) needs a
    /// change first.
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Api { source, .. } => match source {
                kube::Error::Api(status) => {
                    status.code >= 500 || status.code == 409 || status.code == 429
                }
                kube::Error::HyperError(_) | kube::Error::Service(_) => true,
                _ => false,
            },
            Error::Encode { .. } | Error::AgentSelector { .. } => false,
            Error::Render { .. } => true,
        }
    }

    /// Whether the API answered 422 Invalid (an immutable field changed, for workloads).
    pub(crate) fn is_invalid(&self) -> bool {
        matches!(self, Error::Api { source: kube::Error::Api(s), .. } if s.code == 422)
    }
}

/// How long to wait before retrying after `failures` transient errors in a row: doubling from
/// half a second, at most five minutes.
pub(crate) fn backoff(failures: u32) -> Duration {
    let millis = 500u64.saturating_mul(1u64 << failures.min(10));
    Duration::from_millis(millis.min(300_000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_five_minutes() {
        assert_eq!(backoff(0), Duration::from_millis(500));
        assert_eq!(backoff(1), Duration::from_secs(1));
        assert_eq!(backoff(3), Duration::from_secs(4));
        assert_eq!(backoff(30), Duration::from_secs(300));
    }
}
