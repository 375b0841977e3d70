//! The "snapshot" step of the pipeline: discovery reads the `render::InputStore` the watches
//! feed (`watches::feed`, shared by every reconcile, read in place), with the values of the
//! Secrets and ConfigMaps the agent refers to laid over it.
//!
//! Secrets and ConfigMaps are watched metadata-only; discovery lists in `to_load` the
//! referenced ones whose values are not held at their current resourceVersion, which are
//! then read (GET, keeping only the referenced keys) and discovery runs again. Values are held
//! per agent only while it refers to them; in the steady state discovery runs once.
//!
//! [`list_inputs`] takes the same snapshot without watches (for `agent-operator explain`):
//! every input kind of the watches' registry listed once and fed as its watch feeds it
//! (`watches::list_inputs`), then the same reads.

use std::collections::{BTreeSet, HashMap};
use std::ops::Deref;
use std::sync::{Arc, PoisonError};

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::Api;
use render::Discovery;
use render::asset_key::{AssetSource, DataRef};
use render::store::{DataContent, InputStore, InputView, KeyValues, WithContent};

use crate::context::Context;
use crate::error::Error;
use crate::watches;

/// The referenced values one agent holds: what was read of each Secret and ConfigMap (every
/// key name, the wanted values) at some resourceVersion. Laid over the shared snapshot for
/// each discovery ([`WithContent`]); it counts while that version is current.
#[derive(Debug, Default)]
pub(crate) struct Values {
    held: HashMap<DataRef, Arc<DataContent>>,
}

/// Rounds of discovery before giving up on a stable set of values: each round can only add
/// the references of objects the previous one could not resolve yet.
const MAX_ROUNDS: usize = 8;

/// Reads of referenced Secrets and ConfigMaps sent at once.
const READS_IN_FLIGHT: usize = 16;

/// How the agent's discovery was brought up to date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Discovered {
    /// Walking every input (and reading the values it lacked).
    Whole,
    /// From the previous one, after edits of monitors only ([`render::rediscover`]): what it
    /// depends on is unchanged.
    Since,
}

/// Brings `agent`'s discovery `kept` up to date with the watch-fed snapshot: from the previous
/// one when only monitors were edited since, else whole, reading the referenced values it
/// lacks. On an error nothing is kept.
pub(crate) async fn discover<'k>(
    ctx: &Context,
    agent: &Arc<api::GrafanaAgent>,
    values: &mut Values,
    kept: &'k mut Option<Discovery>,
) -> Result<(&'k Discovery, Discovered), Error> {
    let inputs = &ctx.stores.inputs;
    let snapshot = || inputs.read().unwrap_or_else(PoisonError::into_inner);
    // The values laid over the snapshot change only after a Secret or ConfigMap change, which
    // no previous discovery is brought past.
    let previous = kept.take().and_then(|mut previous| {
        render::rediscover(agent, &*snapshot(), &mut previous).then_some(previous)
    });
    let (discovery, how) = match previous {
        Some(previous) => (previous, Discovered::Since),
        None => {
            let (discovery, _) = discover_reading(&ctx.client, snapshot, agent, values).await?;
            (discovery, Discovered::Whole)
        }
    };
    Ok((kept.insert(discovery), how))
}

/// Every input of the cluster `client` points at, listed once, with the values of the
/// Secrets and ConfigMaps each GrafanaAgent refers to (and no others): the store `render`
/// fills from files, taken read-only from a cluster. It needs list on the eight kinds,
/// Namespaces, Secrets and ConfigMaps (metadata-only) and get on the referenced Secrets and
/// ConfigMaps.
pub async fn list_inputs(client: &kube::Client) -> Result<InputStore, Error> {
    let mut inputs = watches::list_inputs(client).await?;
    let agents: Vec<Arc<api::GrafanaAgent>> = inputs.agents().cloned().collect();
    for agent in &agents {
        let mut values = Values::default();
        let (_, missing) = discover_reading(client, || &inputs, agent, &mut values).await?;
        // What each agent's discovery read stays in `inputs` for the next agents.
        for object in missing {
            inputs.delete(object.source.kind(), &object.namespace, &object.name);
        }
        for (object, content) in values.held {
            inputs.apply_read(object.source, object.namespace, object.name, content);
        }
    }
    Ok(inputs)
}

