//! Output types and builders shared by the metrics and logs configs: relabel rules, TLS,
//! auth blocks, kubernetes_sd_configs and the secret helpers (spec 4.1, 4.5, 4.6, 4.10).

use std::collections::BTreeMap;

use api::monitors::ScrapeEndpoint;
use api::prometheus::{
    ApiServerConfig, BasicAuth, OAuth2, RelabelConfig, SafeTlsConfig, TlsConfig,
};
use api::selectors::{NamespaceSelector, SecretKeySelector, SecretOrConfigMap};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::Serialize;

use crate::assets::{AssetError, AssetKey, Assets};
use crate::input_ref::InputRef;
use crate::references::is_optional;
use crate::rejection::{Reason, Rejection};
pub use crate::relabel::RelabelRule;

/// A problem with one field of the object being rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    pub field: String,
    pub message: String,
    pub reason: Reason,
}

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

/// Secret lookups for one object: references resolve in `namespace` (spec 4.1).
#[derive(Clone, Copy)]
pub struct Secrets<'a> {
    pub assets: &'a Assets,
    pub namespace: &'a str,
}

impl Secrets<'_> {
    /// The value of a Secret key, inlined into the config; `None` when the selector is
    /// optional and the Secret or its key is missing (Q17: the field is left out).
    pub fn value(
        &self,
        sel: &SecretKeySelector,
        field: &str,
    ) -> Result<Option<String>, FieldError> {
        let key = AssetKey::secret(self.namespace, sel);
        self.lookup(Assets::value, &key, sel.optional == Some(true), field)
    }

    /// The value of a Secret-or-ConfigMap key; `None` when neither branch is set, or the one
    /// used is optional and missing.
    pub fn value_of(
        &self,
        sel: &SecretOrConfigMap,
        field: &str,
    ) -> Result<Option<String>, FieldError> {
        let Some(key) = AssetKey::secret_or_config_map(self.namespace, sel) else {
            return Ok(None);
        };
        self.lookup(Assets::value, &key, is_optional(sel), field)
    }

    /// The in-pod path of a Secret key; `None` when the selector is optional and the Secret
    /// or its key is missing.
    pub fn path(&self, sel: &SecretKeySelector, field: &str) -> Result<Option<String>, FieldError> {
        let key = AssetKey::secret(self.namespace, sel);
        self.lookup(Assets::path, &key, sel.optional == Some(true), field)
    }

    /// The in-pod path of a Secret-or-ConfigMap key; `None` when neither branch is set, or
    /// the one used is optional and missing.
    pub fn path_of(
        &self,
        sel: &SecretOrConfigMap,
        field: &str,
    ) -> Result<Option<String>, FieldError> {
        let Some(key) = AssetKey::secret_or_config_map(self.namespace, sel) else {
            return Ok(None);
        };
        self.lookup(Assets::path, &key, is_optional(sel), field)
    }

    /// `get` of `key`, its error naming `field`. An optional selector whose object or key is
    /// missing gives `None`: the field is left out, whether it takes the value or a file.
    fn lookup(
        &self,
        get: fn(&Assets, &AssetKey) -> Result<String, AssetError>,
        key: &AssetKey,
        optional: bool,
        field: &str,
    ) -> Result<Option<String>, FieldError> {
        if optional && self.assets.is_missing(key) {
            return Ok(None);
        }
        get(self.assets, key)
            .map(Some)
            .map_err(|e| FieldError::because(Reason::of_asset_error(&e), field, e.to_string()))
    }
}

/// `Some(s)` unless `s` is empty: upstream turns empty strings into absent keys.
pub fn non_empty(s: &Option<String>) -> Option<String> {
    s.as_ref().filter(|s| !s.is_empty()).cloned()
}

/// Relabel actions Prometheus accepts (it lowercases them before checking).
const RELABEL_ACTIONS: &[&str] = &[
    "replace",
    "keep",
    "drop",
    "hashmod",
    "labelmap",
    "labeldrop",
    "labelkeep",
    "lowercase",
    "uppercase",
    "keepequal",
    "dropequal",
];

