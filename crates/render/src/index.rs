//! Which agents an input change affects: the controller's event mapper, pure.
//!
//! Each reconcile records its agent's [`Dependencies`]; a watch event is mapped to the union
//! of the agents that recorded the object (catches edits, deletions and objects that stopped
//! matching) and the agents whose selectors match the object's new labels and namespace
//! (catches objects that start matching). Nothing here calls the API.

use std::collections::{BTreeSet, HashMap};

use crate::dependencies::{Dependencies, SelectorDependency};
use crate::input_ref::{InputRef, Kind};
use crate::store::{InputView, Labels};

/// One input object after a watch event.
#[derive(Debug, Clone, Copy)]
pub struct Change<'a> {
    pub object: &'a InputRef,
    /// The object's labels now (for a Namespace, the namespace's labels); `None` when it was
    /// deleted.
    pub labels: Option<&'a Labels>,
}

impl<'a> Change<'a> {
    /// `object` was created or updated and now carries `labels`.
    pub fn applied(object: &'a InputRef, labels: &'a Labels) -> Self {
        Change {
            object,
            labels: Some(labels),
        }
    }

    pub fn deleted(object: &'a InputRef) -> Self {
        Change {
            object,
            labels: None,
        }
    }
}

/// What one agent recorded.
#[derive(Debug, Clone, Default)]
struct Recorded {
    /// Members and referenced Secrets/ConfigMaps.
    objects: BTreeSet<InputRef>,
    /// The namespaces of the members, and those PodLogs' label namespace selectors matched.
    namespaces: BTreeSet<String>,
    selectors: Vec<SelectorDependency>,
}

/// Object to agents, and each agent's selectors.
#[derive(Debug, Clone, Default)]
pub struct ReverseIndex {
    recorded: HashMap<InputRef, Recorded>,
    by_object: HashMap<InputRef, BTreeSet<InputRef>>,
    by_namespace: HashMap<String, BTreeSet<InputRef>>,
}

impl ReverseIndex {
    pub fn new() -> Self {
        ReverseIndex::default()
    }

    /// Replaces what `agent` depends on with `dependencies` (from its latest discovery).
    /// Returns the objects it depended on before and no longer does.
    ///
    /// Only the differences touch the maps: a reconcile after an edit records what it recorded
    /// before but for a few objects, and at thousands of members per agent removing and adding
    /// back every entry was most of the time spent here.
    pub fn record(&mut self, agent: &InputRef, dependencies: &Dependencies) -> Vec<InputRef> {
        let objects: BTreeSet<InputRef> = dependencies
            .members
            .iter()
            .chain(dependencies.references.keys())
            .cloned()
            .collect();
        let namespaces: BTreeSet<String> = dependencies
            .members
            .iter()
            .map(|m| m.namespace.clone())
            .chain(dependencies.namespaces.iter().cloned())
            .collect();
        let before = self.recorded.remove(agent).unwrap_or_default();
        let dropped: Vec<InputRef> = before.objects.difference(&objects).cloned().collect();
        for object in &dropped {
            remove_from(&mut self.by_object, object, agent);
        }
        for object in objects.difference(&before.objects) {
            self.by_object
                .entry(object.clone())
                .or_default()
                .insert(agent.clone());
        }
        for namespace in before.namespaces.difference(&namespaces) {
            remove_from(&mut self.by_namespace, namespace, agent);
        }
        for namespace in namespaces.difference(&before.namespaces) {
            self.by_namespace
                .entry(namespace.clone())
                .or_default()
                .insert(agent.clone());
        }
        let recorded = Recorded {
            objects,
            namespaces,
            selectors: dependencies.selectors.clone(),
        };
        self.recorded.insert(agent.clone(), recorded);
        dropped
    }

