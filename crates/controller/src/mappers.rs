//! The mappers: which agents a watched object's change concerns, from the reverse index that
//! each reconcile records (`render::index::ReverseIndex`) and from ownerReferences. Pure: a
//! mapper never calls the API (the unit tests below run them without a server).

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock};

use api::GrafanaAgent;
use k8s_openapi::api::core::v1::Namespace;
use kube::Resource;
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{ObjectRef, Store};
use render::index::{Change, ReverseIndex};
use render::input_ref::{InputRef, Kind};
use render::store::InputStore;

use crate::metrics::Metrics;
use crate::watches::{MapperFactory, Role};
use crate::writer::OwnWrites;

/// The functions that turn a watched object's change into the agents to reconcile.
pub(crate) struct Mappers {
    pub index: Arc<RwLock<ReverseIndex>>,
    pub namespaces: Store<PartialObjectMeta<Namespace>>,
    pub metrics: Metrics,
    pub own_writes: OwnWrites,
}

type Agents = Vec<ObjectRef<GrafanaAgent>>;

/// The GrafanaAgent an object's controller ownerReference names, if any.
fn controlling_agent<K: Resource>(object: &K) -> Option<ObjectRef<GrafanaAgent>> {
    let meta = object.meta();
    let owner = meta
        .owner_references
        .as_ref()?
        .iter()
        .find(|o| o.controller == Some(true) && o.kind == "GrafanaAgent")?;
    Some(ObjectRef::new(&owner.name).within(meta.namespace.as_deref().unwrap_or_default()))
}

impl Mappers {
    fn lookup(&self, object: &InputRef, labels: &BTreeMap<String, String>) -> Agents {
        // The index reads only the labels of the changed object's namespace.
        let mut namespaces = InputStore::new();
        if let Some(ns) = self.namespaces.get(&ObjectRef::new(&object.namespace)) {
            let labels = ns.metadata.labels.clone().unwrap_or_default();
            namespaces.apply_namespace(object.namespace.clone(), labels);
        }
        self.index
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .agents_for(Change::applied(object, labels), &namespaces)
            .into_iter()
            .map(|agent| ObjectRef::new(&agent.name).within(&agent.namespace))
            .collect()
    }

    /// The other agents of `agent`'s namespace whose generated names may collide with its
    /// own (`ReverseIndex::sharing_names`): a change or departure of `agent` may start or end
    /// their collision (issue 38, item 6), so they are reconciled again.
    pub(crate) fn sharing_names(&self, agent: &ObjectRef<GrafanaAgent>) -> Agents {
        let agent = InputRef::new(
            Kind::GrafanaAgent,
            agent.namespace.clone().unwrap_or_default(),
            agent.name.clone(),
        );
        let agents: Agents = self
            .index
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .sharing_names(&agent)
            .into_iter()
            .map(|other| ObjectRef::new(&other.name).within(&other.namespace))
            .collect();
        self.metrics.triggered_by("GrafanaAgent", agents.len());
        agents
    }

    fn selecting<K: Resource>(&self, kind: Kind, object: &K) -> Agents {
        let meta = object.meta();
        let no_labels = BTreeMap::new();
        let name = meta.name.clone().unwrap_or_default();
        let namespace = match kind {
            Kind::Namespace => String::new(),
            _ => meta.namespace.clone().unwrap_or_default(),
        };
        let changed = InputRef::new(kind, namespace, name);
        self.lookup(&changed, meta.labels.as_ref().unwrap_or(&no_labels))
    }

    /// The agent that owns a generated Secret, Service or workload, unless the change is the
    /// operator's own write.
    fn owned<K>(&self, store: &Store<K>, object: &K) -> Agents
    where
        K: Resource<DynamicType = ()> + Clone,
    {
        let still_there = store.get(&ObjectRef::from_obj(object)).is_some();
        if self.own_writes.is_echo(object, still_there) {
            Vec::new()
        } else {
            controlling_agent(object).into_iter().collect()
        }
    }
}

impl MapperFactory for Arc<Mappers> {
    /// The mapper of a watched kind, by its role in the registry (`watches::watched_kinds!`):
    /// an input maps to the agents whose hierarchy holds, references or selects the object (a
    /// deleted object arrives with its last labels; a Namespace maps to the agents with
    /// members in it or selecting by its labels), a generated object to its controlling agent
    /// unless the change is the operator's own write.
    fn mapper<K>(&self, role: Role, store: Store<K>) -> impl Fn(K) -> Agents + Send + Sync + 'static
    where
        K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        let this = self.clone();
        move |object: K| {
            let (kind, agents) = match role {
                Role::Input(kind) => (kind.as_str().into(), this.selecting(kind, &object)),
                Role::Generated => (K::kind(&()), this.owned(&store, &object)),
            };
            this.metrics.triggered_by(&kind, agents.len());
            agents
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::Secret;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
    use kube::runtime::reflector;
    use kube::runtime::watcher;
    use prometheus_client::registry::Registry;

    const INPUTS: &str = r#"
apiVersion: v1
kind: Namespace
metadata: {name: monitoring}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {team: shop}}
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: monitoring, uid: agent-uid}
spec:
  metrics:
    instanceSelector: {matchLabels: {agent: agent}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: monitoring, labels: {agent: agent}}
