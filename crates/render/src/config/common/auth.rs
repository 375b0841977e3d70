//! `basic_auth`, `oauth2` and `authorization` blocks, and the proxy settings an HTTP client
//! (a scrape or an OAuth2 token request) has.

use std::collections::BTreeMap;

use api::Runtime;
use api::prometheus::{BasicAuth, OAuth2, ProxySettings, SafeAuthorization, ScrapeOAuth2};
use serde::Serialize;

use super::FieldError;
use super::secrets::{Secrets, non_empty, optional_value};
use super::tls::{TlsConfigOut, check_tls_pair, scrape_tls};
use crate::assets::{AssetError, AssetKey};
use crate::rejection::Reason;

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
    /// The token requests' proxy (the `monitoring.coreos.com` kinds' oauth2 only).
    #[serde(flatten)]
    pub proxy: ProxyOut,
    /// The token requests' TLS settings (the `monitoring.coreos.com` kinds' oauth2 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfigOut>,
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
        proxy: ProxyOut::default(),
        tls_config: None,
    })
}

/// The `oauth2` of a monitor, Probe or ScrapeConfig (prometheus-operator's OAuth2): the
/// client of [`oauth2`] with its token requests' proxy and TLS settings, checked as
/// Prometheus checks them.
pub fn scrape_oauth2(
    runtime: Runtime,
    o: &ScrapeOAuth2,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<OAuth2Out, FieldError> {
    let tls_field = format!("{field}.tlsConfig");
    let tls_config = o
        .tls_config
        .as_ref()
        .map(|t| scrape_tls(runtime, t, secrets, &tls_field))
        .transpose()?;
    check_tls_pair(tls_config.as_ref(), &tls_field)?;
    Ok(OAuth2Out {
        proxy: proxy(&o.proxy, secrets, field)?,
        tls_config,
        ..oauth2(&o.client, secrets, field)?
    })
}

/// The proxy settings of an HTTP client (`proxy_url`, `no_proxy`, `proxy_from_environment`,
/// `proxy_connect_header`).
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct ProxyOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_proxy: Option<String>,
    /// Only `true` is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_from_environment: Option<bool>,
    /// Values inlined from Secrets, as `bearer_token` (Q18).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub proxy_connect_header: BTreeMap<String, Vec<String>>,
}