    /// Drops everything `agent` recorded (the agent was deleted). Returns the objects it had
    /// recorded.
    pub fn forget(&mut self, agent: &InputRef) -> BTreeSet<InputRef> {
        let Some(recorded) = self.recorded.remove(agent) else {
            return BTreeSet::new();
        };
        for object in &recorded.objects {
            remove_from(&mut self.by_object, object, agent);
        }
        for namespace in &recorded.namespaces {
            remove_from(&mut self.by_namespace, namespace, agent);
        }
        recorded.objects
    }

    /// The agents that recorded something.
    pub fn agents(&self) -> impl Iterator<Item = &InputRef> {
        self.recorded.keys()
    }

    /// The agents `change` may affect, in order. `inputs` gives the labels of the changed
    /// object's namespace (it should already reflect the change).
    pub fn agents_for(
        &self,
        change: Change<'_>,
        inputs: &(impl InputView + ?Sized),
    ) -> BTreeSet<InputRef> {
        let object = change.object;
        let mut agents = BTreeSet::new();
        match object.kind {
            Kind::GrafanaAgent => {
                agents.insert(object.clone());
                agents.extend(self.sharing_names(object));
            }
            Kind::Namespace => {
                if let Some(recorded) = self.by_namespace.get(&object.name) {
                    agents.extend(recorded.iter().cloned());
                }
                if let Some(labels) = change.labels {
                    agents.extend(self.selecting(|s| {
                        s.has_namespace_selector() && s.matches_namespace(&object.name, labels)
                    }));
                }
            }
            _ => {
                if let Some(recorded) = self.by_object.get(object) {
                    agents.extend(recorded.iter().cloned());
                }
                if let Some(labels) = change.labels {
                    let namespace_labels = inputs.namespace_labels(&object.namespace);
                    agents.extend(self.selecting(|s| {
                        s.matches(object.kind, &object.namespace, labels, namespace_labels)
                    }));
                }
            }
        }
        agents
    }

    /// The other agents of `agent`'s namespace whose generated names may be `agent`'s
    /// ([`crate::discover::name_collisions`]): every generated name starts with its agent's
    /// name, so those of which one name starts with the other. A change of `agent` (an edit,
    /// its creation or deletion) may start or end their collision, so they are reconciled
    /// again: the later of two colliding agents runs once the earlier is gone.
    pub fn sharing_names(&self, agent: &InputRef) -> BTreeSet<InputRef> {
        self.recorded
            .keys()
            .filter(|other| {
                other.kind == Kind::GrafanaAgent
                    && other.namespace == agent.namespace
                    && other.name != agent.name
                    && (other.name.starts_with(agent.name.as_str())
                        || agent.name.starts_with(other.name.as_str()))
            })
            .cloned()
            .collect()
    }

    /// The agents with a selector satisfying `test`.
    fn selecting(
        &self,
        test: impl Fn(&SelectorDependency) -> bool,
    ) -> impl Iterator<Item = InputRef> {
        self.recorded
            .iter()
            .filter(move |(_, r)| r.selectors.iter().any(&test))
            .map(|(agent, _)| agent.clone())
    }
}

