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
    /// The API server refused some planned objects for good (the others were written).
    #[error("{}", refused_message(.errors))]
    Refused { errors: Vec<Error> },
}

fn refused_message(errors: &[Error]) -> String {
    let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
    messages.join("; ")
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
            Error::Encode { .. } | Error::AgentSelector { .. } | Error::Refused { .. } => false,
            Error::Render { .. } => true,
        }
    }

    /// Whether the API refused an update only because it changes fields that cannot change
    /// (a workload's selector, a StatefulSet's claim templates): deleting and creating the
    /// object again is then the way to apply it. A 422 with any other cause (a value the server
    /// refuses in any object, such as a claim template without a size, compatibility Q29)
    /// would be refused on creation too, and deleting would only take the running one away.
    pub(crate) fn is_immutable_field_change(&self) -> bool {
        let Error::Api {
            source: kube::Error::Api(status),
            ..
        } = self
        else {
            return false;
        };
        if status.code != 422 {
            return false;
        }
        let immutable = |reason: &str, message: &str| {
            reason == "FieldValueForbidden" || message.contains("field is immutable")
        };
        match status.details.as_ref().map(|d| d.causes.as_slice()) {
            Some(causes) if !causes.is_empty() => {
                causes.iter().all(|c| immutable(&c.reason, &c.message))
            }
            _ => immutable("", &status.message),
        }
    }

    /// One error for the objects the server refused, if any.
    pub(crate) fn refused(mut errors: Vec<Error>) -> Option<Error> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(Error::Refused { errors }),
        }
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

    /// A 422 as kube-apiserver answers it, with these `(reason, field)` causes.
    fn invalid(causes: &[(&str, &str, &str)]) -> Error {
        let causes: Vec<serde_json::Value> = causes
            .iter()
            .map(|(reason, message, field)| {
                serde_json::json!({"reason": reason, "message": message, "field": field})
            })
            .collect();
        let status: kube::core::Status = serde_json::from_value(serde_json::json!({
            "status": "Failure",
            "message": "StatefulSet.apps \"agent\" is invalid",
            "reason": "Invalid",
            "details": {"name": "agent", "group": "apps", "kind": "StatefulSet", "causes": causes},
            "code": 422,
        }))
        .expect("a Status");
        Error::Api {
            action: "applying StatefulSet ns/agent".to_owned(),
            source: kube::Error::Api(Box::new(status)),
        }
    }

    #[test]
    fn only_a_change_of_fields_that_cannot_change_is_fixed_by_recreating() {
        let statefulset_spec = (
            "FieldValueForbidden",
            "Forbidden: updates to statefulset spec for fields other than 'replicas' are forbidden",
            "spec",
        );
        let selector = (
            "FieldValueInvalid",
            "Invalid value: {\"app\":\"x\"}: field is immutable",
            "spec.selector",
        );
        let no_size = (
            "FieldValueRequired",
            "Required value",
            "spec.volumeClaimTemplates[0].spec.resources[storage]",
        );
        assert!(invalid(&[statefulset_spec]).is_immutable_field_change());
        assert!(invalid(&[selector]).is_immutable_field_change());
        assert!(invalid(&[statefulset_spec, selector]).is_immutable_field_change());
        // Refused in any object (Q29): recreating would delete the running one for nothing.
        assert!(!invalid(&[no_size]).is_immutable_field_change());
        assert!(!invalid(&[statefulset_spec, no_size]).is_immutable_field_change());
        assert!(!invalid(&[]).is_immutable_field_change());
    }

    #[test]
    fn refusals_are_one_error_that_waits_for_a_change() {
        assert!(Error::refused(Vec::new()).is_none());
        let one = Error::refused(vec![invalid(&[])]).expect("one");
        assert!(matches!(one, Error::Api { .. }));
        let two = Error::refused(vec![invalid(&[]), invalid(&[])]).expect("two");
        assert!(!two.is_transient());
        assert_eq!(
            two.to_string()
                .matches("applying StatefulSet ns/agent")
                .count(),
            2
        );
    }
}