/// Discovers `agent`'s hierarchy in the snapshot `inputs` gives, with `values` laid over it,
/// reading the referenced values it lacks into `values`. Also returns the objects found
/// missing when read. The snapshot is taken again for each round, and held only while
/// discovery runs (never across a read).
async fn discover_reading<S>(
    client: &kube::Client,
    inputs: impl Fn() -> S,
    agent: &Arc<api::GrafanaAgent>,
    values: &mut Values,
) -> Result<(Discovery, Vec<DataRef>), Error>
where
    S: Deref<Target = InputStore>,
{
    // The objects read by this call: present (taken at the version read, which may be newer
    // than the watch's) or missing (whatever the watch still says).
    let mut read_now: HashMap<DataRef, bool> = HashMap::new();
    for _ in 0..MAX_ROUNDS {
        let discovery = {
            let snapshot = inputs();
            // Values are held only for objects that still exist: a Secret or ConfigMap the
            // watch reports deleted is missing now, as it would be on a fresh start (its
            // reference is then rejected), and its old values must not come back into the
            // config or assets.
            values.held.retain(|object, _| {
                read_now.get(object) == Some(&true)
                    || snapshot
                        .data_object(object.source, &object.namespace, &object.name)
                        .is_some()
            });
            let mut view = WithContent::new(&*snapshot);
            for (object, content) in &values.held {
                let (namespace, name) = (&object.namespace, &object.name);
                match read_now.get(object) {
                    Some(_) => view.read(object.source, namespace, name, content.clone()),
                    None => view.lay(object.source, namespace, name, content.clone()),
                }
            }
            for (object, _) in read_now.iter().filter(|(_, present)| !**present) {
                view.missing(object.source, &object.namespace, &object.name);
            }
            tokio::task::block_in_place(|| render::discover(agent, &view))
        };
        if discovery.to_load.is_empty() {
            let references = &discovery.dependencies.references;
            values
                .held
                .retain(|object, _| references.contains_key(&object.input_ref()));
            let missing = read_now
                .into_iter()
                .filter_map(|(object, present)| (!present).then_some(object))
                .collect();
            return Ok((discovery, missing));
        }
        // Read side by side: a cold start at 10k monitors reads about a thousand Secrets,
        // which one at a time took seconds of round trips.
        let reads: Vec<_> = futures::stream::iter(discovery.to_load)
            .map(|(object, keys)| {
                let client = client.clone();
                async move {
                    let read = read(&client, &object, &keys).await;
                    (object, read)
                }
            })
            .buffered(READS_IN_FLIGHT)
            .collect()
            .await;
        for (object, read) in reads {
            match read? {
                Some(content) => {
                    values.held.insert(object.clone(), Arc::new(content));
                    read_now.insert(object, true);
                }
                None => {
                    values.held.remove(&object);
                    read_now.insert(object, false);
                }
            }
        }
    }
    Err(Error::Render {
        agent: format!(
            "{}/{}",
            agent.metadata.namespace.as_deref().unwrap_or_default(),
            agent.metadata.name.as_deref().unwrap_or_default()
        ),
        message: "referenced Secrets or ConfigMaps kept changing while being read".to_owned(),
    })
}

/// Reads one Secret or ConfigMap, keeping the values of `keys` only; `None` when it is
/// missing.
async fn read(
    client: &kube::Client,
    object: &DataRef,
    keys: &BTreeSet<String>,
) -> Result<Option<DataContent>, Error> {
    let action = || format!("reading {object}");
    let (namespace, name) = (&object.namespace, &object.name);
    let read: Option<(Option<String>, KeyValues)> = match object.source {
        AssetSource::ConfigMap => Api::<ConfigMap>::namespaced(client.clone(), namespace)
            .get_opt(name)
            .await
            .map_err(Error::api(action()))?
            .map(|c| {
                let mut data: KeyValues = c
                    .binary_data
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, v.0))
                    .collect();
                // `data` wins over `binaryData`, as the file loader does.
                data.extend(
                    c.data
                        .unwrap_or_default()
                        .into_iter()
                        .map(|(k, v)| (k, v.into_bytes())),
                );
                (c.metadata.resource_version, data)
            }),
        AssetSource::Secret => Api::<Secret>::namespaced(client.clone(), namespace)
            .get_opt(name)
            .await
            .map_err(Error::api(action()))?
            .map(|s| {
                let data = s
                    .data
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, v.0))
                    .collect();
                (s.metadata.resource_version, data)
            }),
    };
    Ok(read.map(|(version, mut data)| {
        let key_names = data.keys().cloned().collect();
        data.retain(|k, _| keys.contains(k));
        DataContent::new(version, key_names, data)
    }))
}

#[cfg(test)]
mod tests {
    use kube::api::{DeleteParams, Patch, PatchParams};
    use render::asset_key::AssetSource;
    use render::input_ref::Kind;
    use serde_json::json;

    use super::*;
    use crate::context::testing::{NS, agent_cluster, apply, context, eventually};

