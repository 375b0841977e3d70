//! A ScrapeConfig's job (prometheus-operator's monitoring.coreos.com/v1alpha1) in Alloy
//! components: each of its discoveries the `discovery.*` component Alloy's converter makes of
//! it, and the job's own client settings (`enable_compression`, `oauth2` with its token
//! requests' proxy and TLS, `tls_config` with `min_version`) on its `prometheus.scrape`.
//!
//! The converter labels a job's discoveries per kind: the job's label for the first of a kind,
//! `<label>_2`, `<label>_3`, ... for the next ones, and lists their targets in the order of
//! Prometheus' keys (consul, dns, ec2, file, http, kubernetes), the static targets last. The
//! same labels and order here keep a switch between the two paths showing the same
//! components.
//!
//! What [`crate::config::metrics::scrape_config`] renders for runtime `alloy` is what is
//! written: the settings Alloy lacks (a TLS `maxVersion`, Consul's `pathPrefix`) are already
//! warned about or rejected there by field, so one reaching this module is an error.

use crate::alloy_syntax::{Block, Body, Expr, Identifier};
use crate::config::common::{OAuth2Out, ProxyOut, TlsConfigOut};
use crate::config::metrics::scrape::StaticConfig;
use crate::config::metrics::scrape_config::{
    ConsulSdOut, DnsSdOut, Ec2FilterOut, Ec2SdOut, FileSdOut, HttpClientOut, HttpSdOut,
    KubernetesSdOut, NamespacesOut, OAuth2WithClientOut, ScrapeConfigJob, SelectorOut, TlsOut,
};

use super::http::{authorization, basic_auth, oauth2, proxy, string_map, tls_config};
use super::metrics::static_targets;
use super::{NativeError, block, component, duration, label, name, optional, reference};

/// The discovery components of a ScrapeConfig's job labelled `job_label`, and the targets its
/// `discovery.relabel` reads: the one discovery's export alone, else every export and the
/// static targets concatenated.
pub fn discoveries(
    job_name: &str,
    extra: &ScrapeConfigJob,
    statics: &[StaticConfig],
    job_label: &Identifier,
) -> Result<(Vec<Block>, Expr), NativeError> {
    let ScrapeConfigJob {
        enable_compression: _,
        oauth2_client: _,
        tls: _,
        file_sd_configs,
        http_sd_configs,
        kubernetes_sd,
        consul_sd_configs,
        dns_sd_configs,
        ec2_sd_configs,
    } = extra;
    let unsupported = |what: &str| NativeError::Unsupported {
        job: job_name.to_owned(),
        what: what.to_owned(),
    };
    let mut blocks = Vec::new();
    let mut exports = Vec::new();
    let mut add =
        |kind: &str, index: usize, fill: &dyn Fn(&mut Body) -> Result<(), NativeError>| {
            let own = if index == 0 {
                job_label.clone()
            } else {
                label(format!("{}_{}", job_label.as_str(), index + 1))?
            };
            let mut b = component(kind, &own);
            fill(&mut b.body)?;
            exports.push(reference(kind, &own, "targets"));
            blocks.push(b);
            Ok::<_, NativeError>(())
        };
    for (i, c) in consul_sd_configs.iter().enumerate() {
        add("discovery.consul", i, &|body| consul(body, c, &unsupported))?;
    }
    for (i, d) in dns_sd_configs.iter().enumerate() {
        add("discovery.dns", i, &|body| {
            dns(body, d);
            Ok(())
        })?;
    }
    for (i, e) in ec2_sd_configs.iter().enumerate() {
        add("discovery.ec2", i, &|body| ec2(body, e, &unsupported))?;
    }
    for (i, f) in file_sd_configs.iter().enumerate() {
        add("discovery.file", i, &|body| {
            file(body, f);
            Ok(())
        })?;
    }
    for (i, h) in http_sd_configs.iter().enumerate() {
        add("discovery.http", i, &|body| http(body, h, &unsupported))?;
    }
    for (i, k) in kubernetes_sd.iter().enumerate() {
        add("discovery.kubernetes", i, &|body| {
            kubernetes(body, k, &unsupported)
        })?;
    }
    let targets = match (exports.len(), statics.is_empty()) {
        (0, _) => static_targets(statics),
        (1, true) => exports.remove(0),
        _ => {
            if !statics.is_empty() {
                exports.push(static_targets(statics));
            }
            Expr::Call(vec![name("array"), name("concat")], exports)
        }
    };
    Ok((blocks, targets))
}