spec:
  serviceMonitorNamespaceSelector: {matchLabels: {team: shop}}
  serviceMonitorSelector: {matchLabels: {instance: primary}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: checkout, namespace: shop, labels: {instance: primary}}
spec:
  selector: {matchLabels: {app: checkout}}
  endpoints: [{port: web}]
"#;

    /// Mappers whose index recorded every agent's discovery of [`INPUTS`], as after one
    /// reconcile of each, and whose Namespace store holds the inputs' Namespaces.
    fn mappers() -> Arc<Mappers> {
        let mut loader = render::manifest::Loader::new();
        loader.add_source("test.yaml", INPUTS);
        let loaded = loader.finish();
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let mut index = ReverseIndex::new();
        for agent in loaded.store.agents() {
            let discovery = render::discover(agent, &loaded.store);
            let key = InputRef::new(
                Kind::GrafanaAgent,
                agent.metadata.namespace.clone().unwrap_or_default(),
                agent.metadata.name.clone().unwrap_or_default(),
            );
            index.record(&key, &discovery.dependencies);
        }
        let (namespaces, mut writer) = reflector::store();
        for (name, labels) in [
            ("monitoring", None),
            ("shop", Some("shop")),
            ("other", None),
        ] {
            let ns = PartialObjectMeta::<Namespace> {
                types: None,
                metadata: ObjectMeta {
                    name: Some(name.to_owned()),
                    labels: labels.map(|team| [("team".to_owned(), team.to_owned())].into()),
                    ..ObjectMeta::default()
                },
                _phantom: std::marker::PhantomData,
            };
            writer.apply_watcher_event(&watcher::Event::Apply(ns));
        }
        Arc::new(Mappers {
            index: Arc::new(RwLock::new(index)),
            namespaces,
            metrics: Metrics::new(&mut Registry::default()),
            own_writes: OwnWrites::default(),
        })
    }

    fn names(agents: Agents) -> Vec<String> {
        agents
            .iter()
            .map(|a| format!("{}/{}", a.namespace.as_deref().unwrap_or_default(), a.name))
            .collect()
    }

    fn monitor(namespace: &str, name: &str, instance: &str) -> api::ServiceMonitor {
        let mut m: api::ServiceMonitor = serde_json::from_value(serde_json::json!({
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "ServiceMonitor",
            "metadata": {"name": name, "namespace": namespace, "labels": {"instance": instance}},
            "spec": {"selector": {}, "endpoints": []},
        }))
        .expect("a ServiceMonitor");
        m.metadata.resource_version = Some("2".to_owned());
        m
    }

    #[test]
    fn an_input_maps_to_the_agents_that_select_it_or_would() {
        let m = mappers();
        let (store, _) = reflector::store();
        let map = m.mapper(Role::Input(Kind::ServiceMonitor), store);
        // Edited while selected; relabelled away (the index remembers it was selected).
        assert_eq!(
            names(map(monitor("shop", "checkout", "primary"))),
            ["monitoring/agent"]
        );
        assert_eq!(
            names(map(monitor("shop", "checkout", "none"))),
            ["monitoring/agent"]
        );
        // New and matching; new in a namespace nothing selects; new with other labels.
        assert_eq!(
            names(map(monitor("shop", "cart", "primary"))),
            ["monitoring/agent"]
        );
        assert!(map(monitor("other", "cart", "primary")).is_empty());
        assert!(map(monitor("shop", "cart", "secondary")).is_empty());
    }

    #[test]
    fn a_namespace_maps_to_the_agents_with_members_in_it_or_selecting_its_labels() {
        let m = mappers();
        let (store, _) = reflector::store();
        let map = m.mapper(Role::Input(Kind::Namespace), store);
        let ns = |name: &str, team: &str| PartialObjectMeta::<Namespace> {
            types: None,
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                labels: Some([("team".to_owned(), team.to_owned())].into()),
                ..ObjectMeta::default()
            },
            _phantom: std::marker::PhantomData,
        };
        // Relabelled to match the namespace selector; the member namespace relabelled away.
        assert_eq!(map(ns("other", "shop")).len(), 1);
        assert_eq!(map(ns("shop", "none")).len(), 1);
        assert!(map(ns("other", "none")).is_empty());
    }

    fn generated(owner: Option<&str>) -> Secret {
        Secret {
            metadata: ObjectMeta {
                name: Some("agent-config".to_owned()),
                namespace: Some("monitoring".to_owned()),
                resource_version: Some("7".to_owned()),
                owner_references: owner.map(|kind| {
                    vec![OwnerReference {
                        kind: kind.to_owned(),
                        name: "agent".to_owned(),
                        controller: Some(true),
                        ..OwnerReference::default()
                    }]
                }),
                ..ObjectMeta::default()
            },
            ..Secret::default()
        }
    }

    #[test]
    fn a_generated_object_maps_to_its_controlling_agent() {
        let m = mappers();
        let (store, mut writer) = reflector::store();
        writer.apply_watcher_event(&watcher::Event::Apply(generated(Some("GrafanaAgent"))));
        let map = m.mapper(Role::Generated, store);
        // Edited by someone (the operator wrote nothing), or deleted: its agent repairs it.
        assert_eq!(
            names(map(generated(Some("GrafanaAgent")))),
            ["monitoring/agent"]
        );
        // Owned by another kind, or by nothing: no agent.
        assert!(map(generated(Some("Deployment"))).is_empty());
        assert!(map(generated(None)).is_empty());
    }
}