    /// [`agent_cluster`]'s agent, whose MetricsInstance selects one ServiceMonitor that reads
    /// a password from Secret `creds`; Secret `unrelated` and ConfigMap `unrelated` are
    /// referenced by nothing.
    async fn cluster() -> (testkube::TestKube, kube::Client) {
        agent_cluster(vec![
            json!({"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
                   "metadata": {"name": "web", "namespace": NS},
                   "spec": {"selector": {}, "endpoints": [{"port": "web", "basicAuth": {
                       "username": {"name": "creds", "key": "user"},
                       "password": {"name": "creds", "key": "pw"}}}]}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds", "namespace": NS},
                   "stringData": {"user": "me", "pw": "secret", "other": "never read"}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "unrelated", "namespace": NS},
                   "stringData": {"key": "value"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "unrelated", "namespace": NS},
                   "data": {"key": "value"}}),
        ])
        .await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn list_inputs_lists_every_registry_kind_and_reads_only_referenced_values() {
        let (_kube, client) = cluster().await;
        let inputs = list_inputs(&client).await.expect("listed");
        let agent = inputs.agents().next().expect("the agent").clone();
        let d = render::discover(&agent, &inputs);
        assert!(d.to_load.is_empty(), "every referenced value was read");
        assert!(d.rejections.is_empty(), "{:?}", d.rejections);
        assert_eq!(d.hierarchy.selected(Kind::MetricsInstance), Some(1));
        assert_eq!(d.hierarchy.selected(Kind::ServiceMonitor), Some(1));
        assert!(inputs.namespaces().contains_key(NS), "Namespaces listed");
        let values = |source, name| {
            let object = inputs.data_object(source, NS, name).expect("listed");
            let content = object.current_content();
            content.map(|c| c.values().keys().cloned().collect::<Vec<_>>())
        };
        // The referenced keys only, and no value of an object nothing references.
        let referenced = vec!["pw".to_owned(), "user".to_owned()];
        assert_eq!(values(AssetSource::Secret, "creds"), Some(referenced));
        assert_eq!(values(AssetSource::Secret, "unrelated"), None);
        assert_eq!(values(AssetSource::ConfigMap, "unrelated"), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn values_are_read_once_held_while_referenced_and_dropped_after() {
        let (kube, client) = cluster().await;
        let (ctx, _) = context(client.clone()).await;
        let agent = ctx.stores.agents.state().pop().expect("the agent");
        let mut values = Values::default();
        let mut kept = None;
        let reads = || kube.counters().get("get", "secrets");

        let (d, how) = discover(&ctx, &agent, &mut values, &mut kept)
            .await
            .expect("discovered");
        assert!(
            d.to_load.is_empty() && d.rejections.is_empty(),
            "{:?}",
            d.rejections
        );
        assert_eq!(how, Discovered::Whole);
        let creds = DataRef::new(AssetSource::Secret, NS, "creds");
        assert_eq!(values.held.keys().collect::<Vec<_>>(), [&creds]);
        assert_eq!(reads(), 1);

        // Held: the next discovery reads nothing, and starts from the last one.
        let (_, how) = discover(&ctx, &agent, &mut values, &mut kept)
            .await
            .expect("discovered");
        assert_eq!(reads(), 1);
        assert_eq!(how, Discovered::Since);

        // A monitor's endpoints edited: from the last one, as a whole discovery finds it.
        let monitors = Api::<api::ServiceMonitor>::namespaced(client.clone(), NS);
        let patch = json!({"spec": {"endpoints": [{"port": "web", "interval": "7s", "basicAuth": {
            "username": {"name": "creds", "key": "user"},
            "password": {"name": "creds", "key": "pw"}}}]}});
        monitors
            .patch("web", &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .expect("patched");
        eventually("the watch sees the edit", || {
            ctx.stores.service_monitors.state().iter().any(|m| {
                m.spec
                    .endpoints
                    .first()
                    .and_then(|e| e.common.interval.as_deref())
                    == Some("7s")
            })
        })
        .await;
        let (since, how) = discover(&ctx, &agent, &mut values, &mut kept)
            .await
            .expect("discovered");
        assert_eq!(how, Discovered::Since);
        let since = since.clone();
        let mut afresh = None;
        let (whole, how) = discover(&ctx, &agent, &mut values, &mut afresh)
            .await
            .expect("discovered");
        assert_eq!(how, Discovered::Whole);
        assert_eq!(since, *whole);
        assert_eq!(reads(), 1);

        // The Secret changes: read again at its new version.
        apply(
            &client,
            json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "creds", "namespace": NS}, "stringData": {"pw": "rotated"}}),
        )
        .await;
        let version = |ctx: &Context| {
            let inputs = ctx
                .stores
                .inputs
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            inputs
                .data_object(AssetSource::Secret, NS, "creds")
                .and_then(|o| o.resource_version().map(str::to_owned))
        };
        let before = values.held[&creds].resource_version().map(str::to_owned);
        eventually("the watch sees the new version", || version(&ctx) != before).await;
        let (_, how) = discover(&ctx, &agent, &mut values, &mut kept)
            .await
            .expect("discovered");
        assert_eq!(reads(), 2);
        assert_eq!(how, Discovered::Whole);

        // No longer referenced: dropped.
        Api::<api::ServiceMonitor>::namespaced(client.clone(), NS)
            .delete("web", &DeleteParams::default())
            .await
            .expect("deleted");
        eventually("the watch sees the deletion", || {
            ctx.stores.service_monitors.state().is_empty()
        })
        .await;
        let (_, how) = discover(&ctx, &agent, &mut values, &mut kept)
            .await
            .expect("discovered");
        assert_eq!(how, Discovered::Whole);
        assert!(values.held.is_empty(), "{:?}", values.held.keys());
    }
}