/// A user's relabel rule, rendered as upstream does and checked so that the agent will load
/// it: the regex must compile as RE2 (Prometheus anchors it), the action must exist, and
/// the action's required fields must be present.
pub fn user_relabel_rule(rule: &RelabelConfig, field: &str) -> Result<RelabelRule, FieldError> {
    let action = rule.action.to_ascii_lowercase();
    if !RELABEL_ACTIONS.contains(&action.as_str()) {
        return Err(FieldError::new(
            format!("{field}.action"),
            format!("unknown relabel action {:?}", rule.action),
        ));
    }
    if let Some(re) = rule.regex.as_deref().filter(|r| !r.is_empty()) {
        check_regex(re, &format!("{field}.regex"))?;
    }
    let target = non_empty(&rule.target_label);
    let needs_target = matches!(
        action.as_str(),
        "replace" | "hashmod" | "lowercase" | "uppercase" | "keepequal" | "dropequal"
    );
    if needs_target && target.is_none() {
        return Err(FieldError::new(
            format!("{field}.targetLabel"),
            format!("relabel action {} requires a targetLabel", rule.action),
        ));
    }
    if let Some(t) = &target {
        check_target_label(&action, t, &format!("{field}.targetLabel"))?;
    }
    if action == "hashmod" && rule.modulus.unwrap_or(0) == 0 {
        return Err(FieldError::new(
            format!("{field}.modulus"),
            "relabel action hashmod requires a modulus above 0",
        ));
    }
    Ok(RelabelRule {
        source_labels: rule.source_labels.clone(),
        separator: non_empty(&rule.separator),
        regex: non_empty(&rule.regex),
        modulus: rule.modulus.filter(|m| *m != 0),
        target_label: target,
        replacement: non_empty(&rule.replacement),
        action: Some(rule.action.clone()).filter(|a| !a.is_empty()),
    })
}

/// Prometheus' check of a target label: `hashmod` needs a label name; `replace` and the
/// other writing actions also accept `$1`/`${name}` references in it. Anything else makes
/// the agent refuse the whole config.
fn check_target_label(action: &str, target: &str, field: &str) -> Result<(), FieldError> {
    static RELABEL_TARGET: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| {
            regex::Regex::new(
                r"^(?:(?:[a-zA-Z_]|\$(?:\{[0-9A-Za-z_]+\}|[0-9A-Za-z_]+))+[0-9A-Za-z_]*)+$",
            )
            .ok()
        });
    let is_label_name = |t: &str| {
        t.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let valid = match action {
        "hashmod" => is_label_name(target),
        "replace" | "lowercase" | "uppercase" | "keepequal" | "dropequal" => {
            RELABEL_TARGET.as_ref().is_none_or(|re| re.is_match(target))
        }
        _ => true,
    };
    if valid {
        Ok(())
    } else {
        Err(FieldError::because(
            Reason::InvalidLabelName,
            field,
            format!("{target:?} is not a valid target label for action {action}"),
        ))
    }
}

/// Renders a list of user rules; the first bad rule fails the list.
pub fn user_relabel_rules(
    rules: &[RelabelConfig],
    field: &str,
) -> Result<Vec<RelabelRule>, FieldError> {
    rules
        .iter()
        .enumerate()
        .map(|(i, r)| user_relabel_rule(r, &format!("{field}[{i}]")))
        .collect()
}

/// Checks that `re` compiles the way Prometheus compiles relabel regexes (RE2, anchored).
///
/// Only the syntax is checked: building the automaton would cost a third of a large render
/// (tens of thousands of rules) and the agent compiles the regexes itself anyway.
///
/// A handful of distinct patterns usually account for every monitor of a large hierarchy, so
/// each thread remembers the ones it has found valid (up to [`KNOWN_VALID_REGEXES`]).
pub fn check_regex(re: &str, field: &str) -> Result<(), FieldError> {
    thread_local! {
        static KNOWN_VALID: std::cell::RefCell<std::collections::HashSet<String>> =
            std::cell::RefCell::default();
    }
    if KNOWN_VALID.with_borrow(|known| known.contains(re)) {
        return Ok(());
    }
    regex_syntax::Parser::new()
        .parse(&format!("^(?:{re})$"))
        .map_err(|e| {
            let message = format!("invalid regular expression {re:?}: {e}");
            FieldError::because(Reason::InvalidRegex, field, message)
        })?;
    KNOWN_VALID.with_borrow_mut(|known| {
        if known.len() >= KNOWN_VALID_REGEXES {
            known.clear();
        }
        known.insert(re.to_owned());
    });
    Ok(())
}

