//! What can go wrong while reconciling, whether trying again soon can help, and the category
//! that labels `agent_operator_reconcile_errors` and names the Warning Event of a failure.

/// A failed reconcile step, naming the object it was acting on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An API request failed; `action` says what was being done to which object. The kube
    /// error is spelled out once, on the same line ([`one_line`]), and is not also reported as
    /// this error's source: kube's errors repeat their causes in their own messages, and
    /// printing the chain said each cause up to three times.
    #[error("{action}: {}", one_line(.cause))]
    Api { action: String, cause: kube::Error },
    #[error("encoding {object}: {source}")]
    Encode {
        object: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("agent-selector {selector:?}: {message}")]
    AgentSelector { selector: String, message: String },
    /// Discovery could not settle: the referenced Secrets or ConfigMaps kept changing while
    /// they were being read.
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
        move |cause| Error::Api { action, cause }
    }

    /// Whether retrying soon can succeed: server errors, conflicts, throttling and
    /// connection problems. Anything else (an invalid object, missing permission) needs a
    /// change first.
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Api { cause, .. } => match cause {
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
            cause: kube::Error::Api(status),
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

    /// What kind of failure this is: the `category` label of
    /// `agent_operator_reconcile_errors` and, as [`Category::reason`], the reason of the
    /// Warning Event a failed reconcile publishes. Refusals of several objects take the
    /// category of the first.
    pub fn category(&self) -> Category {
        match self {
            Error::Api { cause, .. } => match cause {
                kube::Error::Api(status) => match status.code {
                    409 => Category::Conflict,
                    429 => Category::Throttled,
                    401 | 403 => Category::Forbidden,
                    code if code >= 500 => Category::Unavailable,
                    _ => Category::Refused,
                },
                kube::Error::HyperError(_) | kube::Error::Service(_) => Category::Unavailable,
                _ => Category::Client,
            },
            Error::Encode { .. } => Category::Client,
            Error::AgentSelector { .. } => Category::Configuration,
            Error::Render { .. } => Category::Unstable,
            Error::Refused { errors } => errors.first().map_or(Category::Refused, Error::category),
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

/// An error and its causes as one line, each cause once: a cause whose message an earlier
/// one already contains is left out (kube's errors quote their sources in their own message).
pub fn one_line(error: &(dyn std::error::Error + 'static)) -> String {
    let mut kept: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(e) = next {
        let message = e.to_string();
        let message = message.trim();
        if !message.is_empty() && !kept.iter().any(|k| k.contains(message)) {
            kept.push(message.replace('\n', " "));
        }
        next = e.source();
    }
    kept.join(": ")
}

/// Why no client to the cluster could be made.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// Neither a kubeconfig nor the in-cluster service account was found.
    #[error(
        "no cluster to connect to (KUBECONFIG, ~/.kube/config or the in-cluster service account): {message}"
    )]
    NoConfiguration { message: String },
    #[error("connecting to {url}: {message}")]
    Client { url: String, message: String },
}

/// A client to the cluster `kubectl` would use, and that cluster's URL (for messages).
pub struct Connection {
    pub client: kube::Client,
    pub url: String,
}

/// Connects like kubectl: `KUBECONFIG`, `~/.kube/config`, or the in-cluster service account.
pub async fn connect() -> Result<Connection, ConnectError> {
    let config = kube::Config::infer()
        .await
        .map_err(|e| ConnectError::NoConfiguration {
            message: one_line(&e)
                .trim_start_matches("failed to infer config: ")
                .to_owned(),
        })?;
    let url = config.cluster_url.to_string();
    let client = kube::Client::try_from(config).map_err(|e| ConnectError::Client {
        url: url.clone(),
        message: one_line(&e),
    })?;
    Ok(Connection { client, url })
}

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// The API server could not be reached or answered 5xx.
    Unavailable,
    /// 409: someone else changed the object meanwhile.
    Conflict,
    /// 429: the API server asked to slow down.
    Throttled,
    /// 401 or 403: the operator may not do this (RBAC).
    Forbidden,
    /// Any other 4xx: the API server refused the object (a value it does not accept).
    Refused,
    /// The request could not be built or its answer read (encoding, TLS, configuration).
    Client,
    /// An operator flag is wrong (`--agent-selector`).
    Configuration,
    /// Referenced Secrets or ConfigMaps kept changing while being read.
    Unstable,
}