/// The job's own client settings on its `prometheus.scrape` body.
pub fn scrape_settings(
    body: &mut Body,
    job_name: &str,
    extra: &ScrapeConfigJob,
) -> Result<(), NativeError> {
    let unsupported = |what: &str| NativeError::Unsupported {
        job: job_name.to_owned(),
        what: what.to_owned(),
    };
    optional(
        body,
        "enable_compression",
        extra.enable_compression.map(Expr::Bool),
    );
    if let Some(o) = &extra.oauth2_client {
        oauth2_with_client(body, o, &unsupported)?;
    }
    if let Some(t) = &extra.tls {
        tls(body, t, &unsupported)?;
    }
    Ok(())
}

type Unsupported<'a> = dyn Fn(&str) -> NativeError + 'a;

fn consul(body: &mut Body, c: &ConsulSdOut, unsupported: &Unsupported) -> Result<(), NativeError> {
    let ConsulSdOut {
        server,
        path_prefix,
        token,
        datacenter,
        namespace,
        partition,
        scheme,
        services,
        tags,
        tag_separator,
        node_meta,
        allow_stale,
        refresh_interval,
        client,
    } = c;
    if path_prefix.is_some() {
        // Rejected for runtime alloy by the renderer: discovery.consul has no such argument.
        return Err(unsupported("a Consul discovery's pathPrefix"));
    }
    body.attribute(name("server"), Expr::string(server));
    let strings = [
        ("token", token),
        ("datacenter", datacenter),
        ("namespace", namespace),
        ("partition", partition),
        ("scheme", scheme),
        ("tag_separator", tag_separator),
    ];
    for (key, value) in strings {
        optional(body, key, value.as_deref().map(Expr::string));
    }
    if !services.is_empty() {
        body.attribute(name("services"), Expr::strings(services));
    }
    if !tags.is_empty() {
        body.attribute(name("tags"), Expr::strings(tags));
    }
    if !node_meta.is_empty() {
        body.attribute(name("node_meta"), string_map(node_meta));
    }
    optional(body, "allow_stale", allow_stale.map(Expr::Bool));
    refresh(body, refresh_interval);
    http_client(body, client, unsupported)
}

fn dns(body: &mut Body, d: &DnsSdOut) {
    let DnsSdOut {
        names,
        refresh_interval,
        type_,
        port,
    } = d;
    body.attribute(name("names"), Expr::strings(names));
    refresh(body, refresh_interval);
    optional(body, "type", type_.as_deref().map(Expr::string));
    optional(body, "port", port.map(|p| Expr::Int(p.into())));
}

fn ec2(body: &mut Body, e: &Ec2SdOut, unsupported: &Unsupported) -> Result<(), NativeError> {
    let Ec2SdOut {
        region,
        access_key,
        secret_key,
        role_arn,
        refresh_interval,
        port,
        filters,
        client,
    } = e;
    let strings = [
        ("region", region),
        ("access_key", access_key),
        ("secret_key", secret_key),
        ("role_arn", role_arn),
    ];
    for (key, value) in strings {
        optional(body, key, value.as_deref().map(Expr::string));
    }
    refresh(body, refresh_interval);
    optional(body, "port", port.map(|p| Expr::Int(p.into())));
    for Ec2FilterOut {
        name: filter_name,
        values,
    } in filters
    {
        let mut b = block("filter");
        b.body
            .attribute(name("name"), Expr::string(filter_name))
            .attribute(name("values"), Expr::strings(values));
        body.block(b);
    }
    http_client(body, client, unsupported)
}

fn file(body: &mut Body, f: &FileSdOut) {
    let FileSdOut {
        files,
        refresh_interval,
    } = f;
    body.attribute(name("files"), Expr::strings(files));
    refresh(body, refresh_interval);
}

fn http(body: &mut Body, h: &HttpSdOut, unsupported: &Unsupported) -> Result<(), NativeError> {
    let HttpSdOut {
        url,
        refresh_interval,
        client,
    } = h;
    body.attribute(name("url"), Expr::string(url));
    refresh(body, refresh_interval);
    http_client(body, client, unsupported)
}

