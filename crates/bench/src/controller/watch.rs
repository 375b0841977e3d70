//! Watching one object and timing its changes: each event is stamped the moment it arrives,
//! by a task of its own, so that decoding a large config never delays the stamp of the next.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures::StreamExt;
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use render::segments::{self, Manifest};
use serde::de::DeserializeOwned;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// One observed state of the watched object (`None`: deleted), and when it arrived.
pub struct Observed<K> {
    pub at: Instant,
    /// The object's name, deleted or not.
    pub name: String,
    pub object: Option<K>,
}

/// A watch on one named object, or on the objects of several selections.
pub struct Timed<K> {
    events: mpsc::UnboundedReceiver<Observed<K>>,
    tasks: Vec<JoinHandle<()>>,
}

impl<K> Timed<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    /// Watches `namespace/name`; returns once the initial list is done, so every later
    /// change is seen.
    pub async fn start(api: Api<K>, name: &str) -> Result<Timed<K>> {
        let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
        Self::start_all(api, vec![config]).await
    }

    /// Watches the objects each of `configs` selects, as one stream of observations; returns
    /// once every initial list is done.
    pub async fn start_all(api: Api<K>, configs: Vec<watcher::Config>) -> Result<Timed<K>> {
        let (sender, events) = mpsc::unbounded_channel();
        let mut tasks = Vec::new();
        for config in configs {
            let (task, on_listed) = Self::spawn(api.clone(), config, sender.clone());
            tasks.push(task);
            tokio::time::timeout(Duration::from_secs(60), on_listed)
                .await
                .context("the watch did not list within 60 s")?
                .context("the watch stopped before listing")?;
        }
        Ok(Timed { events, tasks })
    }

    fn spawn(
        api: Api<K>,
        config: watcher::Config,
        sender: mpsc::UnboundedSender<Observed<K>>,
    ) -> (JoinHandle<()>, tokio::sync::oneshot::Receiver<()>) {
        let (listed, on_listed) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(async move {
            let mut listed = Some(listed);
            let mut stream = std::pin::pin!(watcher(api, config));
            while let Some(event) = stream.next().await {
                let at = Instant::now();
                let (name, observed) = match event {
                    Ok(watcher::Event::Apply(o) | watcher::Event::InitApply(o)) => {
                        (o.name_any(), Some(o))
                    }
                    Ok(watcher::Event::Delete(o)) => (o.name_any(), None),
                    Ok(watcher::Event::InitDone) => {
                        if let Some(listed) = listed.take() {
                            let _ = listed.send(());
                        }
                        continue;
                    }
                    Ok(watcher::Event::Init) => continue,
                    Err(error) => {
                        eprintln!("   (watch error, retrying: {error})");
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        continue;
                    }
                };
                if sender
                    .send(Observed {
                        at,
                        name,
                        object: observed,
                    })
                    .is_err()
                {
                    return;
                }
            }
        });
        (task, on_listed)
    }

    /// The next observation, or `None` at `deadline`.
    pub async fn next_before(&mut self, deadline: Instant) -> Result<Option<Observed<K>>> {
        match tokio::time::timeout_at(deadline.into(), self.events.recv()).await {
            Ok(Some(observed)) => Ok(Some(observed)),
            Ok(None) => bail!("the watch stopped"),
            Err(_) => Ok(None),
        }
    }
}