/// How many valid patterns each thread remembers before it starts over.
const KNOWN_VALID_REGEXES: usize = 4096;

/// Relabel rules that keep only targets whose meta labels satisfy `selector` (spec 4.7 steps
/// 2-3): `label_prefix` + sanitized key for values, `present_prefix` + key for existence.
/// Unlike upstream, an unknown operator is an error instead of being dropped (Q25).
pub fn selector_relabels(
    selector: &LabelSelector,
    label_prefix: &str,
    present_prefix: &str,
    field: &str,
) -> Result<Vec<RelabelRule>, FieldError> {
    use crate::assets::sanitize_label;
    let mut rules = Vec::new();
    // BTreeMap iteration gives the sorted key order upstream uses.
    for (k, v) in selector.match_labels.iter().flatten() {
        let source = format!("{label_prefix}{}", sanitize_label(k));
        rules.push(RelabelRule::filter(&source, v, "keep"));
    }
    for (i, req) in selector.match_expressions.iter().flatten().enumerate() {
        let values = req.values.clone().unwrap_or_default().join("|");
        let label = format!("{label_prefix}{}", sanitize_label(&req.key));
        let present = format!("{present_prefix}{}", sanitize_label(&req.key));
        rules.push(match req.operator.as_str() {
            "In" => RelabelRule::filter(&label, &values, "keep"),
            "NotIn" => RelabelRule::filter(&label, &values, "drop"),
            "Exists" => RelabelRule::filter(&present, "true", "keep"),
            "DoesNotExist" => RelabelRule::filter(&present, "true", "drop"),
            other => {
                return Err(FieldError::because(
                    Reason::InvalidSelector,
                    format!("{field}.matchExpressions[{i}].operator"),
                    format!("unknown operator {other:?} (want In, NotIn, Exists or DoesNotExist)"),
                ));
            }
        });
    }
    Ok(rules)
}

/// The namespaces a monitor's service discovery covers (spec 4.5); empty means all.
pub fn sd_namespaces(
    selector: Option<&NamespaceSelector>,
    own: &str,
    ignore_selectors: bool,
) -> Vec<String> {
    match selector {
        _ if ignore_selectors => vec![own.to_owned()],
        Some(s) if s.any => Vec::new(),
        Some(s) if !s.match_names.is_empty() => s.match_names.clone(),
        _ => vec![own.to_owned()],
    }
}

/// `tls_config` in agent.yml.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsConfigOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cert_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insecure_skip_verify: Option<bool>,
}

