//! Kubernetes API errors, rendered as `kind: Status` bodies exactly like a real API server.

use serde_json::{Value, json};

/// One entry of `details.causes` in a Status body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusCause {
    /// Machine-readable reason, e.g. `FieldValueInvalid` or `FieldManagerConflict`.
    pub reason: String,
    pub message: String,
    /// JSON path of the offending field, e.g. `spec.selector`.
    pub field: String,
}

/// The `details` of a Status body.
#[derive(Debug, Clone, Default)]
pub struct ErrorDetails {
    pub name: Option<String>,
    pub group: Option<String>,
    /// The resource (plural) for NotFound/AlreadyExists/Conflict, the Kind for Invalid, as the
    /// real server reports them.
    pub kind: Option<String>,
    pub causes: Vec<StatusCause>,
}

/// An error answered to a client. Every failed request ends up here, so that clients decode a
/// proper `metav1.Status` with the reason and code a real API server would use.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{reason} ({code}): {message}")]
pub struct ApiError {
    pub code: u16,
    /// A `metav1.StatusReason` such as `NotFound` or `Conflict`.
    pub reason: String,
    pub message: String,
    /// Boxed: errors travel through every `Result` of the request path.
    pub details: Option<Box<ErrorDetails>>,
}

impl ApiError {
    pub fn new(code: u16, reason: impl Into<String>, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason: reason.into(),
            message: message.into(),
            details: None,
        }
    }

    /// The Status reason a real server uses for a bare HTTP status code; used by fault injection
    /// where a test only names the code.
    pub fn reason_for_code(code: u16) -> &'static str {
        match code {
            400 => "BadRequest",
            401 => "Unauthorized",
            403 => "Forbidden",
            404 => "NotFound",
            405 => "MethodNotAllowed",
            406 => "NotAcceptable",
            409 => "Conflict",
            410 => "Expired",
            413 => "RequestEntityTooLarge",
            415 => "UnsupportedMediaType",
            422 => "Invalid",
            429 => "TooManyRequests",
            500 => "InternalError",
            503 => "ServiceUnavailable",
            504 => "Timeout",
            _ => "Unknown",
        }
    }

    pub fn from_code(code: u16, message: impl Into<String>) -> Self {
        Self::new(code, Self::reason_for_code(code), message)
    }

    fn with_details(mut self, group: &str, kind: &str, name: &str) -> Self {
        let details = self.details.get_or_insert_with(Default::default);
        details.group = Some(group.to_string());
        details.kind = Some(kind.to_string());
        details.name = Some(name.to_string());
        self
    }

    pub fn with_causes(mut self, causes: Vec<StatusCause>) -> Self {
        self.details.get_or_insert_with(Default::default).causes = causes;
        self
    }

    pub fn causes(&self) -> &[StatusCause] {
        self.details
            .as_ref()
            .map(|details| details.causes.as_slice())
            .unwrap_or_default()
    }

    pub fn not_found(group: &str, resource: &str, name: &str) -> Self {
        Self::new(
            404,
            "NotFound",
            format!("{} \"{name}\" not found", qualified(group, resource)),
        )
        .with_details(group, resource, name)
    }

    pub fn already_exists(group: &str, resource: &str, name: &str) -> Self {
        Self::new(
            409,
            "AlreadyExists",
            format!("{} \"{name}\" already exists", qualified(group, resource)),
        )
        .with_details(group, resource, name)
    }

    /// Optimistic-concurrency failure, worded like the real server so that clients matching on
    /// the message (some do) behave the same.
    pub fn conflict(group: &str, resource: &str, name: &str, why: &str) -> Self {
        Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": {why}",
                qualified(group, resource)
            ),
        )
        .with_details(group, resource, name)
    }

    pub fn stale_resource_version(group: &str, resource: &str, name: &str) -> Self {
        Self::conflict(
            group,
            resource,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// 422 Invalid with one cause per offending field.
    pub fn invalid(group: &str, kind: &str, name: &str, causes: Vec<StatusCause>) -> Self {
        let summary: Vec<String> = causes
            .iter()
            .map(|cause| format!("{}: {}", cause.field, cause.message))
            .collect();
        let mut error = Self::new(
            422,
            "Invalid",
            format!(
                "{kind}.{} \"{name}\" is invalid: {}",
                group_or_core(group),
                summary.join(", ")
            ),
        )
        .with_details(group, kind, name);
        if group.is_empty() {
            error.message = format!("{kind} \"{name}\" is invalid: {}", summary.join(", "));
        }
        error.with_causes(causes)
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(403, "Forbidden", message)
    }

    pub fn method_not_allowed(message: impl Into<String>) -> Self {
        Self::new(405, "MethodNotAllowed", message)
    }

    pub fn unsupported_media_type(message: impl Into<String>) -> Self {
        Self::new(415, "UnsupportedMediaType", message)
    }

    /// 410 with reason `Expired`: what the server answers for a compacted resourceVersion or an
    /// outdated continue token.
    pub fn expired(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, "InternalError", message)
    }

    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(504, "Timeout", message)
    }

    /// The `kind: Status` body.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if let Some(details) = &self.details {
            let mut rendered = serde_json::Map::new();
            if let Some(name) = &details.name {
                rendered.insert("name".into(), json!(name));
            }
            if let Some(group) = details.group.as_ref().filter(|group| !group.is_empty()) {
                rendered.insert("group".into(), json!(group));
            }
            if let Some(kind) = &details.kind {
                rendered.insert("kind".into(), json!(kind));
            }
            if !details.causes.is_empty() {
                let causes: Vec<Value> = details
                    .causes
                    .iter()
                    .map(|cause| json!({"reason": cause.reason, "message": cause.message, "field": cause.field}))
                    .collect();
                rendered.insert("causes".into(), Value::Array(causes));
            }
            status["details"] = Value::Object(rendered);
        }
        status
    }
}

fn qualified(group: &str, resource: &str) -> String {
    if group.is_empty() {
        resource.to_string()
    } else {
        format!("{resource}.{group}")
    }
}

fn group_or_core(group: &str) -> &str {
    if group.is_empty() { "core" } else { group }
}

/// Shorthand for building a `FieldValueInvalid`-style cause.
pub fn cause(reason: &str, field: &str, message: impl Into<String>) -> StatusCause {
    StatusCause {
        reason: reason.to_string(),
        message: message.into(),
        field: field.to_string(),
    }
}