impl Category {
    /// Every category (the metric's series are served at zero from the start).
    pub const ALL: [Category; 8] = [
        Category::Unavailable,
        Category::Conflict,
        Category::Throttled,
        Category::Forbidden,
        Category::Refused,
        Category::Client,
        Category::Configuration,
        Category::Unstable,
    ];

    /// The metric label (`snake_case`).
    pub fn label(self) -> &'static str {
        match self {
            Category::Unavailable => "unavailable",
            Category::Conflict => "conflict",
            Category::Throttled => "throttled",
            Category::Forbidden => "forbidden",
            Category::Refused => "refused",
            Category::Client => "client",
            Category::Configuration => "configuration",
            Category::Unstable => "unstable",
        }
    }

    /// The Event reason (`CamelCase`, as Kubernetes reasons are).
    pub fn reason(self) -> &'static str {
        match self {
            Category::Unavailable => "APIUnavailable",
            Category::Conflict => "Conflict",
            Category::Throttled => "Throttled",
            Category::Forbidden => "Forbidden",
            Category::Refused => "RefusedByAPI",
            Category::Client => "ClientError",
            Category::Configuration => "InvalidFlag",
            Category::Unstable => "InputsUnstable",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer: {0}")]
    struct Outer(#[source] Inner);
    #[derive(Debug, thiserror::Error)]
    #[error("inner: connection refused")]
    struct Inner;
    #[derive(Debug, thiserror::Error)]
    #[error("client error (Connect)")]
    struct Quiet(#[source] Inner);

    #[test]
    fn a_cause_is_said_once() {
        // A message quoting its source: the source is not said again.
        assert_eq!(one_line(&Outer(Inner)), "outer: inner: connection refused");
        // A message that does not: both, once.
        assert_eq!(
            one_line(&Quiet(Inner)),
            "client error (Connect): inner: connection refused"
        );
        let api = Error::api("listing GrafanaAgents")(kube::Error::Service(Box::new(Outer(Inner))));
        let text = api.to_string();
        assert_eq!(text.matches("connection refused").count(), 1, "{text}");
        assert!(std::error::Error::source(&api).is_none());
    }

    fn status(code: u16) -> Error {
        let status: kube::core::Status = serde_json::from_value(serde_json::json!({
            "status": "Failure", "message": "m", "reason": "r", "code": code,
        }))
        .expect("a Status");
        Error::Api {
            action: "applying Secret ns/a".to_owned(),
            cause: kube::Error::Api(Box::new(status)),
        }
    }

    #[test]
    fn every_failure_has_a_category_that_agrees_with_whether_it_is_transient() {
        let cases = [
            (status(500), Category::Unavailable, true),
            (status(503), Category::Unavailable, true),
            (status(409), Category::Conflict, true),
            (status(429), Category::Throttled, true),
            (status(403), Category::Forbidden, false),
            (status(422), Category::Refused, false),
            (status(400), Category::Refused, false),
        ];
        for (error, category, transient) in cases {
            assert_eq!(error.category(), category, "{error}");
            assert_eq!(error.is_transient(), transient, "{error}");
        }
        let refused = Error::Refused {
            errors: vec![status(403), status(422)],
        };
        assert_eq!(refused.category(), Category::Forbidden);
        let selector = Error::AgentSelector {
            selector: "a b".into(),
            message: "m".into(),
        };
        assert_eq!(selector.category().label(), "configuration");
        assert_eq!(selector.category().reason(), "InvalidFlag");
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
            cause: kube::Error::Api(Box::new(status)),
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
