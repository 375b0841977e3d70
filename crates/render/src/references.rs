//! Every Secret/ConfigMap key an object refers to (spec 2.4), with the field that holds it.
//! References resolve in the namespace of the object that holds them.

use api::grafana_agent::GrafanaAgent;
use api::logs_instance::LogsClientSpec;
use api::metrics_instance::RemoteWriteSpec;
use api::monitors::ScrapeEndpoint;
use api::prometheus::{
    ApiServerConfig, BasicAuth, OAuth2, ProxySettings, SafeAuthorization, SafeTlsConfig,
    ScrapeOAuth2, ScrapeTlsConfig,
};
use api::selectors::{SecretKeySelector, SecretOrConfigMap};
use api::{Integration, LogsInstance, MetricsInstance, PodMonitor, Probe, ServiceMonitor};

use crate::asset_key::AssetKey;

/// One reference: where it is written, what it names, and whether its selector says
/// `optional: true` (a missing object or key then leaves the field out instead of rejecting
/// the object, Q17 fixed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub field: String,
    pub key: AssetKey,
    pub optional: bool,
}

struct Collector<'a> {
    namespace: &'a str,
    found: Vec<Reference>,
}

impl Collector<'_> {
    fn push(&mut self, field: String, key: Option<AssetKey>, optional: bool) {
        if let Some(key) = key {
            self.found.push(Reference {
                field,
                key,
                optional,
            });
        }
    }

    fn secret(&mut self, field: String, sel: Option<&SecretKeySelector>) {
        let key = sel.map(|s| AssetKey::secret(self.namespace, s));
        self.push(field, key, sel.is_some_and(|s| s.optional == Some(true)));
    }

    fn secret_or_config_map(&mut self, field: String, sel: &SecretOrConfigMap) {
        let key = AssetKey::secret_or_config_map(self.namespace, sel);
        self.push(field, key, is_optional(sel));
    }

    fn basic_auth(&mut self, field: &str, auth: Option<&BasicAuth>) {
        if let Some(auth) = auth {
            self.secret(format!("{field}.username"), auth.username.as_ref());
            self.secret(format!("{field}.password"), auth.password.as_ref());
        }
    }

    fn oauth2(&mut self, field: &str, oauth2: Option<&OAuth2>) {
        if let Some(o) = oauth2 {
            self.secret_or_config_map(format!("{field}.clientId"), &o.client_id);
            self.secret(format!("{field}.clientSecret"), Some(&o.client_secret));
        }
    }

    fn tls(&mut self, field: &str, tls: Option<&SafeTlsConfig>) {
        if let Some(t) = tls {
            for (name, sel) in [("ca", &t.ca), ("cert", &t.cert)] {
                if let Some(sel) = sel {
                    self.secret_or_config_map(format!("{field}.{name}"), sel);
                }
            }
            self.secret(format!("{field}.keySecret"), t.key_secret.as_ref());
        }
    }

    /// An `authorization` block's `credentials` key (monitors' and Probes' `SafeAuthorization`,
    /// the apiServer's `Authorization`).
    fn authorization(&mut self, field: &str, credentials: Option<&SecretKeySelector>) {
        self.secret(format!("{field}.credentials"), credentials);
    }

    fn api_server(&mut self, field: &str, api: Option<&ApiServerConfig>) {
        if let Some(api) = api {
            self.basic_auth(&format!("{field}.basicAuth"), api.basic_auth.as_ref());
            self.tls(
                &format!("{field}.tlsConfig"),
                api.tls_config.as_ref().map(|t| &t.safe),
            );
            self.authorization(
                &format!("{field}.authorization"),
                api.authorization
                    .as_ref()
                    .and_then(|a| a.credentials.as_ref()),
            );
        }
    }

    fn remote_writes(&mut self, field: &str, rws: &[RemoteWriteSpec]) {
        for (i, rw) in rws.iter().enumerate() {
            let f = format!("{field}[{i}]");
            self.basic_auth(&format!("{f}.basicAuth"), rw.basic_auth.as_ref());
            self.oauth2(&format!("{f}.oauth2"), rw.oauth2.as_ref());
            if let Some(s) = &rw.sigv4 {
                self.secret(format!("{f}.sigv4.accessKey"), s.access_key.as_ref());
                self.secret(format!("{f}.sigv4.secretKey"), s.secret_key.as_ref());
            }
            self.tls(
                &format!("{f}.tlsConfig"),
                rw.tls_config.as_ref().map(|t| &t.safe),
            );
        }
    }

    fn logs_clients(&mut self, field: &str, clients: &[LogsClientSpec]) {
        for (i, c) in clients.iter().enumerate() {
            let f = format!("{field}[{i}]");
            self.basic_auth(&format!("{f}.basicAuth"), c.basic_auth.as_ref());
            self.oauth2(&format!("{f}.oauth2"), c.oauth2.as_ref());
            self.tls(
                &format!("{f}.tlsConfig"),
                c.tls_config.as_ref().map(|t| &t.safe),
            );
        }
    }

    /// `path` gives the endpoint's field path; it is built only for an endpoint that refers to
    /// something. Most endpoints refer to nothing, and every reconcile collects the references
    /// of every selected monitor: formatting the paths of fields that are not set was most of
    /// this at 10k monitors.
    fn endpoint(
        &mut self,
        path: impl FnOnce() -> String,
        e: &ScrapeEndpoint,
        tls: Option<&SafeTlsConfig>,
    ) {
        let refers = e.bearer_token_secret.is_some()
            || e.basic_auth.is_some()
            || tls.is_some()
            || e.oauth2.is_some()
            || e.authorization.is_some()
            || !e.proxy.proxy_connect_header.is_empty();
        if !refers {
            return;
        }
        let f = path();
        self.secret(
            format!("{f}.bearerTokenSecret"),
            e.bearer_token_secret.as_ref(),
        );
        self.basic_auth(&format!("{f}.basicAuth"), e.basic_auth.as_ref());
        self.tls(&format!("{f}.tlsConfig"), tls);
        self.scrape_oauth2(&format!("{f}.oauth2"), e.oauth2.as_ref());
        self.authorization(
            &format!("{f}.authorization"),
            e.authorization
                .as_ref()
                .and_then(|a| a.credentials.as_ref()),
        );
        self.proxy(&f, &e.proxy);
    }
}

