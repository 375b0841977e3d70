//! The API server the controller benchmark runs against (testkube or the real control plane,
//! through `testenv`), the CRDs, bulk loading of the generated inputs with the kube client, and
//! the server's own request counts.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::ObjectMeta;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use kube::{Client, ResourceExt};
use serde_json::Value;
use testenv::{Backend, TestEnv};

use super::requests::Requests;
use crate::generate::{AGENT_NAMESPACE, AGENT_SERVICE_ACCOUNT};

/// The field manager of the benchmark's own writes.
pub const FIELD_MANAGER: &str = "agent-operator-bench";

/// A running API server with the operator's CRDs installed.
pub struct Cluster {
    env: TestEnv,
    client: Client,
}

/// How long loading took, and how much of it there was.
#[derive(Debug, Clone, Copy, Default)]
pub struct Loaded {
    pub created: usize,
    /// Objects that existed already (a smaller size loaded before holds a prefix of this one).
    pub existing: usize,
    pub took: Duration,
}

impl Cluster {
    /// Starts (testkube) or joins (control plane) the backend and installs the CRDs.
    pub async fn start(backend: Backend) -> Result<Cluster> {
        let env = TestEnv::start(backend)
            .await
            .with_context(|| format!("starting the {backend} backend"))?;
        Cluster::with_env(env).await
    }

    /// Uses an API server already running (`env`), and installs the CRDs.
    pub async fn with_env(env: TestEnv) -> Result<Cluster> {
        let client = env.client();
        let cluster = Cluster { env, client };
        cluster.install_crds().await?;
        Ok(cluster)
    }

    /// The operator's kubeconfig (its ServiceAccount identity; control plane only).
    pub fn operator_kubeconfig(&self) -> Option<&Path> {
        self.env.operator_kubeconfig()
    }

    pub fn backend(&self) -> Backend {
        self.env.backend()
    }

    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// An admin kubeconfig, for the operator process.
    pub fn kubeconfig(&self) -> &Path {
        self.env.kubeconfig()
    }

    /// Requests the server has answered so far, by (verb, resource): testkube's counters, or
    /// kube-apiserver's `apiserver_request_total`.
    pub async fn requests(&self) -> Result<Requests> {
        match self.env.testkube() {
            Some(server) => Ok(Requests::from_testkube(server.counters().snapshot())),
            None => {
                let request = http::Request::get("/metrics")
                    .body(Vec::new())
                    .context("building the /metrics request")?;
                let text = self
                    .client
                    .request_text(request)
                    .await
                    .context("reading kube-apiserver's /metrics")?;
                Requests::from_apiserver_metrics(&text)
            }
        }
    }

