//! What every step of a reconcile shares: the I/O handles and the watches' stores. Below the
//! steps (`inputs`, `apply`, `status`, `events`), which take it, and below `reconcile`, which
//! builds it; it imports none of them, so the data flows one way: `reconcile` calls the steps,
//! and each step reads the context and its arguments and returns its result.
//!
//! What is not here: per-agent state and the reverse index (`reconcile` owns them and hands
//! each step its part), and the operator's settings (`reconcile::Reconciler`).

use kube::Client;

use crate::metrics::Metrics;
use crate::publisher::Publisher;
use crate::watches::Stores;
use crate::writer::Writer;

/// The handles a step reads or writes through.
pub(crate) struct Context {
    pub client: Client,
    pub metrics: Metrics,
    /// Every watched kind's store, and the inputs' snapshot.
    pub stores: Stores,
    /// The one writer of managed objects.
    pub writer: Writer,
    pub publisher: Publisher,
}

/// A context on a running API server, for the unit tests of the steps.
#[cfg(test)]
pub(crate) mod testing {
    use std::time::{Duration, Instant};

    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::api::{Api, Patch, PatchParams, PostParams};
    use kube::runtime::events::Reporter;
    use prometheus_client::registry::Registry;

    use super::Context;
    use crate::metrics::Metrics;
    use crate::publisher::Publisher;
    use crate::watches;
    use crate::writer::{OwnWrites, Writer};

    /// Installs the operator's CRDs in `client`'s server.
    pub(crate) async fn install_crds(client: &kube::Client) {
        let api: Api<CustomResourceDefinition> = Api::all(client.clone());
        for crd in api::crds::crds(None) {
            api.create(&PostParams::default(), &crd)
                .await
                .expect("create a CRD");
        }
    }

    /// The namespace of [`agent_cluster`]'s objects.
    pub(crate) const NS: &str = "monitoring";

    /// A testkube holding the operator's CRDs, Namespace `monitoring`, GrafanaAgent `agent`
    /// there and MetricsInstance `primary` it selects (every ServiceMonitor of the namespace),
    /// then `more`.
    pub(crate) async fn agent_cluster(
        more: Vec<serde_json::Value>,
    ) -> (testkube::TestKube, kube::Client) {
        let kube = testkube::TestKube::start().await.expect("testkube");
        let client = kube.client().expect("client");
        install_crds(&client).await;
        let grafana = "monitoring.grafana.com/v1alpha1";
        let selecting = serde_json::json!({"matchLabels": {"agent": "agent"}});
        let objects = [
            serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}),
            serde_json::json!({"apiVersion": grafana, "kind": "GrafanaAgent",
                "metadata": {"name": "agent", "namespace": NS},
                "spec": {"metrics": {"instanceSelector": selecting}}}),
            serde_json::json!({"apiVersion": grafana, "kind": "MetricsInstance",
                "metadata": {"name": "primary", "namespace": NS, "labels": {"agent": "agent"}},
                "spec": {"serviceMonitorSelector": {}}}),
        ];
        for object in objects.into_iter().chain(more) {
            apply(&client, object).await;
        }
        (kube, client)
    }

    /// The context of a controller on `client`'s server, its watches running and feeding the
    /// stores (nothing is triggered), once every watch has listed.
    pub(crate) async fn context(client: kube::Client) -> (Context, watches::Readiness) {
        let metrics = Metrics::new(&mut Registry::default());
        let (stores, triggers, readiness, _relists) =
            watches::build(client.clone(), None, None, metrics.clone());
        tokio::spawn(triggers.drain());
        let start = Instant::now();
        while !readiness.is_ready() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "watches never listed"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let reporter = Reporter {
            controller: "agent-operator".to_owned(),
            instance: None,
        };
        let ctx = Context {
            writer: Writer::new(client.clone(), OwnWrites::default()),
            publisher: Publisher::new(client.clone(), reporter, None),
            client,
            metrics,
            stores,
        };
        (ctx, readiness)
    }

    /// Waits until `check` holds (the watches deliver what was just written).
    pub(crate) async fn eventually(what: &str, check: impl Fn() -> bool) {
        let start = Instant::now();
        while !check() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "timed out: {what}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Server-side applies `object` (any served kind) as a test would with kubectl.
    pub(crate) async fn apply(client: &kube::Client, object: serde_json::Value) {
        let object: kube::api::DynamicObject = serde_json::from_value(object).expect("an object");
        let kind = object.types.clone().expect("types");
        let (group, version) = match kind.api_version.split_once('/') {
            Some((group, version)) => (group.to_owned(), version.to_owned()),
            None => (String::new(), kind.api_version.clone()),
        };
        let gvk = kube::api::GroupVersionKind::gvk(&group, &version, &kind.kind);
        let (resource, caps) = kube::discovery::pinned_kind(client, &gvk)
            .await
            .expect("a served kind");
        let api: Api<kube::api::DynamicObject> = match (caps.scope, &object.metadata.namespace) {
            (kube::discovery::Scope::Namespaced, Some(ns)) => {
                Api::namespaced_with(client.clone(), ns, &resource)
            }
            _ => Api::all_with(client.clone(), &resource),
        };
        let name = object.metadata.name.clone().expect("a name");
        api.patch(&name, &PatchParams::apply("test"), &Patch::Apply(&object))
            .await
            .expect("applied");
    }
}