/// The `optional` flag of the branch [`AssetKey::secret_or_config_map`] uses.
pub fn is_optional(sel: &SecretOrConfigMap) -> bool {
    match (&sel.secret, &sel.config_map) {
        (Some(s), _) => s.optional == Some(true),
        (None, Some(c)) => c.optional == Some(true),
        (None, None) => false,
    }
}

fn collect(namespace: &str, f: impl FnOnce(&mut Collector<'_>)) -> Vec<Reference> {
    let mut c = Collector {
        namespace,
        found: Vec::new(),
    };
    f(&mut c);
    c.found
}

fn ns<T: kube::core::Resource>(o: &T) -> String {
    o.meta().namespace.clone().unwrap_or_default()
}

pub fn of_agent(agent: &GrafanaAgent) -> Vec<Reference> {
    let spec = &agent.spec;
    collect(&ns(agent), |c| {
        c.api_server("spec.apiServer", spec.api_server.as_ref());
        if let Some(m) = &spec.metrics {
            c.remote_writes("spec.metrics.remoteWrite", &m.remote_write);
        }
        if let Some(l) = &spec.logs {
            c.logs_clients("spec.logs.clients", &l.clients);
        }
    })
}

pub fn of_metrics_instance(mi: &MetricsInstance) -> Vec<Reference> {
    collect(&ns(mi), |c| {
        c.remote_writes("spec.remoteWrite", &mi.spec.remote_write);
        c.secret(
            "spec.additionalScrapeConfigs".into(),
            mi.spec.additional_scrape_configs.as_ref(),
        );
        for (i, class) in mi.spec.scrape_classes.iter().enumerate() {
            c.authorization(
                &format!("spec.scrapeClasses[{i}].authorization"),
                class
                    .authorization
                    .as_ref()
                    .and_then(|a| a.credentials.as_ref()),
            );
        }
    })
}

pub fn of_logs_instance(li: &LogsInstance) -> Vec<Reference> {
    collect(&ns(li), |c| {
        c.logs_clients("spec.clients", &li.spec.clients);
        c.secret(
            "spec.additionalScrapeConfigs".into(),
            li.spec.additional_scrape_configs.as_ref(),
        );
    })
}

pub fn of_service_monitor(sm: &ServiceMonitor) -> Vec<Reference> {
    collect(&ns(sm), |c| {
        for (i, e) in sm.spec.endpoints.iter().enumerate() {
            let tls = e.tls_config.as_ref().map(|t| &t.tls.safe);
            c.endpoint(|| format!("spec.endpoints[{i}]"), &e.common, tls);
        }
    })
}

pub fn of_pod_monitor(pm: &PodMonitor) -> Vec<Reference> {
    collect(&ns(pm), |c| {
        for (i, e) in pm.spec.pod_metrics_endpoints.iter().enumerate() {
            c.endpoint(
                || format!("spec.podMetricsEndpoints[{i}]"),
                &e.common,
                e.tls_config.as_ref().map(|t| &t.safe),
            );
        }
    })
}

pub fn of_probe(p: &Probe) -> Vec<Reference> {
    let s = &p.spec;
    collect(&ns(p), |c| {
        c.secret(
            "spec.bearerTokenSecret".into(),
            s.bearer_token_secret.as_ref(),
        );
        c.basic_auth("spec.basicAuth", s.basic_auth.as_ref());
        c.tls("spec.tlsConfig", s.tls_config.as_ref().map(|t| &t.safe));
        c.scrape_oauth2("spec.oauth2", s.oauth2.as_ref());
        if let Some(prober) = &s.prober {
            c.proxy("spec.prober", &prober.proxy);
        }
        c.authorization(
            "spec.authorization",
            s.authorization
                .as_ref()
                .and_then(|a| a.credentials.as_ref()),
        );
    })
}

pub fn of_integration(i: &Integration) -> Vec<Reference> {
    let namespace = ns(i);
    collect(&namespace, |c| {
        for (n, s) in i.spec.secrets.iter().enumerate() {
            c.secret(format!("spec.secrets[{n}]"), Some(s));
        }
        for (n, cm) in i.spec.config_maps.iter().enumerate() {
            c.push(
                format!("spec.configMaps[{n}]"),
                Some(AssetKey::config_map(&namespace, cm)),
                cm.optional == Some(true),
            );
        }
    })
}

/// A ScrapeConfig's references: the job's and every rendered discovery's basic auth,
/// authorization, OAuth2 and TLS keys, the Consul token, the EC2 keys and the proxy headers.
/// Discoveries that are not rendered reject the object and refer to nothing.
pub fn of_scrape_config(sc: &api::ScrapeConfig) -> Vec<Reference> {
    let s = &sc.spec;
    collect(&ns(sc), |c| {
        c.http_client(
            "spec",
            s.basic_auth.as_ref(),
            s.authorization.as_ref(),
            s.oauth2.as_ref(),
            s.tls_config.as_ref(),
            &s.proxy,
        );
        for (i, h) in s.http_sd_configs.iter().enumerate() {
            c.http_client(
                &format!("spec.httpSDConfigs[{i}]"),
                h.basic_auth.as_ref(),
                h.authorization.as_ref(),
                h.oauth2.as_ref(),
                h.tls_config.as_ref(),
                &h.proxy,
            );
        }
        for (i, k) in s.kubernetes_sd_configs.iter().enumerate() {
            c.http_client(
                &format!("spec.kubernetesSDConfigs[{i}]"),
                k.basic_auth.as_ref(),
                k.authorization.as_ref(),
                k.oauth2.as_ref(),
                k.tls_config.as_ref(),
                &k.proxy,
            );
        }
        for (i, k) in s.consul_sd_configs.iter().enumerate() {
            let f = format!("spec.consulSDConfigs[{i}]");
            c.secret(format!("{f}.tokenRef"), k.token_ref.as_ref());
            c.http_client(
                &f,
                k.basic_auth.as_ref(),
                k.authorization.as_ref(),
                k.oauth2.as_ref(),
                k.tls_config.as_ref(),
                &k.proxy,
            );
        }
        for (i, e) in s.ec2_sd_configs.iter().enumerate() {
            let f = format!("spec.ec2SDConfigs[{i}]");
            // prometheus-operator reads the keys only as a pair.
            if e.access_key.is_some() && e.secret_key.is_some() {
                c.secret(format!("{f}.accessKey"), e.access_key.as_ref());
                c.secret(format!("{f}.secretKey"), e.secret_key.as_ref());
            }
            c.http_client(&f, None, None, None, e.tls_config.as_ref(), &e.proxy);
        }
    })
}

impl Collector<'_> {
    /// The references of an HTTP client's settings at `field` (a ScrapeConfig's job or one
    /// of its discoveries).
    fn http_client(
        &mut self,
        field: &str,
        basic_auth: Option<&BasicAuth>,
        authorization: Option<&SafeAuthorization>,
        oauth2: Option<&ScrapeOAuth2>,
        tls: Option<&ScrapeTlsConfig>,
        proxy: &ProxySettings,
    ) {
        self.basic_auth(&format!("{field}.basicAuth"), basic_auth);
        self.authorization(
            &format!("{field}.authorization"),
            authorization.and_then(|a| a.credentials.as_ref()),
        );
        self.scrape_oauth2(&format!("{field}.oauth2"), oauth2);
        self.tls(&format!("{field}.tlsConfig"), tls.map(|t| &t.safe));
        self.proxy(field, proxy);
    }

    /// The references of prometheus-operator's `oauth2` at `field`: the client's, and its
    /// token requests' TLS and proxy keys.
    fn scrape_oauth2(&mut self, field: &str, oauth2: Option<&ScrapeOAuth2>) {
        if let Some(o) = oauth2 {
            self.oauth2(field, Some(&o.client));
            self.tls(
                &format!("{field}.tlsConfig"),
                o.tls_config.as_ref().map(|t| &t.safe),
            );
            self.proxy(field, &o.proxy);
        }
    }

    /// The CONNECT header keys of a proxy at `field`.
    fn proxy(&mut self, field: &str, proxy: &ProxySettings) {
        for (header, selectors) in &proxy.proxy_connect_header {
            // As `rejection::key_path` writes it (not called: rejection depends on this module).
            let plain = !header.is_empty()
                && header
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            let f = if plain {
                format!("{field}.proxyConnectHeader.{header}")
            } else {
                format!("{field}.proxyConnectHeader[{header:?}]")
            };
            for (n, sel) in selectors.iter().enumerate() {
                self.secret(format!("{f}[{n}]"), Some(sel));
            }
        }
    }
}