    async fn install_crds(&self) -> Result<()> {
        let path = crds_path();
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let crds: Vec<CustomResourceDefinition> = serde_saphyr::from_multiple(&text)
            .with_context(|| format!("parsing {}", path.display()))?;
        let api: Api<CustomResourceDefinition> = Api::all(self.client.clone());
        let params = PatchParams::apply(FIELD_MANAGER).force();
        for crd in &crds {
            api.patch(&crd.name_any(), &params, &Patch::Apply(crd))
                .await
                .with_context(|| format!("applying CRD {}", crd.name_any()))?;
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        for crd in &crds {
            let name = crd.name_any();
            loop {
                let live = api
                    .get(&name)
                    .await
                    .with_context(|| format!("CRD {name}"))?;
                let established = live
                    .status
                    .as_ref()
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|c| {
                        c.iter()
                            .any(|c| c.type_ == "Established" && c.status == "True")
                    });
                if established {
                    break;
                }
                if Instant::now() > deadline {
                    bail!("CRD {name} not Established within 60 s");
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        Ok(())
    }

    /// Creates the ServiceAccount the agents' pods run as, as an install does: without it
    /// kube-controller-manager's StatefulSet controller retries creating the pods and reports
    /// each failure, writes that would count as the operator's while it is idle.
    pub async fn ensure_agent_service_account(&self) -> Result<()> {
        let api: Api<ServiceAccount> = Api::namespaced(self.client.clone(), AGENT_NAMESPACE);
        let account = ServiceAccount {
            metadata: ObjectMeta {
                name: Some(AGENT_SERVICE_ACCOUNT.to_owned()),
                ..ObjectMeta::default()
            },
            ..ServiceAccount::default()
        };
        match api.create(&PostParams::default(), &account).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(status)) if status.code == 409 => Ok(()),
            Err(e) => Err(e).context("creating the agents' ServiceAccount"),
        }
    }

    /// Creates `documents` (namespaces first, then the rest), `concurrency` requests in flight.
    /// Objects that exist already are left as they are.
    pub async fn load(&self, documents: &[Value], concurrency: usize) -> Result<Loaded> {
        let started = Instant::now();
        let (namespaces, others): (Vec<&Value>, Vec<&Value>) =
            documents.iter().partition(|d| d["kind"] == "Namespace");
        let mut loaded = Loaded::default();
        for batch in [namespaces, others] {
            let outcomes: Vec<bool> = futures::stream::iter(batch)
                .map(|doc| self.create(doc))
                .buffer_unordered(concurrency.max(1))
                .try_collect()
                .await?;
            for created in outcomes {
                if created {
                    loaded.created += 1;
                } else {
                    loaded.existing += 1;
                }
            }
        }
        loaded.took = started.elapsed();
        Ok(loaded)
    }

    /// Deletes `documents` (those that exist), `concurrency` requests in flight.
    pub async fn delete(&self, documents: &[&Value], concurrency: usize) -> Result<()> {
        futures::stream::iter(documents)
            .map(|doc| async move {
                let (api, object) = self.dynamic(doc)?;
                match api
                    .delete(&object.name_any(), &DeleteParams::default())
                    .await
                {
                    Ok(_) => Ok(()),
                    Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
                    Err(e) => Err(anyhow::Error::new(e).context(format!(
                        "deleting {} {}/{}",
                        doc["kind"].as_str().unwrap_or_default(),
                        object.namespace().unwrap_or_default(),
                        object.name_any()
                    ))),
                }
            })
            .buffer_unordered(concurrency.max(1))
            .try_collect::<Vec<()>>()
            .await?;
        Ok(())
    }

    /// Creates one object; false when it existed already.
    async fn create(&self, document: &Value) -> Result<bool> {
        let (api, object) = self.dynamic(document)?;
        match api.create(&PostParams::default(), &object).await {
            Ok(_) => Ok(true),
            Err(kube::Error::Api(status)) if status.code == 409 => Ok(false),
            Err(e) => Err(e).with_context(|| {
                format!(
                    "creating {} {}/{}",
                    document["kind"].as_str().unwrap_or_default(),
                    object.namespace().unwrap_or_default(),
                    object.name_any()
                )
            }),
        }
    }

    /// The API of `document`'s kind and the object to create: the generator's stand-ins for
    /// server-set fields (resourceVersion, uid) are dropped.
    fn dynamic(&self, document: &Value) -> Result<(Api<DynamicObject>, DynamicObject)> {
        let kind = document["kind"].as_str().unwrap_or_default();
        let resource = api_resource(kind)?;
        let mut document = document.clone();
        if let Some(meta) = document.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("resourceVersion");
            meta.remove("uid");
        }
        let object: DynamicObject = serde_json::from_value(document)
            .with_context(|| format!("a generated {kind} is not an object"))?;
        let api = match object.namespace() {
            Some(ns) => Api::namespaced_with(self.client.clone(), &ns, &resource),
            None => Api::all_with(self.client.clone(), &resource),
        };
        Ok((api, object))
    }
}

/// An object's identity: kind, namespace, name.
pub fn identity(document: &Value) -> (String, String, String) {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (
        text(&document["kind"]),
        text(&document["metadata"]["namespace"]),
        text(&document["metadata"]["name"]),
    )
}

/// `deploy/crds/crds.yaml`, the CRDs the operator serves.
fn crds_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/crds/crds.yaml")
}

/// The API resource of every kind the generator writes.
fn api_resource(kind: &str) -> Result<ApiResource> {
    let (group, version, plural) = match kind {
        "Namespace" => ("", "v1", "namespaces"),
        "Secret" => ("", "v1", "secrets"),
        "GrafanaAgent" => ("monitoring.grafana.com", "v1alpha1", "grafanaagents"),
        "MetricsInstance" => ("monitoring.grafana.com", "v1alpha1", "metricsinstances"),
        "LogsInstance" => ("monitoring.grafana.com", "v1alpha1", "logsinstances"),
        "PodLogs" => ("monitoring.grafana.com", "v1alpha1", "podlogs"),
        "ServiceMonitor" => ("monitoring.coreos.com", "v1", "servicemonitors"),
        "PodMonitor" => ("monitoring.coreos.com", "v1", "podmonitors"),
        "Probe" => ("monitoring.coreos.com", "v1", "probes"),
        other => bail!("the benchmark cannot load kind {other:?}"),
    };
    Ok(ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk(group, version, kind),
        plural,
    ))
}

/// `count` Secrets of `bytes` random-looking bytes each in namespaces nothing selects or
/// references (`unrelated-NNN`, 1000 Secrets each): memory must not grow with them.
pub fn unrelated_secrets(count: usize, bytes: usize) -> Vec<Value> {
    const PER_NAMESPACE: usize = 1000;
    let namespaces = count.div_ceil(PER_NAMESPACE);
    let mut docs: Vec<Value> = (0..namespaces)
        .map(|n| {
            serde_json::json!({
                "apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": format!("unrelated-{n:03}")},
            })
        })
        .collect();
    let mut rng = crate::generate::Rng::new(0x5ec2e7);
    docs.extend((0..count).map(|i| {
        serde_json::json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {
                "name": format!("unrelated-{i:06}"),
                "namespace": format!("unrelated-{:03}", i / PER_NAMESPACE),
            },
            "stringData": {"payload": rng.alphanumeric(bytes)},
        })
    }));
    docs
}
