//! The agent runs its metrics instances in shared mode (its default `instance_mode`):
//! instances that differ only in their name and scrape jobs run as one instance with their jobs
//! combined, and it refuses that combined instance when two jobs share a name ("found multiple
//! scrape configs with job name"), stopping every instance of the group. A monitor selected by
//! two such instances gives both the same job name, so one monitor would stop both.
//!
//! Here, in each group (ordered by instance name, as the agent combines them), a job whose name
//! an earlier instance already has is left out (`render_cache`, which writes monitors' jobs
//! apart, leaves out of the later instances the monitors an earlier one has, the same jobs):
//! * the same job: nothing is lost, since the combined instance scrapes it once and writes to
//!   the same remote_writes either way;
//! * a different job of the same name: reported on the later instance.
//!
//! Grouping compares the instances as written; two that become equal only through the agent's
//! defaults are not grouped here (the operator writes the same settings for the same spec).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::config::metrics::InstanceConfig;
use crate::discover::MetricsInstanceNode;
use crate::rejection::{Reason, Rejection};

/// What the agent compares to group `config`: everything but its name, its jobs and the names
/// of its remote_writes (and their order).
fn group_key(config: &InstanceConfig) -> String {
    let mut value = serde_json::to_value(config).unwrap_or(Value::Null);
    if let Some(map) = value.as_object_mut() {
        map.remove("name");
        map.remove("scrape_configs");
        if let Some(Value::Array(writes)) = map.get_mut("remote_write") {
            for write in writes.iter_mut() {
                if let Some(write) = write.as_object_mut() {
                    write.remove("name");
                }
            }
            writes.sort_by_key(Value::to_string);
        }
    }
    value.to_string()
}

/// The instances of `configs` (by index) that the agent runs as one, each group in the order
/// it combines them (by name); an instance on its own is in none.
pub fn groups<'a>(configs: impl Iterator<Item = &'a InstanceConfig>) -> Vec<Vec<usize>> {
    let mut by_key: BTreeMap<String, Vec<(&str, usize)>> = BTreeMap::new();
    for (i, config) in configs.enumerate() {
        by_key
            .entry(group_key(config))
            .or_default()
            .push((config.name.as_str(), i));
    }
    by_key
        .into_values()
        .filter(|members| members.len() > 1)
        .map(|mut members| {
            members.sort();
            members.into_iter().map(|(_, i)| i).collect()
        })
        .collect()
}

/// Leaves out of `instances` (each with the node it was rendered for) the jobs that would
/// make the agent refuse a shared instance; reports the ones that differ.
pub fn drop_shared_duplicates(
    instances: &mut [(&MetricsInstanceNode, InstanceConfig)],
    rejections: &mut Vec<Rejection>,
) {
    for members in groups(instances.iter().map(|(_, config)| config)) {
        // Job name -> (the job, the instance that has it).
        let mut kept: BTreeMap<String, (Value, String)> = BTreeMap::new();
        for i in members {
            let (node, config) = &mut instances[i];
            let name = config.name.clone();
            config.scrape_configs.retain(|job| {
                let job_name = job.job_name().to_owned();
                let written = serde_json::to_value(job).unwrap_or(Value::Null);
                match kept.get(&job_name) {
                    None => {
                        kept.insert(job_name, (written, name.clone()));
                        true
                    }
                    Some((first, _)) if *first == written => false,
                    Some((_, owner)) => {
                        rejections.push(Rejection::new(
                            node.instance_ref(),
                            Reason::DuplicateName,
                            None,
                            format!(
                                "its scrape job {job_name:?} differs from the job of that name in MetricsInstance {owner}, which the agent runs together with this one (the same remote_write and settings, shared mode) and would refuse both over it: this instance's job is left out"
                            ),
                        ));
                        false
                    }
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use api::MetricsInstance;
    use serde_json::json;

    use super::*;
    use crate::config::metrics::ScrapeConfigEntry;
    use crate::config::metrics::remote_write::RemoteWriteConfig;

    fn node(name: &str) -> MetricsInstanceNode {
        let mut instance = MetricsInstance::new(name, Default::default());
        instance.metadata.namespace = Some("ns".into());
        MetricsInstanceNode {
            instance: Arc::new(instance),
            service_monitors: Vec::new(),
            pod_monitors: Vec::new(),
            probes: Vec::new(),
            scrape_configs: Vec::new(),
        }
    }

    fn config(name: &str, url: &str, jobs: &[Value]) -> InstanceConfig {
        InstanceConfig {
            name: format!("ns/{name}"),
            remote_write: vec![RemoteWriteConfig {
                url: url.into(),
                ..Default::default()
            }],
            scrape_configs: jobs
                .iter()
                .cloned()
                .map(ScrapeConfigEntry::Verbatim)
                .collect(),
            ..Default::default()
        }
    }

    fn jobs(config: &InstanceConfig) -> Vec<&str> {
        config.scrape_configs.iter().map(|j| j.job_name()).collect()
    }

    #[test]
    fn a_job_name_twice_in_one_shared_instance_is_kept_once() {
        let (a, b, c, d) = (node("a"), node("b"), node("c"), node("d"));
        let job = json!({"job_name": "sm", "static_configs": [{"targets": ["x:1"]}]});
        let other = json!({"job_name": "sm", "static_configs": [{"targets": ["y:1"]}]});
        let mut instances = vec![
            // In the agent's order by name whatever the input order: a keeps its job.
            (&b, config("b", "http://m", std::slice::from_ref(&job))),
            (
                &a,
                config("a", "http://m", &[job.clone(), json!({"job_name": "own"})]),
            ),
            // Another remote_write: another instance, which keeps its job.
            (&c, config("c", "http://other", std::slice::from_ref(&job))),
            // The same name for another job: left out and reported.
            (&d, config("d", "http://m", &[other])),
        ];
        let mut rejections = Vec::new();
        drop_shared_duplicates(&mut instances, &mut rejections);
        let kept: Vec<Vec<&str>> = instances.iter().map(|(_, c)| jobs(c)).collect();
        assert_eq!(kept, [vec![], vec!["sm", "own"], vec!["sm"], vec![]]);
        assert_eq!(rejections.len(), 1, "{rejections:?}");
        assert_eq!(rejections[0].object, d.instance_ref());
        assert!(
            rejections[0].message.contains(
                r#"its scrape job "sm" differs from the job of that name in MetricsInstance ns/a"#
            ),
            "{}",
            rejections[0].message
        );
    }
}