/// SafeTLSConfig: every file comes from a Secret or ConfigMap, by path (spec 4.6).
pub fn safe_tls(
    tls: &SafeTlsConfig,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<TlsConfigOut, FieldError> {
    let path_of = |s: &Option<SecretOrConfigMap>, name: &str| match s {
        Some(s) => secrets.path_of(s, &format!("{field}.{name}")),
        None => Ok(None),
    };
    Ok(TlsConfigOut {
        ca_file: path_of(&tls.ca, "ca")?,
        cert_file: path_of(&tls.cert, "cert")?,
        key_file: match &tls.key_secret {
            Some(k) => secrets.path(k, &format!("{field}.keySecret"))?,
            None => None,
        },
        server_name: non_empty(&tls.server_name),
        insecure_skip_verify: tls.insecure_skip_verify.filter(|v| *v),
    })
}

/// Full TLSConfig: literal files win over the Secret-backed paths (spec 4.6).
pub fn full_tls(
    tls: &TlsConfig,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<TlsConfigOut, FieldError> {
    let mut out = safe_tls(&tls.safe, secrets, field)?;
    let literal = |s: &Option<String>, current: Option<String>| non_empty(s).or(current);
    out.ca_file = literal(&tls.ca_file, out.ca_file);
    out.cert_file = literal(&tls.cert_file, out.cert_file);
    out.key_file = literal(&tls.key_file, out.key_file);
    Ok(out)
}

/// `basic_auth` in agent.yml; which fields are inlined and which are files depends on the
/// location (spec 4.17).
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct BasicAuthOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password_file: Option<String>,
}

/// Username and password both inlined (scrape jobs, kube SD, logs clients).
pub fn basic_auth_inline(
    auth: &BasicAuth,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<BasicAuthOut, FieldError> {
    Ok(BasicAuthOut {
        username: optional_value(
            auth.username.as_ref(),
            secrets,
            &format!("{field}.username"),
        )?,
        password: optional_value(
            auth.password.as_ref(),
            secrets,
            &format!("{field}.password"),
        )?,
        password_file: None,
    })
}

/// Username inlined, password as a file (remote_write).
pub fn basic_auth_password_file(
    auth: &BasicAuth,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<BasicAuthOut, FieldError> {
    Ok(BasicAuthOut {
        username: optional_value(
            auth.username.as_ref(),
            secrets,
            &format!("{field}.username"),
        )?,
        password: None,
        password_file: match &auth.password {
            Some(s) => secrets.path(s, &format!("{field}.password"))?,
            None => None,
        },
    })
}

/// The value of an optional selector field: `None` when unset (or optional and missing).
pub fn optional_value(
    sel: Option<&SecretKeySelector>,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<Option<String>, FieldError> {
    match sel {
        Some(s) => secrets.value(s, field),
        None => Ok(None),
    }
}

/// `oauth2` in agent.yml: client id inlined from its Secret or ConfigMap (upstream renders
/// none for a ConfigMap, Q17 fixed), client secret as a file.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct OAuth2Out {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret_file: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub endpoint_params: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub token_url: String,
}

pub fn oauth2(o: &OAuth2, secrets: Secrets<'_>, field: &str) -> Result<OAuth2Out, FieldError> {
    // The agent refuses an oauth2 block without client_id or without client_secret, so one
    // that cannot be read (neither branch set, or optional and missing) fails the block's
    // owner instead of being left out.
    let id_field = format!("{field}.clientId");
    let client_id = match secrets.value_of(&o.client_id, &id_field)? {
        Some(id) => id,
        None => match AssetKey::secret_or_config_map(secrets.namespace, &o.client_id) {
            None => {
                return Err(FieldError::because(
                    Reason::IncompleteReference,
                    id_field,
                    "neither secret nor configMap is set, and the agent refuses oauth2 without \
                     a client_id",
                ));
            }
            Some(key) => return Err(required_but_missing(secrets, key, id_field, "client_id")),
        },
    };
    let secret_field = format!("{field}.clientSecret");
    let Some(client_secret_file) = secrets.path(&o.client_secret, &secret_field)? else {
        let key = AssetKey::secret(secrets.namespace, &o.client_secret);
        return Err(required_but_missing(
            secrets,
            key,
            secret_field,
            "client secret",
        ));
    };
    Ok(OAuth2Out {
        client_id: Some(client_id),
        client_secret_file: Some(client_secret_file),
        endpoint_params: o.endpoint_params.clone(),
        scopes: o.scopes.clone(),
        token_url: o.token_url.clone(),
    })
}

/// The error for an optional reference that is missing where the agent cannot do without
/// the setting (`what`), with the reason of what is missing: the object or the key.
fn required_but_missing(
    secrets: Secrets<'_>,
    key: AssetKey,
    field: String,
    what: &str,
) -> FieldError {
    let missing = secrets
        .assets
        .value(&key)
        .err()
        .unwrap_or(AssetError::KeyMissing(key));
    FieldError::because(
        Reason::of_asset_error(&missing),
        field,
        format!(
            "{missing} (the selector is optional, but the agent refuses oauth2 without a {what})"
        ),
    )
}

/// `authorization` in agent.yml.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthorizationOut {
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credentials_file: Option<String>,
}

/// `{type: Bearer, credentials?, credentials_file?}` when either is non-empty.
pub fn bearer_authorization(
    token: &Option<String>,
    token_file: &Option<String>,
) -> Option<AuthorizationOut> {
    let (credentials, credentials_file) = (non_empty(token), non_empty(token_file));
    (credentials.is_some() || credentials_file.is_some()).then(|| AuthorizationOut {
        type_: "Bearer".to_owned(),
        credentials,
        credentials_file,
    })
}

/// `namespaces: {names: [...]}` of a kubernetes_sd_configs entry.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct SdNamespaces {
    pub names: Vec<String>,
}

/// One `kubernetes_sd_configs` entry (spec 4.5).
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct KubernetesSdConfig {
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespaces: Option<SdNamespaces>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_server: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuthOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization: Option<AuthorizationOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfigOut>,
}

/// A kubernetes_sd_configs entry for `role` over `namespaces` (empty: all), reaching the API
/// through the agent's `apiServer` when set; its secrets resolve in the agent's namespace, so
/// errors here belong to the GrafanaAgent (fields under `spec.apiServer`).
pub fn kubernetes_sd(
    role: &str,
    namespaces: Vec<String>,
    api_server: Option<&ApiServerConfig>,
    agent_secrets: Secrets<'_>,
) -> Result<KubernetesSdConfig, FieldError> {
    let mut sd = KubernetesSdConfig {
        role: role.to_owned(),
        namespaces: (!namespaces.is_empty()).then_some(SdNamespaces { names: namespaces }),
        ..Default::default()
    };
    if let Some(api) = api_server {
        sd.api_server = Some(api.host.clone()).filter(|h| !h.is_empty());
        sd.basic_auth = api
            .basic_auth
            .as_ref()
            .map(|b| basic_auth_inline(b, agent_secrets, "spec.apiServer.basicAuth"))
            .transpose()?;
        sd.authorization = bearer_authorization(&api.bearer_token, &api.bearer_token_file);
        sd.tls_config = api
            .tls_config
            .as_ref()
            .map(|t| full_tls(t, agent_secrets, "spec.apiServer.tlsConfig"))
            .transpose()?;
        check_api_server_sd(&sd)?;
    }
    Ok(sd)
}

/// Rejects `spec.apiServer` settings Prometheus (and promtail, whose discovery is the same
/// code) refuses in a `kubernetes_sd_configs` entry, and with it the whole config.
fn check_api_server_sd(sd: &KubernetesSdConfig) -> Result<(), FieldError> {
    if sd.basic_auth.is_some() && sd.authorization.is_some() {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            "spec.apiServer",
            "sets basicAuth and a bearer token; Prometheus accepts only one",
        ));
    }
    if let Some(a) = &sd.authorization
        && a.credentials.is_some()
        && a.credentials_file.is_some()
    {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            "spec.apiServer",
            "sets both bearerToken and bearerTokenFile; Prometheus accepts only one",
        ));
    }
    let custom_http = sd.basic_auth.is_some()
        || sd.authorization.is_some()
        || sd
            .tls_config
            .as_ref()
            .is_some_and(|t| *t != TlsConfigOut::default());
    if sd.api_server.is_none() && custom_http {
        return Err(FieldError::new(
            "spec.apiServer.host",
            "is empty, but credentials or TLS settings are set; Kubernetes discovery accepts \
             them only with an explicit API server address",
        ));
    }
    check_tls_pair(sd.tls_config.as_ref(), "spec.apiServer.tlsConfig")
}

