//! Output types and builders shared by the metrics and logs configs: relabel rules, TLS,
//! auth blocks, kubernetes_sd_configs and the secret helpers (spec 4.1, 4.5, 4.6, 4.10).

use api::monitors::ScrapeEndpoint;

use crate::input_ref::InputRef;
use crate::rejection::{Reason, Rejection};
pub use crate::relabel::RelabelRule;

mod auth;
mod relabel;
mod sd;
mod secrets;
mod tls;

pub use auth::{
    AuthorizationOut, BasicAuthOut, OAuth2Out, ProxyOut, basic_auth_inline,
    basic_auth_password_file, bearer_authorization, oauth2, proxy, safe_authorization,
    scrape_oauth2,
};
pub use relabel::{check_regex, selector_relabels, user_relabel_rule, user_relabel_rules};
pub use sd::{
    AttachMetadataOut, KubernetesSdConfig, SdNamespaces, SdSelector, kubernetes_sd, sd_namespaces,
};
pub use secrets::{Secrets, non_empty, optional_value};
pub use tls::{
    TlsConfigOut, check_tls_pair, endpoint_tls, full_tls, safe_tls, scrape_tls, tls_versions,
};

/// A problem with one field of the object being rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    pub field: String,
    pub message: String,
    pub reason: Reason,
}

pub use crate::rejection::key_path;

/// Rendering code turns its field errors into rejections; the impl lives here so that
/// `rejection` does not depend on `config` (no module cycle).
impl Rejection {
    /// The rejection of `object` for a field error found while rendering it.
    pub fn of_field(object: InputRef, e: FieldError) -> Self {
        Rejection::new(object, e.reason, e.field, e.message)
    }
}

impl FieldError {
    /// A value the agent would refuse ([`Reason::InvalidValue`]).
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError::because(Reason::InvalidValue, field, message)
    }

    pub fn because(reason: Reason, field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
            reason,
        }
    }
}

/// `honor_timestamps` (spec 4.10.2): omitted when unset and not overridden.
pub fn honor_timestamps(endpoint: &ScrapeEndpoint, override_: bool) -> Option<bool> {
    match (endpoint.honor_timestamps, override_) {
        (None, false) => None,
        (None, true) => Some(false),
        (Some(v), o) => Some(v && !o),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejection_of_a_field_error_keeps_its_reason_field_and_message() {
        let object = InputRef::new(crate::input_ref::Kind::Probe, "ns", "p");
        let e = FieldError::because(Reason::InvalidDuration, "spec.x", "bad");
        let r = Rejection::of_field(object, e);
        assert_eq!(r.reason.to_string(), "InvalidDuration");
        assert_eq!(r.to_string(), "Probe ns/p: spec.x: bad");
    }

    #[test]
    fn honor_timestamps_has_five_cases() {
        let e = |v| ScrapeEndpoint {
            honor_timestamps: v,
            ..Default::default()
        };
        assert_eq!(honor_timestamps(&e(None), false), None);
        assert_eq!(honor_timestamps(&e(None), true), Some(false));
        assert_eq!(honor_timestamps(&e(Some(true)), false), Some(true));
        assert_eq!(honor_timestamps(&e(Some(true)), true), Some(false));
        assert_eq!(honor_timestamps(&e(Some(false)), false), Some(false));
    }
}