impl<K> Drop for Timed<K> {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// The config of one agent as its config loader sees it: the head Secret and the segment
/// Secrets it names (`render::segments`), assembled, with a count of the writes seen.
pub struct ConfigWatch {
    watch: Timed<Secret>,
    head: String,
    /// The last resourceVersion seen of each Secret of the config.
    versions: BTreeMap<String, String>,
    /// The text of each segment Secret seen, with its MD5 (taken once, when it arrives: a
    /// config of hundreds of segments is assembled again at every write, and digesting every
    /// segment each time took the benchmark a core's worth of time per edit beside the
    /// operator and API server it measures).
    segments: BTreeMap<String, (String, String)>,
    /// The head's own text and manifest.
    head_text: Option<(String, Option<Manifest>)>,
    /// Distinct resourceVersions observed, over the head and its segments: each one a write.
    pub writes: usize,
    /// The bytes of the Secrets' data those writes left (what an edit costs the API server).
    pub bytes_written: usize,
    /// The latest config that assembled (every segment the head names, with its digest).
    pub text: String,
    /// The bytes of data each Secret of the config holds now.
    stored: BTreeMap<String, usize>,
}

/// What waiting for several edits found.
pub struct Reflected {
    /// When the first config holding each marker arrived, in the order of the markers.
    pub at: Vec<Instant>,
}

impl ConfigWatch {
    /// Watches the config Secret `name` (the head) and its segments.
    pub async fn start(client: &Client, namespace: &str, name: &str) -> Result<ConfigWatch> {
        let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
        let head = watcher::Config::default().fields(&format!("metadata.name={name}"));
        let segments =
            watcher::Config::default().labels(&format!("{}={name}", segments::SEGMENT_OF_LABEL));
        Ok(ConfigWatch {
            watch: Timed::start_all(api, vec![head, segments]).await?,
            head: name.to_owned(),
            versions: BTreeMap::new(),
            segments: BTreeMap::new(),
            head_text: None,
            writes: 0,
            bytes_written: 0,
            text: String::new(),
            stored: BTreeMap::new(),
        })
    }

    /// The next change of the assembled config, with the arrival time of the write that
    /// completed it; `None` at `deadline`. Changes that arrived before `since` are skipped.
    async fn next_change(&mut self, since: Instant, deadline: Instant) -> Result<Option<Instant>> {
        loop {
            let Some(observed) = self.watch.next_before(deadline).await? else {
                return Ok(None);
            };
            let Some(secret) = observed.object else {
                self.versions.remove(&observed.name);
                self.segments.remove(&observed.name);
                self.stored.remove(&observed.name);
                if observed.name == self.head {
                    self.head_text = None;
                    self.text.clear();
                }
                continue;
            };
            let version = secret.resource_version().unwrap_or_default();
            if self.versions.get(&observed.name) == Some(&version) {
                // A relist replaying what was seen already.
                continue;
            }
            self.versions.insert(observed.name.clone(), version);
            self.writes += 1;
            let held = secret
                .data
                .iter()
                .flatten()
                .map(|(_, v)| v.0.len())
                .sum::<usize>();
            self.bytes_written += held;
            self.stored.insert(observed.name.clone(), held);
            let text = decode_config(&secret)?;
            if observed.name == self.head {
                let manifest = match secret
                    .data
                    .as_ref()
                    .and_then(|d| d.get(segments::MANIFEST_KEY))
                {
                    Some(bytes) => Some(segments::parse_manifest(&self.head, &bytes.0)?),
                    None => None,
                };
                self.head_text = Some((text, manifest));
            } else {
                let md5 = segments::md5_hex(text.as_bytes());
                self.segments.insert(observed.name.clone(), (text, md5));
            }
            let Some(assembled) = self.assembled() else {
                // A segment the head names is not here yet, or not in its new version.
                continue;
            };
            if assembled == self.text {
                continue;
            }
            self.text = assembled;
            if observed.at >= since {
                return Ok(Some(observed.at));
            }
        }
    }

    /// The config the head and the segments seen give, `None` while one is missing or stale
    /// (as the config loader assembles it: every segment the head names, with the MD5 it
    /// names).
    fn assembled(&self) -> Option<String> {
        let (head, manifest) = self.head_text.as_ref()?;
        let Some(manifest) = manifest else {
            return Some(head.clone());
        };
        segments::assemble_digested(head, manifest, |name| {
            let (text, md5) = self.segments.get(name)?;
            Some((text.as_str(), Cow::Borrowed(md5.as_str())))
        })
        .ok()
    }

    /// The Secrets the config is stored in now (the head and the segments it names) and the
    /// bytes of data they hold.
    pub fn stored(&self) -> (usize, usize) {
        let segments = self
            .head_text
            .as_ref()
            .and_then(|(_, manifest)| manifest.as_ref())
            .map(|m| {
                m.segments
                    .iter()
                    .map(|e| e.secret.as_str())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let names = std::iter::once(self.head.as_str()).chain(segments);
        let (mut count, mut bytes) = (0, 0);
        for name in names {
            count += 1;
            bytes += self.stored.get(name).copied().unwrap_or_default();
        }
        (count, bytes)
    }

    /// When a config written after `since` first satisfied `complete`.
    pub async fn wait_until(
        &mut self,
        since: Instant,
        timeout: Duration,
        mut complete: impl FnMut(&str) -> bool,
    ) -> Result<Instant> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.next_change(since, deadline).await? {
                Some(at) if complete(&self.text) => return Ok(at),
                Some(_) => {}
                None => bail!(
                    "the config Secret did not reach the expected state within {timeout:?} \
                     (it holds {} scrape jobs)",
                    job_names(&self.text).len()
                ),
            }
        }
    }