fn remove_from<K: std::hash::Hash + Eq>(
    map: &mut HashMap<K, BTreeSet<InputRef>>,
    key: &K,
    agent: &InputRef,
) {
    if let Some(agents) = map.get_mut(key) {
        agents.remove(agent);
        if agents.is_empty() {
            map.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::discover::discover;
    use crate::manifest::Loader;
    use crate::store::InputStore;

    const INPUTS: &str = r#"
apiVersion: v1
kind: Namespace
metadata: {name: ops, labels: {team: ops}}
---
apiVersion: v1
kind: Namespace
metadata: {name: apps, labels: {team: apps}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: ops}
spec:
  metrics: {instanceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: i, namespace: ops}
spec:
  serviceMonitorSelector: {matchLabels: {scrape: "yes"}}
  serviceMonitorNamespaceSelector: {matchLabels: {team: apps}}
  remoteWrite:
  - url: https://remote/push
    basicAuth:
      username: {name: creds, key: user}
      password: {name: creds, key: pw}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: b, namespace: apps}
spec:
  metrics: {instanceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: j, namespace: apps}
spec:
  serviceMonitorSelector: {}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: apps, labels: {scrape: "yes"}}
spec: {selector: {}, endpoints: [{port: http}]}
"#;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn agent(name: &str) -> InputRef {
        let namespace = if name == "a" { "ops" } else { "apps" };
        InputRef::new(Kind::GrafanaAgent, namespace, name)
    }

    /// The store and an index recording every agent's discovery, as a controller that has
    /// reconciled each agent once holds them.
    fn reconciled() -> (InputStore, ReverseIndex) {
        let mut loader = Loader::new();
        loader.add_source("test.yaml", INPUTS);
        let loaded = loader.finish();
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let mut index = ReverseIndex::new();
        for a in loaded.store.agents() {
            let d = discover(a, &loaded.store);
            index.record(
                &InputRef::of(Kind::GrafanaAgent, a.as_ref()),
                &d.dependencies,
            );
        }
        (loaded.store, index)
    }

    fn names(agents: BTreeSet<InputRef>) -> Vec<String> {
        agents.into_iter().map(|a| a.name).collect()
    }

    fn applied(
        index: &ReverseIndex,
        store: &InputStore,
        object: &InputRef,
        labels: &Labels,
    ) -> Vec<String> {
        names(index.agents_for(Change::applied(object, labels), store))
    }

    #[test]
    fn an_object_that_starts_matching_maps_to_every_agent_whose_selector_it_matches() {
        let (store, index) = reconciled();
        let new = InputRef::new(Kind::ServiceMonitor, "apps", "new");
        assert_eq!(
            applied(&index, &store, &new, &labels(&[("scrape", "yes")])),
            ["b", "a"]
        );
        assert_eq!(
            applied(&index, &store, &new, &labels(&[])),
            ["b"],
            "b selects every monitor of its namespace, a only scrape=yes"
        );
        let elsewhere = InputRef::new(Kind::ServiceMonitor, "ops", "new");
        assert!(
            applied(&index, &store, &elsewhere, &labels(&[("scrape", "yes")])).is_empty(),
            "ops is outside a's namespace selector and b's namespace"
        );
        let probe = InputRef::new(Kind::Probe, "apps", "p");
        assert!(
            applied(&index, &store, &probe, &labels(&[])).is_empty(),
            "nil probe selectors select nothing"
        );
    }

    #[test]
    fn an_object_that_stops_matching_or_is_deleted_maps_to_the_agents_that_selected_it() {
        let (store, index) = reconciled();
        let web = InputRef::new(Kind::ServiceMonitor, "apps", "web");
        assert_eq!(
            applied(&index, &store, &web, &labels(&[("scrape", "no")])),
            ["b", "a"],
            "a selected it before the relabel"
        );
        assert_eq!(
            names(index.agents_for(Change::deleted(&web), &store)),
            ["b", "a"]
        );
        let unknown = InputRef::new(Kind::ServiceMonitor, "apps", "gone");
        assert!(
            index
                .agents_for(Change::deleted(&unknown), &store)
                .is_empty()
        );
    }

    #[test]
    fn a_namespace_relabel_maps_to_namespace_selectors_and_to_agents_with_members_there() {
        let (mut store, index) = reconciled();
        let other = InputRef::new(Kind::Namespace, "", "other");
        let apps = labels(&[("team", "apps")]);
        store.apply_namespace("other", apps.clone());
        assert_eq!(
            applied(&index, &store, &other, &apps),
            ["a"],
            "a's namespace selector now matches it"
        );
        assert!(applied(&index, &store, &other, &labels(&[])).is_empty());

        let apps_ns = InputRef::new(Kind::Namespace, "", "apps");
        assert_eq!(
            applied(&index, &store, &apps_ns, &labels(&[("team", "none")])),
            ["b", "a"],
            "both have members in apps"
        );
        let ops_ns = InputRef::new(Kind::Namespace, "", "ops");
        assert_eq!(
            names(index.agents_for(Change::deleted(&ops_ns), &store)),
            ["a"],
            "a's MetricsInstance lives in ops"
        );

        // A monitor in the relabelled namespace now maps through the new labels.
        let new = InputRef::new(Kind::ServiceMonitor, "other", "new");
        let scrape = labels(&[("scrape", "yes")]);
        assert_eq!(applied(&index, &store, &new, &scrape), ["a"]);
        store.apply_namespace("other", labels(&[]));
        assert!(applied(&index, &store, &new, &scrape).is_empty());
    }

    /// A PodLogs' label `namespaceSelector` (Alloy's spelling) is resolved to namespaces at
    /// discovery: a namespace that starts matching it (its new labels) or stops (it matched
    /// before) maps to the agent, though no member of the agent lives there.
    #[test]
    fn a_namespace_that_starts_or_stops_matching_a_pod_logs_namespace_selector_maps_to_its_agent() {
        let mut loader = Loader::new();
        loader.add_source(
            "test.yaml",
            r#"
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {team: apps}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: logs, namespace: monitoring}
spec:
  logs: {instanceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: i, namespace: monitoring}
spec:
  podLogsSelector: {}
  clients: [{url: http://loki/loki/api/v1/push}]
---
apiVersion: monitoring.grafana.com/v1alpha2
kind: PodLogs
metadata: {name: p, namespace: monitoring}
spec:
  selector: {}
  namespaceSelector: {matchLabels: {team: apps}}
"#,
        );
        let loaded = loader.finish();
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let store = loaded.store;
        let agent = store.agents().next().expect("the agent").clone();
        let d = discover(&agent, &store);
        let pod_logs = InputRef::new(Kind::PodLogs, "monitoring", "p");
        assert_eq!(d.hierarchy.pod_namespaces[&pod_logs], ["shop"]);
        let mut index = ReverseIndex::new();
        index.record(
            &InputRef::of(Kind::GrafanaAgent, agent.as_ref()),
            &d.dependencies,
        );

        let web = InputRef::new(Kind::Namespace, "", "web");
        assert_eq!(
            applied(&index, &store, &web, &labels(&[("team", "apps")])),
            ["logs"],
            "web starts matching"
        );
        assert!(applied(&index, &store, &web, &labels(&[("team", "ops")])).is_empty());
        let shop = InputRef::new(Kind::Namespace, "", "shop");
        assert_eq!(
            applied(&index, &store, &shop, &labels(&[("team", "ops")])),
            ["logs"],
            "shop stops matching"
        );
        assert_eq!(
            names(index.agents_for(Change::deleted(&shop), &store)),
            ["logs"]
        );
    }

    #[test]
    fn a_referenced_secret_maps_to_the_agents_that_reference_it_present_or_not() {
        let (store, index) = reconciled();
        let creds = InputRef::new(Kind::Secret, "ops", "creds");
        assert_eq!(applied(&index, &store, &creds, &labels(&[])), ["a"]);
        assert_eq!(
            names(index.agents_for(Change::deleted(&creds), &store)),
            ["a"]
        );
        let other = InputRef::new(Kind::Secret, "ops", "unrelated");
        assert!(applied(&index, &store, &other, &labels(&[])).is_empty());
        let config_map = InputRef::new(Kind::ConfigMap, "ops", "creds");
        assert!(applied(&index, &store, &config_map, &labels(&[])).is_empty());
    }

    #[test]
    fn recording_replaces_an_agents_entries_and_forgetting_drops_them() {
        let (store, mut index) = reconciled();
        let web = InputRef::new(Kind::ServiceMonitor, "apps", "web");
        let creds = InputRef::new(Kind::Secret, "ops", "creds");
        let dropped = index.record(&agent("a"), &Dependencies::default());
        assert!(
            dropped.contains(&web) && dropped.contains(&creds),
            "{dropped:?}"
        );
        assert!(
            index
                .record(&agent("a"), &Dependencies::default())
                .is_empty()
        );
        assert_eq!(
            names(index.agents_for(Change::deleted(&web), &store)),
            ["b"]
        );
        assert!(index.agents_for(Change::deleted(&creds), &store).is_empty());

        index.forget(&agent("b"));
        assert!(index.agents_for(Change::deleted(&web), &store).is_empty());
        assert!(applied(&index, &store, &web, &labels(&[("scrape", "yes")])).is_empty());
        assert_eq!(
            index.agents().count(),
            1,
            "a is still recorded, with nothing"
        );
        index.forget(&agent("a"));
        assert_eq!(index.agents().count(), 0);
        assert!(index.by_object.is_empty() && index.by_namespace.is_empty());
    }

    #[test]
    fn recording_again_leaves_the_index_as_recording_afresh_would() {
        fn deps(members: &[&InputRef], referenced: &[&InputRef]) -> Dependencies {
            Dependencies {
                members: members.iter().map(|m| (*m).clone()).collect(),
                references: referenced
                    .iter()
                    .map(|r| ((*r).clone(), ["k".to_owned()].into()))
                    .collect(),
                ..Dependencies::default()
            }
        }
        let web = InputRef::new(Kind::ServiceMonitor, "apps", "web");
        let db = InputRef::new(Kind::ServiceMonitor, "data", "db");
        let cache = InputRef::new(Kind::ServiceMonitor, "data", "cache");
        let creds = InputRef::new(Kind::Secret, "ops", "creds");
        let token = InputRef::new(Kind::Secret, "ops", "token");
        let mut index = ReverseIndex::new();
        index.record(&agent("b"), &deps(&[&web, &db], &[&creds]));
        index.record(&agent("a"), &deps(&[&web, &db], &[&creds]));
        let dropped = index.record(&agent("a"), &deps(&[&web, &cache], &[&token]));
        assert_eq!(dropped, [db.clone(), creds.clone()]);

        let mut afresh = ReverseIndex::new();
        afresh.record(&agent("b"), &deps(&[&web, &db], &[&creds]));
        afresh.record(&agent("a"), &deps(&[&web, &cache], &[&token]));
        assert_eq!(index.by_object, afresh.by_object);
        assert_eq!(index.by_namespace, afresh.by_namespace);
        assert_eq!(index.by_object[&db], [agent("b")].into());
        assert_eq!(index.by_namespace["data"], [agent("a"), agent("b")].into());
    }

    #[test]
    fn an_agent_change_maps_to_itself() {
        let (store, index) = reconciled();
        let new = InputRef::new(Kind::GrafanaAgent, "x", "new");
        assert_eq!(applied(&index, &store, &new, &BTreeMap::new()), ["new"]);
    }

    /// Issue 38, item 6: an agent's change (its deletion above all) maps to the agents of its
    /// namespace whose generated names may collide with its own, so the later of two
    /// colliding agents runs once the earlier is gone; the other agents are left alone.
    #[test]
    fn an_agent_change_maps_to_the_agents_of_its_namespace_whose_names_it_may_share() {
        let mut index = ReverseIndex::new();
        let store = InputStore::new();
        let in_ns = |ns: &str, name: &str| InputRef::new(Kind::GrafanaAgent, ns, name);
        for (ns, name) in [
            ("a", "prod"),
            ("a", "prod-logs"),
            ("a", "x-shard-1"),
            ("a", "staging"),
            ("b", "prod-logs"),
        ] {
            index.record(&in_ns(ns, name), &Dependencies::default());
        }
        let prod = in_ns("a", "prod");
        assert_eq!(
            names(index.agents_for(Change::deleted(&prod), &store)),
            ["prod", "prod-logs"]
        );
        let prod_logs = in_ns("a", "prod-logs");
        assert_eq!(
            names(index.agents_for(Change::applied(&prod_logs, &BTreeMap::new()), &store)),
            ["prod", "prod-logs"]
        );
        let x = in_ns("a", "x");
        assert_eq!(
            names(index.agents_for(Change::applied(&x, &BTreeMap::new()), &store)),
            ["x", "x-shard-1"]
        );
    }
}