/// The proxy settings at `field`, the CONNECT header values read from Secrets (an optional
/// one that is missing is left out). Combinations Prometheus refuses (and with them the whole
/// config, on both runtimes) fail the object.
pub fn proxy(p: &ProxySettings, secrets: Secrets<'_>, field: &str) -> Result<ProxyOut, FieldError> {
    let proxy_url = non_empty(&p.proxy_url);
    let no_proxy = non_empty(&p.no_proxy);
    let from_environment = p.proxy_from_environment == Some(true);
    let conflict = |what: &str| {
        Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            format!("{what}; Prometheus refuses it"),
        ))
    };
    if no_proxy.is_some() && proxy_url.is_none() {
        return conflict("sets noProxy without proxyUrl");
    }
    if from_environment && proxy_url.is_some() {
        return conflict("sets both proxyFromEnvironment and proxyUrl");
    }
    if from_environment && no_proxy.is_some() {
        return conflict(
            "sets both proxyFromEnvironment and noProxy (the environment's NO_PROXY applies)",
        );
    }
    if !p.proxy_connect_header.is_empty() && proxy_url.is_none() && !from_environment {
        return conflict("sets proxyConnectHeader without proxyUrl or proxyFromEnvironment");
    }
    let mut proxy_connect_header = BTreeMap::new();
    for (name, selectors) in &p.proxy_connect_header {
        let header_field = crate::rejection::key_path(&format!("{field}.proxyConnectHeader"), name);
        let mut values = Vec::new();
        for (i, sel) in selectors.iter().enumerate() {
            if let Some(v) = secrets.value(sel, &format!("{header_field}[{i}]"))? {
                values.push(v);
            }
        }
        if !values.is_empty() {
            proxy_connect_header.insert(name.clone(), values);
        }
    }
    Ok(ProxyOut {
        proxy_url,
        no_proxy,
        proxy_from_environment: from_environment.then_some(true),
        proxy_connect_header,
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

/// A monitor's or Probe's `authorization` (spec 4.17: the credentials are inlined, as
/// `bearerTokenSecret` is): `{type, credentials}`, the type trimmed and `Bearer` when empty,
/// as Prometheus reads it. `None` when the credentials' selector is optional and its Secret or
/// key is missing: no header is sent, as no bearer token is for `bearerTokenSecret`. Prometheus
/// refuses the type `basic` (any case), and a block without credentials sends no header at all,
/// so both fail the block's owner, naming the field.
pub fn safe_authorization(
    auth: &SafeAuthorization,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<Option<AuthorizationOut>, FieldError> {
    let type_ = auth.type_.as_deref().map(str::trim).unwrap_or_default();
    if type_.eq_ignore_ascii_case("basic") {
        return Err(FieldError::because(
            Reason::InvalidValue,
            format!("{field}.type"),
            format!(
                "{type_:?}: Prometheus refuses the type basic here; basic authentication is \
                 set with basicAuth"
            ),
        ));
    }
    let type_ = if type_.is_empty() { "Bearer" } else { type_ };
    let credentials_field = format!("{field}.credentials");
    let Some(credentials) = &auth.credentials else {
        return Err(FieldError::because(
            Reason::IncompleteReference,
            credentials_field,
            "is not set: the scrape would send no Authorization header (prometheus-operator \
             requires credentials too)",
        ));
    };
    Ok(secrets
        .value(credentials, &credentials_field)?
        .map(|value| AuthorizationOut {
            type_: type_.to_owned(),
            credentials: Some(value),
            credentials_file: None,
        }))
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

#[cfg(test)]
mod tests {
    use api::selectors::{SecretKeySelector, SecretOrConfigMap};

    use super::*;
    use crate::assets::Assets;

    /// Issue 36: a monitor's authorization type is read as Prometheus reads it (trimmed,
    /// `Bearer` when empty, `basic` refused in any case); the credentials are required.
    #[test]
    fn safe_authorization_types_as_prometheus_reads_them() {
        use crate::assets::AssetSource;
        use crate::store::InputStore;

        let mut inputs = InputStore::default();
        let data = BTreeMap::from([("token".to_owned(), b"t0ken".to_vec())]);
        inputs.apply_data(AssetSource::Secret, "ns", "creds", None, data);
        let credentials = SecretKeySelector {
            name: "creds".into(),
            key: "token".into(),
            optional: None,
        };
        let mut assets = Assets::default();
        let _ = assets.resolve(&inputs, &AssetKey::secret("ns", &credentials));
        let secrets = Secrets {
            assets: &assets,
            namespace: "ns",
        };
        let auth = |type_: Option<&str>| SafeAuthorization {
            type_: type_.map(str::to_owned),
            credentials: Some(credentials.clone()),
        };
        for (type_, want) in [
            (None, "Bearer"),
            (Some(""), "Bearer"),
            (Some("  "), "Bearer"),
            (Some(" Token "), "Token"),
            (Some("bearer"), "bearer"),
        ] {
            let out = safe_authorization(&auth(type_), secrets, "spec.authorization")
                .expect("renders")
                .expect("credentials present");
            assert_eq!(
                (out.type_.as_str(), out.credentials.as_deref()),
                (want, Some("t0ken")),
                "{type_:?}"
            );
        }
        for basic in ["basic", " Basic", "BASIC "] {
            let e = safe_authorization(&auth(Some(basic)), secrets, "spec.authorization")
                .expect_err("basic is refused");
            assert_eq!(
                (e.reason, e.field.as_str()),
                (Reason::InvalidValue, "spec.authorization.type")
            );
        }
        let without = SafeAuthorization {
            type_: None,
            credentials: None,
        };
        let e = safe_authorization(&without, secrets, "spec.authorization")
            .expect_err("no credentials");
        assert_eq!(
            (e.reason, e.field.as_str()),
            (
                Reason::IncompleteReference,
                "spec.authorization.credentials"
            )
        );
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
        // The client secret exists: a file from a missing Secret fails its block too.
        let secret = BTreeMap::from([("secret".to_owned(), b"s3cret".to_vec())]);
        inputs.apply_data(AssetSource::Secret, "ns", "cm-secret", None, secret);
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
}