    /// When a config holding each of `markers` first arrived (configs written after `since`).
    pub async fn wait_markers(
        &mut self,
        since: Instant,
        markers: &[String],
        timeout: Duration,
    ) -> Result<Reflected> {
        let deadline = Instant::now() + timeout;
        let mut at: Vec<Option<Instant>> = vec![None; markers.len()];
        while at.iter().any(Option::is_none) {
            let Some(arrived) = self.next_change(since, deadline).await? else {
                let missing: Vec<&String> = markers
                    .iter()
                    .zip(&at)
                    .filter(|(_, a)| a.is_none())
                    .map(|(m, _)| m)
                    .collect();
                bail!("edits not in the config Secret within {timeout:?}: {missing:?}");
            };
            let finder =
                |marker: &String| memchr::memmem::find(self.text.as_bytes(), marker.as_bytes());
            for (marker, seen) in markers.iter().zip(at.iter_mut()) {
                if seen.is_none() && finder(marker).is_some() {
                    *seen = Some(arrived);
                }
            }
        }
        Ok(Reflected {
            at: at.into_iter().flatten().collect(),
        })
    }

    /// Takes in every change until none arrives for `quiet`, so that [`Self::writes`] counts
    /// the writes that trail an edit (at most `limit` in all).
    pub async fn settle(&mut self, quiet: Duration, limit: Duration) -> Result<()> {
        let end = Instant::now() + limit;
        loop {
            let deadline = (Instant::now() + quiet).min(end);
            if self.next_change(Instant::now(), deadline).await?.is_none() {
                return Ok(());
            }
        }
    }
}

/// The text a config Secret (a head or a segment) holds under `agent.yml` (gunzipped when
/// compressed).
pub fn decode_config(secret: &Secret) -> Result<String> {
    let name = secret.name_any();
    let bytes = secret
        .data
        .as_ref()
        .and_then(|d| d.get(render::desired::CONFIG_KEY))
        .with_context(|| format!("Secret {name} has no {}", render::desired::CONFIG_KEY))?;
    segments::decode(&bytes.0).map_err(|reason| anyhow::anyhow!("Secret {name}: {reason}"))
}

/// The scrape job names of an agent.yml: every `job_name` key, first in its scrape config
/// (ours) or anywhere in it (upstream sorts the keys of its maps).
pub fn job_names(config: &str) -> BTreeSet<&str> {
    config
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            line.strip_prefix("- ")
                .unwrap_or(line)
                .strip_prefix("job_name: ")
        })
        .map(|name| {
            let name = name.trim();
            name.strip_prefix('\'')
                .and_then(|n| n.strip_suffix('\''))
                .or_else(|| name.strip_prefix('"').and_then(|n| n.strip_suffix('"')))
                .unwrap_or(name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_names_are_read_from_scrape_configs() {
        let config = "metrics:\n  configs:\n  - name: a\n    scrape_configs:\n    - job_name: serviceMonitor/ns/a/0\n      honor_labels: false\n    - job_name: podMonitor/ns/b/1\n";
        assert_eq!(
            job_names(config),
            BTreeSet::from(["serviceMonitor/ns/a/0", "podMonitor/ns/b/1"])
        );
    }

    #[test]
    fn job_names_are_found_in_upstreams_sorted_keys() {
        let config = "metrics:\n  configs:\n  - name: a\n    scrape_configs:\n    - honor_labels: false\n      job_name: serviceMonitor/ns/a/0\n      relabel_configs:\n      - target_label: __tmp_prometheus_job_name\n    - job_name: 'probe/ns/b'\n";
        assert_eq!(
            job_names(config),
            BTreeSet::from(["serviceMonitor/ns/a/0", "probe/ns/b"])
        );
    }
}
