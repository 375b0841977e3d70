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
//! every kind listed once, Secrets and ConfigMaps metadata-only, then the same reads.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Debug;
use std::ops::Deref;
use std::sync::{Arc, PoisonError};

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use kube::api::{Api, ListParams};
use render::Discovery;
use render::assets::AssetSource;
use render::input_ref::{InputRef, Kind};
use render::store::{DataContent, Input, InputStore, InputView, KeyValues, WithContent};
use serde::de::DeserializeOwned;

use crate::error::Error;
use crate::reconcile::Context;

/// The referenced values one agent holds: what was read of each Secret and ConfigMap (every
/// key name, the wanted values) at some resourceVersion. Laid over the shared snapshot for
/// each discovery ([`WithContent`]); it counts while that version is current.
#[derive(Debug, Default)]
pub(crate) struct Values {
    held: HashMap<InputRef, Arc<DataContent>>,
}

/// Rounds of discovery before giving up on a stable set of values: each round can only add
/// the references of objects the previous one could not resolve yet.
const MAX_ROUNDS: usize = 8;

/// Reads of referenced Secrets and ConfigMaps sent at once.
const READS_IN_FLIGHT: usize = 16;

/// Discovers `agent`'s hierarchy from the watch-fed snapshot, reading the referenced values
/// it lacks.
pub(crate) async fn discover(
    ctx: &Context,
    agent: &Arc<api::GrafanaAgent>,
    values: &mut Values,
) -> Result<Discovery, Error> {
    let inputs = &ctx.stores.inputs;
    let snapshot = || inputs.read().unwrap_or_else(PoisonError::into_inner);
    let (discovery, _) = discover_reading(&ctx.client, snapshot, agent, values).await?;
    Ok(discovery)
}

/// Every input of the cluster `client` points at, listed once, with the values of the
/// Secrets and ConfigMaps each GrafanaAgent refers to (and no others): the store `render`
/// fills from files, taken read-only from a cluster. It needs list on the eight kinds,
/// Namespaces, Secrets and ConfigMaps (metadata-only) and get on the referenced Secrets and
/// ConfigMaps.
pub async fn list_inputs(client: &kube::Client) -> Result<InputStore, Error> {
    let mut inputs = InputStore::new();
    inputs.reset(list::<api::GrafanaAgent>(client).await?);
    inputs.reset(list::<api::MetricsInstance>(client).await?);
    inputs.reset(list::<api::LogsInstance>(client).await?);
    inputs.reset(list::<api::PodLogs>(client).await?);
    inputs.reset(list::<api::Integration>(client).await?);
    inputs.reset(list::<api::ServiceMonitor>(client).await?);
    inputs.reset(list::<api::PodMonitor>(client).await?);
    inputs.reset(list::<api::Probe>(client).await?);
    inputs.reset_namespaces(
        list_metadata::<Namespace>(client)
            .await?
            .into_iter()
            .map(|m| (m.name.unwrap_or_default(), m.labels.unwrap_or_default())),
    );
    let versions = |list: Vec<ObjectMeta>| {
        list.into_iter().map(|m| {
            (
                (m.namespace.unwrap_or_default(), m.name.unwrap_or_default()),
                m.resource_version,
            )
        })
    };
    inputs.reset_meta(
        AssetSource::Secret,
        versions(list_metadata::<Secret>(client).await?),
    );
    inputs.reset_meta(
        AssetSource::ConfigMap,
        versions(list_metadata::<ConfigMap>(client).await?),
    );
    let agents: Vec<Arc<api::GrafanaAgent>> = inputs.agents().cloned().collect();
    for agent in &agents {
        let mut values = Values::default();
        let (_, missing) = discover_reading(client, || &inputs, agent, &mut values).await?;
        // What each agent's discovery read stays in `inputs` for the next agents.
        for object in missing {
            inputs.delete(object.kind, &object.namespace, &object.name);
        }
        for (object, content) in values.held {
            inputs.apply_read(source(object.kind), object.namespace, object.name, content);
        }
    }
    Ok(inputs)
}

async fn list<K>(client: &kube::Client) -> Result<Vec<Arc<K>>, Error>
where
    K: Input + Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug,
{
    let list = Api::<K>::all(client.clone())
        .list(&ListParams::default())
        .await
        .map_err(Error::api(format!("listing {}s", K::KIND)))?;
    Ok(list.items.into_iter().map(Arc::new).collect())
}

async fn list_metadata<K>(client: &kube::Client) -> Result<Vec<ObjectMeta>, Error>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug,
{
    let list = Api::<K>::all(client.clone())
        .list_metadata(&ListParams::default())
        .await
        .map_err(Error::api(format!("listing {}s (metadata)", K::kind(&()))))?;
    Ok(list.items.into_iter().map(|o| o.metadata).collect())
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
) -> Result<(Discovery, Vec<InputRef>), Error>
where
    S: Deref<Target = InputStore>,
{
    // The objects read by this call: present (taken at the version read, which may be newer
    // than the watch's) or missing (whatever the watch still says).
    let mut read_now: HashMap<InputRef, bool> = HashMap::new();
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
                        .data_object(source(object.kind), &object.namespace, &object.name)
                        .is_some()
            });
            let mut view = WithContent::new(&*snapshot);
            for (object, content) in &values.held {
                let (namespace, name) = (&object.namespace, &object.name);
                match read_now.get(object) {
                    Some(_) => view.read(source(object.kind), namespace, name, content.clone()),
                    None => view.lay(source(object.kind), namespace, name, content.clone()),
                }
            }
            for (object, _) in read_now.iter().filter(|(_, present)| !**present) {
                view.missing(source(object.kind), &object.namespace, &object.name);
            }
            tokio::task::block_in_place(|| render::discover(agent, &view))
        };
        if discovery.to_load.is_empty() {
            let references = &discovery.dependencies.references;
            values
                .held
                .retain(|object, _| references.contains_key(object));
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

fn source(kind: Kind) -> AssetSource {
    match kind {
        Kind::ConfigMap => AssetSource::ConfigMap,
        _ => AssetSource::Secret,
    }
}

/// Reads one Secret or ConfigMap, keeping the values of `keys` only; `None` when it is
/// missing.
async fn read(
    client: &kube::Client,
    object: &InputRef,
    keys: &BTreeSet<String>,
) -> Result<Option<DataContent>, Error> {
    let action = || format!("reading {object}");
    let (namespace, name) = (&object.namespace, &object.name);
    let read: Option<(Option<String>, KeyValues)> = match object.kind {
        Kind::ConfigMap => Api::<ConfigMap>::namespaced(client.clone(), namespace)
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
        _ => Api::<Secret>::namespaced(client.clone(), namespace)
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