fn kubernetes(
    body: &mut Body,
    k: &KubernetesSdOut,
    unsupported: &Unsupported,
) -> Result<(), NativeError> {
    let KubernetesSdOut {
        api_server,
        role,
        namespaces,
        selectors,
        attach_metadata,
        client,
    } = k;
    body.attribute(name("role"), Expr::string(role));
    optional(body, "api_server", api_server.as_deref().map(Expr::string));
    if let Some(NamespacesOut {
        own_namespace,
        names,
    }) = namespaces
    {
        let mut b = block("namespaces");
        optional(&mut b.body, "own_namespace", own_namespace.map(Expr::Bool));
        if !names.is_empty() {
            b.body.attribute(name("names"), Expr::strings(names));
        }
        body.block(b);
    }
    for SelectorOut {
        role,
        label: selector_label,
        field,
    } in selectors
    {
        let mut b = block("selectors");
        b.body.attribute(name("role"), Expr::string(role));
        optional(
            &mut b.body,
            "label",
            selector_label.as_deref().map(Expr::string),
        );
        optional(&mut b.body, "field", field.as_deref().map(Expr::string));
        body.block(b);
    }
    if let Some(metadata) = attach_metadata {
        let mut b = block("attach_metadata");
        b.body.attribute(name("node"), Expr::Bool(metadata.node));
        body.block(b);
    }
    http_client(body, client, unsupported)
}

fn refresh(body: &mut Body, interval: &Option<String>) {
    optional(body, "refresh_interval", interval.as_deref().map(duration));
}

/// A discovery's HTTP client settings, under the names Alloy's components share.
fn http_client(
    body: &mut Body,
    client: &HttpClientOut,
    unsupported: &Unsupported,
) -> Result<(), NativeError> {
    let HttpClientOut {
        basic_auth: basic,
        authorization: auth,
        oauth2: oauth,
        tls_config: tls_settings,
        proxy: proxy_settings,
        follow_redirects,
        enable_http2,
    } = client;
    if let Some(b) = basic {
        basic_auth(body, b);
    }
    if let Some(a) = auth {
        authorization(body, a);
    }
    if let Some(o) = oauth {
        oauth2_with_client(body, o, unsupported)?;
    }
    if let Some(t) = tls_settings {
        tls(body, t, unsupported)?;
    }
    proxy(body, proxy_settings);
    // Written false too: the converter drops false on discovery.http (it has no default
    // there to compare with), which leaves Alloy's true in force.
    optional(body, "follow_redirects", follow_redirects.map(Expr::Bool));
    optional(body, "enable_http2", enable_http2.map(Expr::Bool));
    Ok(())
}

/// `oauth2` with its token requests' proxy and TLS settings inside the block, where Alloy
/// reads them.
fn oauth2_with_client(
    body: &mut Body,
    o: &OAuth2WithClientOut,
    unsupported: &Unsupported,
) -> Result<(), NativeError> {
    let OAuth2WithClientOut {
        client,
        proxy: token_proxy,
        tls_config: token_tls,
    } = o;
    let token_tls = token_tls
        .as_ref()
        .map(|t| tls_settings(t, unsupported))
        .transpose()?;
    let with_client = OAuth2Out {
        proxy: if *token_proxy == ProxyOut::default() {
            client.proxy.clone()
        } else {
            token_proxy.clone()
        },
        tls_config: token_tls.or_else(|| client.tls_config.clone()),
        ..client.clone()
    };
    oauth2(body, &with_client);
    Ok(())
}

/// `tls_config` with the lowest TLS version; Alloy has no highest one.
fn tls(body: &mut Body, t: &TlsOut, unsupported: &Unsupported) -> Result<(), NativeError> {
    tls_config(body, &tls_settings(t, unsupported)?);
    Ok(())
}

fn tls_settings(t: &TlsOut, unsupported: &Unsupported) -> Result<TlsConfigOut, NativeError> {
    let TlsOut {
        files,
        min_version,
        max_version,
    } = t;
    let versions = TlsConfigOut {
        min_version: min_version.clone().or_else(|| files.min_version.clone()),
        max_version: max_version.clone().or_else(|| files.max_version.clone()),
        ..files.clone()
    };
    if versions.max_version.is_some() {
        // Left out for runtime alloy by the renderer, with a warning.
        return Err(unsupported("a TLS maxVersion"));
    }
    Ok(versions)
}
