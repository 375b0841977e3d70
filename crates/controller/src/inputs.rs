//! The "snapshot" step of the pipeline: a `render::InputStore` of every input, taken from the
//! reflector stores, with the values of the Secrets and ConfigMaps the agent refers to.
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
use std::sync::Arc;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use kube::api::{Api, ListParams};
use render::Discovery;
use render::assets::AssetSource;
use render::input_ref::{InputRef, Kind};
use render::store::{Input, InputStore, InputView, KeyValues};
use serde::de::DeserializeOwned;

use crate::error::Error;
use crate::reconcile::Context;
use crate::watches::Stores;

/// What was read of one Secret or ConfigMap: resourceVersion, every key name, wanted values.
type Content = (Option<String>, BTreeSet<String>, KeyValues);

/// The referenced values one agent holds.
#[derive(Debug, Default)]
pub(crate) struct Values {
    held: HashMap<InputRef, Content>,
}

/// Rounds of discovery before giving up on a stable set of values: each round can only add
/// the references of objects the previous one could not resolve yet.
const MAX_ROUNDS: usize = 8;

/// Reads of referenced Secrets and ConfigMaps sent at once.
const READS_IN_FLIGHT: usize = 16;

/// Discovers `agent`'s hierarchy from the stores, reading the referenced values it lacks.
pub(crate) async fn discover(
    ctx: &Context,
    agent: &Arc<api::GrafanaAgent>,
    values: &mut Values,
) -> Result<Discovery, Error> {
    discover_reading(&ctx.client, &mut objects(&ctx.stores), agent, values).await
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
        // The values each agent's discovery reads stay in `inputs` for the next agents.
        discover_reading(client, &mut inputs, agent, &mut Values::default()).await?;
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

/// Discovers `agent`'s hierarchy in `inputs`, reading the referenced values it lacks into
/// `values` and `inputs`.
async fn discover_reading(
    client: &kube::Client,
    inputs: &mut InputStore,
    agent: &Arc<api::GrafanaAgent>,
    values: &mut Values,
) -> Result<Discovery, Error> {
    for _ in 0..MAX_ROUNDS {
        // Values are held only for objects that still exist: a Secret or ConfigMap the watch
        // reports deleted is missing now, as it would be on a fresh start (its reference is
        // then rejected), and its old values must not come back into the config or assets.
        values.held.retain(|object, _| {
            inputs
                .data_object(source(object.kind), &object.namespace, &object.name)
                .is_some()
        });
        for (object, (version, key_names, data)) in &values.held {
            inputs.set_content(
                source(object.kind),
                &object.namespace,
                &object.name,
                version.clone(),
                key_names.clone(),
                data.clone(),
            );
        }
        let discovery = tokio::task::block_in_place(|| render::discover(agent, &*inputs));
        if discovery.to_load.is_empty() {
            let references = &discovery.dependencies.references;
            values
                .held
                .retain(|object, _| references.contains_key(object));
            return Ok(discovery);
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
            // What was read is newer than the listed metadata: this snapshot goes on with it
            // (the watch will report the same version, or a deletion, soon after).
            match read? {
                Some(content) => {
                    inputs.apply_meta(
                        source(object.kind),
                        &object.namespace,
                        &object.name,
                        content.0.clone(),
                    );
                    values.held.insert(object, content);
                }
                None => {
                    inputs.delete(object.kind, &object.namespace, &object.name);
                    values.held.remove(&object);
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

/// Every input object, Secrets and ConfigMaps by metadata only.
fn objects(stores: &Stores) -> InputStore {
    let mut inputs = InputStore::new();
    stores.fill(&mut inputs);
    inputs
}

/// Reads one Secret or ConfigMap, keeping the values of `keys` only; `None` when it is
/// missing.
async fn read(
    client: &kube::Client,
    object: &InputRef,
    keys: &BTreeSet<String>,
) -> Result<Option<Content>, Error> {
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
        (version, key_names, data)
    }))
}
