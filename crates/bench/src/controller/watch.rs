//! Watching one object and timing its changes: each event is stamped the moment it arrives,
//! by a task of its own, so that decoding a large config never delays the stamp of the next.

use std::collections::BTreeSet;
use std::io::Read;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures::StreamExt;
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// One observed state of the watched object (`None`: deleted), and when it arrived.
pub struct Observed<K> {
    pub at: Instant,
    pub object: Option<K>,
}

/// A watch on one named object.
pub struct Timed<K> {
    events: mpsc::UnboundedReceiver<Observed<K>>,
    task: JoinHandle<()>,
}

impl<K> Timed<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    /// Watches `namespace/name`; returns once the initial list is done, so every later
    /// change is seen.
    pub async fn start(api: Api<K>, name: &str) -> Result<Timed<K>> {
        let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
        let (sender, events) = mpsc::unbounded_channel();
        let (listed, on_listed) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(async move {
            let mut listed = Some(listed);
            let mut stream = std::pin::pin!(watcher(api, config));
            while let Some(event) = stream.next().await {
                let at = Instant::now();
                let observed = match event {
                    Ok(watcher::Event::Apply(o) | watcher::Event::InitApply(o)) => Some(o),
                    Ok(watcher::Event::Delete(_)) => None,
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
                        object: observed,
                    })
                    .is_err()
                {
                    return;
                }
            }
        });
        tokio::time::timeout(Duration::from_secs(60), on_listed)
            .await
            .context("the watch did not list within 60 s")?
            .context("the watch stopped before listing")?;
        Ok(Timed { events, task })
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
        self.task.abort();
    }
}

/// The config Secret of one agent, decoded, with a count of the writes seen.
pub struct ConfigWatch {
    watch: Timed<Secret>,
    last_version: Option<String>,
    /// Distinct resourceVersions observed: each one a write.
    pub writes: usize,
    /// The latest decoded config.
    pub text: String,
}

/// What waiting for several edits found.
pub struct Reflected {
    /// When the first config holding each marker arrived, in the order of the markers.
    pub at: Vec<Instant>,
}

impl ConfigWatch {
    pub async fn start(client: &Client, namespace: &str, name: &str) -> Result<ConfigWatch> {
        let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
        Ok(ConfigWatch {
            watch: Timed::start(api, name).await?,
            last_version: None,
            writes: 0,
            text: String::new(),
        })
    }

    /// The next change of the config, decoded, with its arrival time; `None` at `deadline`.
    /// Changes that arrived before `since` are skipped.
    async fn next_change(&mut self, since: Instant, deadline: Instant) -> Result<Option<Instant>> {
        loop {
            let Some(observed) = self.watch.next_before(deadline).await? else {
                return Ok(None);
            };
            let Some(secret) = observed.object else {
                self.last_version = None;
                self.text.clear();
                continue;
            };
            if secret.resource_version().is_some() && secret.resource_version() == self.last_version
            {
                // A relist replaying what was seen already.
                continue;
            }
            self.last_version = secret.resource_version();
            self.writes += 1;
            self.text = decode_config(&secret)?;
            if observed.at >= since {
                return Ok(Some(observed.at));
            }
        }
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

/// The agent.yml of a config Secret (gunzipped when compressed).
pub fn decode_config(secret: &Secret) -> Result<String> {
    let name = secret.name_any();
    let bytes = secret
        .data
        .as_ref()
        .and_then(|d| d.get(render::desired::CONFIG_KEY))
        .with_context(|| format!("Secret {name} has no {}", render::desired::CONFIG_KEY))?;
    let bytes = &bytes.0;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .read_to_string(&mut text)
            .with_context(|| format!("gunzipping Secret {name}"))?;
        Ok(text)
    } else {
        String::from_utf8(bytes.clone()).with_context(|| format!("Secret {name} is not UTF-8"))
    }
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