/// Rejects a client certificate without its key or the reverse: Prometheus refuses it.
pub fn check_tls_pair(tls: Option<&TlsConfigOut>, field: &str) -> Result<(), FieldError> {
    if let Some(t) = tls
        && t.cert_file.is_some() != t.key_file.is_some()
    {
        let (has, lacks) = if t.cert_file.is_some() {
            ("a client certificate", "its key")
        } else {
            ("a client key", "its certificate")
        };
        return Err(FieldError::new(
            field,
            format!("sets {has} without {lacks}; Prometheus refuses it"),
        ));
    }
    Ok(())
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
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    #[test]
    fn a_rejection_of_a_field_error_keeps_its_reason_field_and_message() {
        let object = InputRef::new(crate::input_ref::Kind::Probe, "ns", "p");
        let e = FieldError::because(Reason::InvalidDuration, "spec.x", "bad");
        let r = Rejection::of_field(object, e);
        assert_eq!(r.reason.to_string(), "InvalidDuration");
        assert_eq!(r.to_string(), "Probe ns/p: spec.x: bad");
    }

    /// Q17: a client id from a ConfigMap is inlined; one that cannot be read fails the oauth2
    /// block with the reason why, optional or not (the agent refuses oauth2 without it),
    /// while an optional client secret that is missing just leaves out its file.
    #[test]
    fn oauth2_client_ids_from_config_maps_and_their_failures() {
        use crate::assets::AssetSource;
        use crate::store::InputStore;
        use api::selectors::ConfigMapKeySelector;

        let mut inputs = InputStore::default();
        let data = BTreeMap::from([("id".to_owned(), b"cm-client".to_vec())]);
        inputs.apply_data(AssetSource::ConfigMap, "ns", "cm", None, data);
        let config_map = |name: &str, key: &str, optional: bool| ConfigMapKeySelector {
            name: name.into(),
            key: key.into(),
            optional: optional.then_some(true),
        };
        let oauth2_of = |client_id: SecretOrConfigMap| OAuth2 {
            client_id,
            client_secret: SecretKeySelector {
                name: "cm-secret".into(),
                key: "secret".into(),
                optional: None,
            },
            token_url: "https://auth.example/token".into(),
            ..OAuth2::default()
        };
        let from = |c: ConfigMapKeySelector| {
            oauth2_of(SecretOrConfigMap {
                secret: None,
                config_map: Some(c),
            })
        };
        let cases = [
            (from(config_map("cm", "id", false)), None),
            (
                from(config_map("cm", "other", true)),
                Some(Reason::KeyNotFound),
            ),
            (
                from(config_map("gone", "id", true)),
                Some(Reason::ConfigMapNotFound),
            ),
            (
                from(config_map("gone", "id", false)),
                Some(Reason::ConfigMapNotFound),
            ),
            (
                oauth2_of(SecretOrConfigMap::default()),
                Some(Reason::IncompleteReference),
            ),
        ];
        // A missing optional client secret fails the block too (Prometheus: "either oauth2
        // client_secret or client_secret_file must be configured").
        let without_secret = OAuth2 {
            client_secret: SecretKeySelector {
                name: "absent".into(),
                key: "secret".into(),
                optional: Some(true),
            },
            ..cases[0].0.clone()
        };
        let mut assets = Assets::default();
        for o in cases.iter().map(|(o, _)| o).chain([&without_secret]) {
            for key in [
                AssetKey::secret_or_config_map("ns", &o.client_id),
                Some(AssetKey::secret("ns", &o.client_secret)),
            ]
            .into_iter()
            .flatten()
            {
                // Discovery reports these failures itself; rendering meets them again.
                let _ = assets.resolve(&inputs, &key);
            }
        }
        let secrets = Secrets {
            assets: &assets,
            namespace: "ns",
        };
        for (o, want) in cases {
            let got = oauth2(&o, secrets, "spec.oauth2");
            match want {
                None => {
                    let out = got.expect("renders");
                    assert_eq!(out.client_id.as_deref(), Some("cm-client"));
                    assert!(out.client_secret_file.is_some());
                }
                Some(reason) => {
                    let e = got.expect_err("fails");
                    assert_eq!(
                        (e.reason, e.field.as_str()),
                        (reason, "spec.oauth2.clientId")
                    );
                }
            }
        }
        let e = oauth2(&without_secret, secrets, "spec.oauth2").expect_err("no client secret");
        assert_eq!(
            (e.reason, e.field.as_str()),
            (Reason::SecretNotFound, "spec.oauth2.clientSecret")
        );
        assert!(e.message.contains("client secret"), "{e}");
    }

    #[test]
    fn api_server_credentials_need_an_api_server_address() {
        let bearer = KubernetesSdConfig {
            authorization: bearer_authorization(&Some("t0ken".into()), &None),
            ..Default::default()
        };
        let e = check_api_server_sd(&bearer).expect_err("no host");
        assert_eq!(e.field, "spec.apiServer.host");
        assert!(
            e.message.contains("explicit API server address"),
            "{}",
            e.message
        );
        let with_host = KubernetesSdConfig {
            api_server: Some("https://kubernetes.default.svc".into()),
            ..bearer
        };
        assert!(check_api_server_sd(&with_host).is_ok());
        let empty_tls = KubernetesSdConfig {
            tls_config: Some(TlsConfigOut::default()),
            ..Default::default()
        };
        assert!(
            check_api_server_sd(&empty_tls).is_ok(),
            "an empty tlsConfig is the default"
        );
        let skip_verify = KubernetesSdConfig {
            tls_config: Some(TlsConfigOut {
                insecure_skip_verify: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert!(check_api_server_sd(&skip_verify).is_err());
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

    #[test]
    fn sd_namespaces_follow_spec_4_5() {
        let any = NamespaceSelector {
            any: true,
            match_names: vec![],
        };
        let names = NamespaceSelector {
            any: false,
            match_names: vec!["b".into(), "a".into()],
        };
        assert_eq!(sd_namespaces(Some(&any), "own", true), vec!["own"]);
        assert!(sd_namespaces(Some(&any), "own", false).is_empty());
        assert_eq!(sd_namespaces(Some(&names), "own", false), vec!["b", "a"]);
        assert_eq!(sd_namespaces(None, "own", false), vec!["own"]);
    }

    #[test]
    fn selector_rules_sort_match_labels_and_join_values_unescaped() {
        let sel = LabelSelector {
            match_labels: Some(
                [
                    ("z".to_string(), "1".to_string()),
                    ("a.b".to_string(), "2".to_string()),
                ]
                .into(),
            ),
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "k".into(),
                operator: "In".into(),
                values: Some(vec!["x.y".into(), "z".into()]),
            }]),
        };
        let rules = selector_relabels(&sel, "l_", "p_", "spec.selector").expect("valid");
        assert_eq!(rules[0], RelabelRule::filter("l_a_b", "2", "keep"));
        assert_eq!(rules[1], RelabelRule::filter("l_z", "1", "keep"));
        assert_eq!(rules[2], RelabelRule::filter("l_k", "x.y|z", "keep"));
    }

    #[test]
    fn bad_user_rules_name_the_field() {
        let bad_regex = RelabelConfig {
            regex: Some("(".into()),
            target_label: Some("x".into()),
            ..Default::default()
        };
        assert_eq!(
            user_relabel_rule(&bad_regex, "spec.relabelings[2]")
                .unwrap_err()
                .field,
            "spec.relabelings[2].regex"
        );
        let bad_action = RelabelConfig {
            action: "explode".into(),
            ..Default::default()
        };
        assert_eq!(
            user_relabel_rule(&bad_action, "r").unwrap_err().field,
            "r.action"
        );
        let no_target = RelabelConfig::default();
        assert_eq!(
            user_relabel_rule(&no_target, "r").unwrap_err().field,
            "r.targetLabel"
        );
        let bad_target = RelabelConfig {
            target_label: Some("bad-label".into()),
            ..Default::default()
        };
        assert_eq!(
            user_relabel_rule(&bad_target, "r").unwrap_err().field,
            "r.targetLabel"
        );
        for target in ["ok_label", "$1", "${1}_x", "a${name}"] {
            let rule = RelabelConfig {
                target_label: Some(target.into()),
                ..Default::default()
            };
            assert!(user_relabel_rule(&rule, "r").is_ok(), "{target}");
        }
        let ok = RelabelConfig {
            source_labels: vec!["__name__".into()],
            action: "drop".into(),
            ..Default::default()
        };
        assert_eq!(
            user_relabel_rule(&ok, "r")
                .expect("valid")
                .action
                .as_deref(),
            Some("drop")
        );
    }
}
