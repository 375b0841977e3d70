//! The HTTP client settings every component shares (`basic_auth`, `authorization`,
//! `oauth2`, `tls_config`), as Alloy blocks of the same names.

use std::collections::BTreeMap;

use crate::alloy_syntax::{Block, Body, Expr};
use crate::config::common::{AuthorizationOut, BasicAuthOut, OAuth2Out, ProxyOut, TlsConfigOut};

use super::{block, known, name, optional};

pub fn basic_auth(out: &mut Body, auth: &BasicAuthOut) {
    let BasicAuthOut {
        username,
        password,
        password_file,
    } = auth;
    let mut b = block("basic_auth");
    optional(
        &mut b.body,
        "username",
        username.as_deref().map(Expr::string),
    );
    optional(
        &mut b.body,
        "password",
        password.as_deref().map(Expr::string),
    );
    optional(
        &mut b.body,
        "password_file",
        password_file.as_deref().map(Expr::string),
    );
    out.block(b);
}

pub fn authorization(out: &mut Body, auth: &AuthorizationOut) {
    let AuthorizationOut {
        type_,
        credentials,
        credentials_file,
    } = auth;
    out.block(authorization_block(
        type_,
        credentials.as_deref(),
        credentials_file.as_deref(),
    ));
}

/// A bearer token (inline or from a file) is an `authorization` block of type `Bearer`:
/// Alloy's components have no `bearer_token` of their own besides it.
pub fn bearer(out: &mut Body, token: Option<&str>, token_file: Option<&str>) {
    if token.is_some() || token_file.is_some() {
        out.block(authorization_block("Bearer", token, token_file));
    }
}

fn authorization_block(type_: &str, credentials: Option<&str>, file: Option<&str>) -> Block {
    let mut b = block("authorization");
    b.body.attribute(name("type"), Expr::string(type_));
    optional(&mut b.body, "credentials", credentials.map(Expr::string));
    optional(&mut b.body, "credentials_file", file.map(Expr::string));
    b
}

pub fn oauth2(out: &mut Body, auth: &OAuth2Out) {
    let OAuth2Out {
        client_id,
        client_secret_file,
        endpoint_params,
        scopes,
        token_url,
        proxy: token_proxy,
        tls_config: token_tls,
    } = auth;
    let mut b = block("oauth2");
    optional(
        &mut b.body,
        "client_id",
        client_id.as_deref().map(Expr::string),
    );
    optional(
        &mut b.body,
        "client_secret_file",
        client_secret_file.as_deref().map(Expr::string),
    );
    if !endpoint_params.is_empty() {
        b.body
            .attribute(name("endpoint_params"), string_map(endpoint_params));
    }
    if !scopes.is_empty() {
        b.body.attribute(name("scopes"), Expr::strings(scopes));
    }
    if !token_url.is_empty() {
        b.body.attribute(name("token_url"), Expr::string(token_url));
    }
    proxy(&mut b.body, token_proxy);
    if let Some(t) = token_tls {
        tls_config(&mut b.body, t);
    }
    out.block(b);
}

/// The proxy attributes of a client (`proxy_url`, `no_proxy`, `proxy_from_environment`,
/// `proxy_connect_header`), under the names Alloy shares with Prometheus.
pub fn proxy(out: &mut Body, p: &ProxyOut) {
    let ProxyOut {
        proxy_url,
        no_proxy,
        proxy_from_environment,
        proxy_connect_header,
    } = p;
    proxy_settings(
        out,
        proxy_url.as_deref(),
        no_proxy.as_deref(),
        *proxy_from_environment,
        proxy_connect_header,
    );
}

/// The proxy attributes of a client, from a job's or a client's own fields.
pub fn proxy_settings(
    out: &mut Body,
    proxy_url: Option<&str>,
    no_proxy: Option<&str>,
    proxy_from_environment: Option<bool>,
    proxy_connect_header: &BTreeMap<String, Vec<String>>,
) {
    optional(out, "proxy_url", proxy_url.map(Expr::string));
    optional(out, "no_proxy", no_proxy.map(Expr::string));
    optional(
        out,
        "proxy_from_environment",
        proxy_from_environment.map(Expr::Bool),
    );
    if !proxy_connect_header.is_empty() {
        let headers = proxy_connect_header
            .iter()
            .map(|(k, values)| (k.clone(), Expr::strings(values)))
            .collect();
        out.attribute(known("proxy_connect_header"), Expr::Object(headers));
    }
}

pub fn tls_config(out: &mut Body, tls: &TlsConfigOut) {
    let TlsConfigOut {
        ca_file,
        cert_file,
        key_file,
        server_name,
        insecure_skip_verify,
        min_version,
        // Alloy has no highest TLS version: the renderer leaves it out for runtime alloy and
        // warns about it (config::common::tls_versions), so it is never set here.
        max_version: _,
    } = tls;
    let mut b = block("tls_config");
    optional(&mut b.body, "ca_file", ca_file.as_deref().map(Expr::string));
    optional(
        &mut b.body,
        "cert_file",
        cert_file.as_deref().map(Expr::string),
    );
    optional(
        &mut b.body,
        "key_file",
        key_file.as_deref().map(Expr::string),
    );
    optional(
        &mut b.body,
        "server_name",
        server_name.as_deref().map(Expr::string),
    );
    optional(
        &mut b.body,
        "insecure_skip_verify",
        insecure_skip_verify.map(Expr::Bool),
    );
    optional(
        &mut b.body,
        "min_version",
        min_version.as_deref().map(Expr::string),
    );
    out.block(b);
}

/// `{key = "value", ...}` in key order.
pub fn string_map(map: &BTreeMap<String, String>) -> Expr {
    Expr::Object(
        map.iter()
            .map(|(k, v)| (k.clone(), Expr::string(v)))
            .collect(),
    )
}
