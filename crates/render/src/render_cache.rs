//! Re-rendering the metrics agent.yml after a small change without redoing the rest.
//!
//! Each monitor's scrape jobs are a pure function of the monitor and its [`ScrapeContext`]
//! (see [`crate::config::metrics`]). [`MetricsConfigCache`] keeps, per monitor, its jobs
//! already written as YAML, and gives the config text as a freshly rendered frame (server,
//! global, remote_write, instance settings) with those parts in place, shared, not copied (a
//! [`ConfigText`]: stored in segments from its pieces, laid out only if read). After one edited
//! ServiceMonitor, only that monitor is rendered again; the others cost a map lookup.
//!
//! A cached part is reused when all of these are unchanged:
//! * the monitor (kind, namespace, name) and its `metadata.resourceVersion` (the API server
//!   changes it on every write; objects without one, as in files, are compared by a hash of
//!   their content instead);
//! * the context: every [`ScrapeContext`] field (agent settings, shards, API server access);
//! * the resolved Secret/ConfigMap values of the monitor's namespace (monitors read their
//!   references in their own namespace only), so editing a Secret re-renders the monitors
//!   of that namespace alone.
//!
//! The text is byte-for-byte what [`Strings::to_yaml`] gives for [`metrics::render`], and the
//! rejections are the same (as a set: [`crate::plan`] sorts them). Instances with
//! `additionalScrapeConfigs` are checked against the generated job names, so an agent that
//! has any is rendered in full, without the cache.
//!
//! One cache serves one GrafanaAgent: keep one per agent.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::assets::Assets;
use crate::config::metrics::{
    self, InstanceConfig, ScrapeConfigEntry, ScrapeContext, SectionOptions,
};
use crate::config::{AgentConfig, ServerConfig};
use crate::config_text::{ConfigText, RenderedPart};
use crate::discover::Hierarchy;
use crate::discover::MetricsInstanceNode;
use crate::expansion::{ConfigOf, Strings};
use crate::input_ref::{InputRef, Kind};
use crate::rejection::Rejection;
use crate::segments::SegmentCache;
use crate::yaml::{self, YamlError};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::Resource;

/// A rendered metrics agent.yml and what rendering it left out.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedText {
    /// From the cache, the frame and the cached parts, not laid out (see [`ConfigText`]).
    pub text: ConfigText,
    pub rejections: Vec<Rejection>,
    /// The monitors whose jobs take the most of the text, largest first (at most
    /// [`LARGEST_SHOWN`]), with their bytes: named when a segment is too large to store.
    pub largest: Vec<(InputRef, usize)>,
}

/// How many of the largest monitors [`RenderedText::largest`] names.
pub const LARGEST_SHOWN: usize = 3;

/// What one [`MetricsConfigCache::render`] reused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Monitors whose jobs came from the cache.
    pub hits: usize,
    /// Monitors rendered (new, changed, or their context or Secrets changed).
    pub misses: usize,
    /// Cached monitors dropped because they are no longer selected.
    pub evicted: usize,
    /// The agent was rendered without the cache (see the module documentation).
    pub bypassed: bool,
}

/// One monitor's part: its jobs as YAML sequence items, or why it was left out.
#[derive(Debug, Clone)]
struct Part {
    /// The monitor it is of (the cache is keyed by a hash of it).
    object: InputRef,
    version: Version,
    /// Hash of the context and of the monitor namespace's resolved values.
    context: u64,
    output: RenderedPart,
    /// The render that last used it, to evict parts of monitors no longer selected.
    seen: u64,
}

/// What identifies one version of a monitor.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Version {
    ResourceVersion(String),
    ContentHash(u64),
}

/// Per-monitor rendered jobs of one GrafanaAgent's metrics config.
#[derive(Debug, Default)]
pub struct MetricsConfigCache {
    /// By [`Monitor::key`]: looked up for every monitor at every render, without making the
    /// monitor's [`InputRef`] (two string copies each, a tenth of an edit's plan at 10k).
    parts: HashMap<u64, Part, foldhash::fast::RandomState>,
    renders: u64,
    /// The indentation of scrape_configs items in the frame; parts are written for it.
    item_indent: Option<usize>,
    /// The stored segments of the last config text, for [`crate::plan`].
    segments: SegmentCache,
}

/// Marks where an instance's jobs go in the frame; control characters never occur in
/// rendered output unescaped, so the marker cannot collide with real content.
const SLOT_MARKER: &str = "\u{1}scrape-configs-slot-";
/// [`SLOT_MARKER`] as the emitter writes it, inside double quotes.
const SLOT_MARKER_ESCAPED: &str = "\\u0001scrape-configs-slot-";

/// The metrics agent.yml of `h` rendered monitor by monitor, without keeping anything. The
/// same text as [`Strings::to_yaml`] of [`metrics::render`], without ever holding the whole
/// typed document, which for 10k ServiceMonitors is larger than its 50 MB of text.
pub fn render_metrics_text(h: &Hierarchy) -> Result<Option<RenderedText>, YamlError> {
    if h.metrics.is_empty() {
        return Ok(None);
    }
    if uses_additional_scrape_configs(h) {
        let Some(rendered) = metrics::render(h) else {
            return Ok(None);
        };
        let text = Strings::of(&h.agent).to_yaml(ConfigOf::Sharded, &rendered.config)?;
        return Ok(Some(RenderedText {
            text: text.into(),
            rejections: rendered.rejections,
            largest: Vec::new(),
        }));
    }
    one_off(h).map(Some)
}

/// The node each of `configs` was rendered for.
fn nodes_of<'h>(
    h: &'h Hierarchy,
    configs: &[InstanceConfig],
) -> Vec<Option<&'h MetricsInstanceNode>> {
    configs
        .iter()
        .map(|config| {
            h.metrics
                .iter()
                .find(|n| crate::alloy::instance_name(h, &n.instance_ref()) == config.name)
        })
        .collect()
}

/// For each of `configs` (whose nodes are `nodes`), the monitors that an earlier instance the
/// agent runs together with it already has ([`metrics::shared`]): their jobs are the same, and
/// written once.
fn taken_earlier(
    configs: &[InstanceConfig],
    nodes: &[Option<&MetricsInstanceNode>],
) -> Vec<BTreeSet<InputRef>> {
    let mut taken = vec![BTreeSet::new(); configs.len()];
    for group in metrics::shared::groups(configs.iter()) {
        let mut seen = BTreeSet::new();
        for i in group {
            for monitor in nodes[i].into_iter().flat_map(|node| node.monitors()) {
                let object = monitor.object();
                if !seen.insert(object.clone()) {
                    taken[i].insert(object);
                }
            }
        }
    }
    taken
}

/// Monitors rendered at once (on every core), their parts copied into the text and freed
/// before the next batch: about 4 MB of text.
pub const BATCH_MONITORS: usize = 1024;

/// Whether an instance of `h` has `additionalScrapeConfigs`: those are checked against the
/// generated job names, so the agent is rendered in full, without the cache.
fn uses_additional_scrape_configs(h: &Hierarchy) -> bool {
    h.metrics
        .iter()
        .any(|node| node.instance.spec.additional_scrape_configs.is_some())
}

/// The metrics agent.yml of `h` (which has MetricsInstances, none with
/// `additionalScrapeConfigs`), written monitor by monitor into one text (each part freed once
/// copied). The text is that of [`metrics::render`].
fn one_off(h: &Hierarchy) -> Result<RenderedText, YamlError> {
    let mut rejections = Vec::new();
    let options = SectionOptions {
        include_monitors: false,
        ..SectionOptions::METRICS
    };
    let mut section = metrics::section(h, options, &mut rejections);
    let ctx = ScrapeContext::new(&h.agent, &h.assets, &mut rejections);
    let indent = frame_item_indent(h)?;
    // Every instance with monitors gets a slot; one whose monitors give no job loses its
    // `scrape_configs` key again below.
    let mut slots: Vec<Vec<Monitor<'_>>> = Vec::new();
    // Each slot's context: the agent's with its instance's scrape classes.
    let mut slot_contexts: Vec<ScrapeContext<'_>> = Vec::new();
    let nodes = nodes_of(h, &section.configs);
    let taken = taken_earlier(&section.configs, &nodes);
    for ((config, node), taken) in section.configs.iter_mut().zip(nodes).zip(&taken) {
        let Some(node) = node else {
            continue;
        };
        let monitors: Vec<Monitor<'_>> = node
            .monitors()
            .filter(|m| !taken.contains(&m.object()))
            .collect();
        if monitors.is_empty() {
            continue;
        }
        config.scrape_configs = vec![ScrapeConfigEntry::Verbatim(Value::String(format!(
            "{SLOT_MARKER}{}",
            slots.len()
        )))];
        slots.push(monitors);
        slot_contexts.push(ctx.for_instance(&node.instance));
    }
    let frame = frame_text(h, section)?;

    let mut text = String::new();
    let mut part_rejections = Vec::new();
    let mut largest = Largest::default();
    let mut previous_line = 0..0;
    // Each task's text, kept from batch to batch: the monitors' jobs are written into it,
    // not into a string per monitor, and after the first batch nothing is allocated again.
    let mut runs: Vec<PartsText> = Vec::new();
    let total_monitors: usize = slots.iter().map(Vec::len).sum();
    let mut written = 0;
    for line in frame.split_inclusive('\n') {
        let Some(slot) = slot_of(line) else {
            previous_line = text.len()..text.len() + line.len();
            text.push_str(line);
            continue;
        };
        // `scrape_configs:`, written before the marker; taken back if no monitor gives a job.
        let key = text
            .get(previous_line.clone())
            .filter(|l| l.trim() == "scrape_configs:")
            .map(|_| previous_line.start);
        let mut has_jobs = false;
        let Some(ctx) = slot_contexts.get(slot) else {
            continue;
        };
        for batch in slots
            .get(slot)
            .map_or(&[][..], Vec::as_slice)
            .chunks(BATCH_MONITORS)
        {
            let tasks = batch.len().div_ceil(PARALLEL_THRESHOLD);
            if runs.len() < tasks {
                runs.resize_with(tasks, PartsText::default);
            }
            batch
                .par_chunks(PARALLEL_THRESHOLD)
                .zip(runs.par_iter_mut())
                .for_each(|(monitors, run)| run.write(monitors, ctx, indent));
            for (monitors, run) in batch.chunks(PARALLEL_THRESHOLD).zip(&mut runs) {
                if let Some(error) = run.error.take() {
                    return Err(error);
                }
                for (monitor, len) in monitors.iter().zip(&run.lens) {
                    largest.offer(*len, || monitor.object());
                }
                has_jobs |= !run.text.is_empty();
                text.push_str(&run.text);
                part_rejections.append(&mut run.rejections);
                run.text.clear();
                run.lens.clear();
            }
            written += batch.len();
            if written == batch.len() {
                // The rest of the text, at the first batch's bytes per monitor.
                text.reserve(text.len() / written * (total_monitors - written));
            }
        }
        if !has_jobs && let Some(start) = key {
            text.truncate(start);
        }
        previous_line = 0..0;
    }
    rejections.extend(part_rejections);
    Ok(RenderedText {
        text: text.into(),
        rejections,
        largest: largest.0,
    })
}

/// The jobs of consecutive monitors, written by one task into one text: each monitor's
/// bytes in `lens` (0 for a rejected one), the rejections, or the error that stopped it.
#[derive(Default)]
struct PartsText {
    text: String,
    lens: Vec<usize>,
    rejections: Vec<Rejection>,
    error: Option<YamlError>,
}

impl PartsText {
    fn write(&mut self, monitors: &[Monitor<'_>], ctx: &ScrapeContext<'_>, indent: usize) {
        for monitor in monitors {
            let start = self.text.len();
            match monitor.write_part(&mut self.text, ctx, indent) {
                Ok(Ok(())) => {}
                Ok(Err(rejection)) => self.rejections.push(rejection),
                Err(error) => {
                    self.error = Some(error);
                    return;
                }
            }
            self.lens.push(self.text.len() - start);
        }
    }
}

/// The monitors whose jobs each of `configs` (the instances of `h`, as
/// [`metrics::section`] lists them) writes, with that instance's context: for other writers
/// of the same jobs (the native Alloy config). A monitor an earlier instance the agent runs
/// together with it already has is left out, as in agent.yml.
pub fn monitors_by_instance<'h>(
    h: &'h Hierarchy,
    configs: &[InstanceConfig],
    ctx: &ScrapeContext<'h>,
) -> Vec<(ScrapeContext<'h>, Vec<Monitor<'h>>)> {
    let nodes = nodes_of(h, configs);
    let taken = taken_earlier(configs, &nodes);
    nodes
        .into_iter()
        .zip(&taken)
        .map(|(node, taken)| match node {
            Some(node) => (
                ctx.for_instance(&node.instance),
                node.monitors()
                    .filter(|m| taken.is_empty() || !taken.contains(&m.object()))
                    .collect(),
            ),
            None => (ctx.clone(), Vec::new()),
        })
        .collect()
}

impl MetricsConfigCache {
    pub fn new() -> Self {
        MetricsConfigCache::default()
    }

    /// The stored segments of the previous config ([`crate::segments::store`]): an edit
    /// compresses and digests only the segments whose text changed.
    pub fn segment_cache(&mut self) -> &mut SegmentCache {
        &mut self.segments
    }

    /// How many monitors have a cached part.
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The metrics agent.yml of `h` (`None` when the agent has no MetricsInstance), reusing
    /// every part whose inputs did not change.
    pub fn render(
        &mut self,
        h: &Hierarchy,
    ) -> Result<Option<(RenderedText, CacheStats)>, YamlError> {
        if h.metrics.is_empty() {
            return Ok(None);
        }
        if uses_additional_scrape_configs(h) {
            let Some(rendered) = metrics::render(h) else {
                return Ok(None);
            };
            let text = Strings::of(&h.agent).to_yaml(ConfigOf::Sharded, &rendered.config)?;
            let stats = CacheStats {
                bypassed: true,
                ..CacheStats::default()
            };
            let rejections = rendered.rejections;
            let text = ConfigText::from(text);
            let largest = Vec::new();
            return Ok(Some((
                RenderedText {
                    text,
                    rejections,
                    largest,
                },
                stats,
            )));
        }

        self.renders += 1;
        let mut rejections = Vec::new();
        let options = SectionOptions {
            include_monitors: false,
            ..SectionOptions::METRICS
        };
        let mut section = metrics::section(h, options, &mut rejections);
        let ctx = ScrapeContext::new(&h.agent, &h.assets, &mut rejections);
        let namespace_hashes = namespace_hashes(&h.assets);
        // Per instance: the agent's context with the instance's scrape classes.
        let mut contexts: Vec<ScrapeContext<'_>> = Vec::new();

        // The frame tells the indentation parts are written at; it is fixed by the shape of
        // agent.yml, so it is found once.
        let indent = match self.item_indent {
            Some(i) => i,
            None => {
                let i = frame_item_indent(h)?;
                self.item_indent = Some(i);
                i
            }
        };

        // Look every monitor up; those not in the cache (or changed) are rendered afterwards,
        // on every core: each is a pure function of the monitor and the context.
        let mut stats = CacheStats::default();
        let mut slots: Vec<Vec<Slot>> = Vec::new();
        // The monitor of each slot's parts, in the same order.
        let mut owners: Vec<Monitor<'_>> = Vec::new();
        let mut misses: Vec<Miss<'_>> = Vec::new();
        let mut instance_slots = Vec::new();
        let nodes = nodes_of(h, &section.configs);
        let taken = taken_earlier(&section.configs, &nodes);
        for (node, taken) in nodes.into_iter().zip(&taken) {
            let Some(node) = node else {
                instance_slots.push(None);
                continue;
            };
            let node_ctx = ctx.for_instance(&node.instance);
            let context_hash = context_hash(&node_ctx);
            let context_index = contexts.len();
            contexts.push(node_ctx);
            let monitors = node
                .monitors()
                .filter(|m| taken.is_empty() || !taken.contains(&m.object()));
            let mut parts = Vec::new();
            // Monitors come by namespace: each namespace's context is worked out once.
            let mut namespace_context: Option<(&str, u64)> = None;
            for monitor in monitors {
                let context = match namespace_context {
                    Some((namespace, context)) if namespace == monitor.namespace() => context,
                    _ => {
                        let mut hasher = DefaultHasher::new();
                        context_hash.hash(&mut hasher);
                        namespace_hashes.get(monitor.namespace()).hash(&mut hasher);
                        let context = hasher.finish();
                        namespace_context = Some((monitor.namespace(), context));
                        context
                    }
                };
                let renders = self.renders;
                let key = monitor.key();
                owners.push(monitor);
                match self.parts.get_mut(&key) {
                    Some(part)
                        if part.context == context
                            && monitor.is(&part.object)
                            && monitor.is_version(&part.version)? =>
                    {
                        part.seen = renders;
                        stats.hits += 1;
                        parts.push(Slot::Ready(part.output.clone()));
                    }
                    _ => {
                        let (object, version) = monitor.identity()?;
                        stats.misses += 1;
                        parts.push(Slot::Miss(misses.len()));
                        misses.push(Miss {
                            monitor,
                            key,
                            object,
                            version,
                            context,
                            context_index,
                        });
                    }
                }
            }
            instance_slots.push(Some(slots.len()));
            slots.push(parts);
        }

        let rendered: Vec<_> = misses
            .par_iter()
            .with_min_len(PARALLEL_THRESHOLD)
            .map(|miss| miss.monitor.part(&contexts[miss.context_index], indent))
            .collect();
        let mut outputs = Vec::with_capacity(rendered.len());
        for (miss, output) in misses.into_iter().zip(rendered) {
            let output = Arc::new(output?);
            self.parts.insert(
                miss.key,
                Part {
                    object: miss.object,
                    version: miss.version,
                    context: miss.context,
                    output: output.clone(),
                    seen: self.renders,
                },
            );
            outputs.push(Some(output));
        }
        let slots: Vec<Vec<RenderedPart>> = slots
            .into_iter()
            .map(|parts| {
                parts
                    .into_iter()
                    .filter_map(|slot| match slot {
                        Slot::Ready(output) => Some(output),
                        Slot::Miss(i) => outputs.get_mut(i).and_then(Option::take),
                    })
                    .collect()
            })
            .collect();
        for (config, slot) in section.configs.iter_mut().zip(instance_slots) {
            let Some(slot) = slot else { continue };
            let has_jobs = slots[slot]
                .iter()
                .any(|p| p.as_ref().as_ref().is_ok_and(|t| !t.is_empty()));
            if has_jobs {
                config.scrape_configs = vec![ScrapeConfigEntry::Verbatim(Value::String(format!(
                    "{SLOT_MARKER}{slot}"
                )))];
            }
        }

        let renders = self.renders;
        let before = self.parts.len();
        self.parts.retain(|_, part| part.seen == renders);
        stats.evicted = before - self.parts.len();

        let frame = frame_text(h, section)?;
        for part in slots.iter().flatten() {
            if let Err(r) = part.as_ref() {
                rejections.push(r.clone());
            }
        }
        let largest = largest_parts(owners, slots.iter().flatten());
        // The parts stay where the cache holds them: the text is gzipped from the pieces (a
        // controller never reads it), and laid out only if someone reads it.
        let text = ConfigText::from_frame(frame, |line| {
            slot_of(line).map(|slot| slots.get(slot).map_or(&[][..], Vec::as_slice))
        });
        Ok(Some((
            RenderedText {
                text,
                rejections,
                largest,
            },
            stats,
        )))
    }
}

/// The [`LARGEST_SHOWN`] largest of `parts`, each with its owner (`owners` in the same
/// order), largest first.
fn largest_parts<'a>(
    owners: Vec<Monitor<'_>>,
    parts: impl Iterator<Item = &'a RenderedPart>,
) -> Vec<(InputRef, usize)> {
    let mut largest = Largest::default();
    for (owner, part) in owners.into_iter().zip(parts) {
        let len = part.as_ref().as_ref().map_or(0, String::len);
        largest.offer(len, || owner.object());
    }
    largest.0
}

/// The [`LARGEST_SHOWN`] largest monitors seen, largest first (ties by monitor), with the
/// agent.yml bytes of their jobs: kept while parts go by, so only those are held.
#[derive(Debug, Default)]
struct Largest(Vec<(InputRef, usize)>);

impl Largest {
    /// Keeps the monitor `owner` gives if its `len` bytes are among the largest.
    fn offer(&mut self, len: usize, owner: impl FnOnce() -> InputRef) {
        if len == 0 || (self.0.len() == LARGEST_SHOWN && self.0.last().is_some_and(|l| l.1 >= len))
        {
            return;
        }
        let owner = owner();
        let at = self
            .0
            .iter()
            .position(|(o, l)| *l < len || (*l == len && owner < *o))
            .unwrap_or(self.0.len());
        self.0.insert(at, (owner, len));
        self.0.truncate(LARGEST_SHOWN);
    }
}

/// One monitor of any kind, to render its part.
#[derive(Clone, Copy)]
pub enum Monitor<'h> {
    Service(&'h api::ServiceMonitor),
    Pod(&'h api::PodMonitor),
    Probe(&'h api::Probe),
    ScrapeConfig(&'h api::ScrapeConfig),
}

impl<'h> Monitor<'h> {
    fn meta(&self) -> &'h ObjectMeta {
        match self {
            Monitor::Service(m) => (*m).meta(),
            Monitor::Pod(m) => (*m).meta(),
            Monitor::Probe(m) => (*m).meta(),
            Monitor::ScrapeConfig(m) => (*m).meta(),
        }
    }

    fn namespace(&self) -> &'h str {
        self.meta().namespace.as_deref().unwrap_or_default()
    }

    fn name(&self) -> &'h str {
        self.meta().name.as_deref().unwrap_or_default()
    }
}

impl Monitor<'_> {
    /// Which monitor it is.
    pub fn object(&self) -> InputRef {
        InputRef::new(self.kind(), self.namespace(), self.name())
    }

    fn kind(&self) -> Kind {
        match self {
            Monitor::Service(_) => Kind::ServiceMonitor,
            Monitor::Pod(_) => Kind::PodMonitor,
            Monitor::Probe(_) => Kind::Probe,
            Monitor::ScrapeConfig(_) => Kind::ScrapeConfig,
        }
    }

    /// A hash of which monitor it is: the cache's key (the same within a process).
    fn key(&self) -> u64 {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::default().hash_one((self.kind(), self.namespace(), self.name()))
    }

    /// Whether it is `object` (two monitors may share a key).
    fn is(&self, object: &InputRef) -> bool {
        self.kind() == object.kind
            && self.name() == object.name
            && self.namespace() == object.namespace
    }

    /// Whether it is at `version`; without a resourceVersion (from files) its content is
    /// hashed, as [`Monitor::identity`] does.
    fn is_version(&self, version: &Version) -> Result<bool, YamlError> {
        match (self.meta().resource_version.as_deref(), version) {
            (Some(rv), Version::ResourceVersion(v)) if !rv.is_empty() => Ok(rv == v),
            (Some(rv), Version::ContentHash(_)) if !rv.is_empty() => Ok(false),
            _ => Ok(self.identity()?.1 == *version),
        }
    }

    fn identity(&self) -> Result<(InputRef, Version), YamlError> {
        Ok(match self {
            Monitor::Service(m) => (InputRef::of(Kind::ServiceMonitor, *m), version_of(*m)?),
            Monitor::Pod(m) => (InputRef::of(Kind::PodMonitor, *m), version_of(*m)?),
            Monitor::Probe(m) => (InputRef::of(Kind::Probe, *m), version_of(*m)?),
            Monitor::ScrapeConfig(m) => (InputRef::of(Kind::ScrapeConfig, *m), version_of(*m)?),
        })
    }

    /// Its scrape jobs in its instance's context, or why it is left out.
    pub fn jobs(&self, ctx: &ScrapeContext<'_>) -> Result<Vec<metrics::ScrapeConfig>, Rejection> {
        match self {
            Monitor::Service(m) => metrics::service_monitor_jobs(ctx, m),
            Monitor::Pod(m) => metrics::pod_monitor_jobs(ctx, m),
            Monitor::Probe(m) => metrics::probe_job(ctx, m).map(|j| vec![j]),
            Monitor::ScrapeConfig(m) => metrics::scrape_config_job(ctx, m).map(|j| vec![j]),
        }
    }

    /// Its jobs as YAML sequence items at `indent`, or why it is left out.
    fn part(
        &self,
        ctx: &ScrapeContext<'_>,
        indent: usize,
    ) -> Result<Result<String, Rejection>, YamlError> {
        let mut text = String::new();
        if let Err(r) = self.write_part(&mut text, ctx, indent)? {
            return Ok(Err(r));
        }
        // The cache keeps it as long as the monitor is unchanged: without the slack of the
        // writes that grew it (about 30% at 10k ServiceMonitors).
        text.shrink_to_fit();
        Ok(Ok(text))
    }

    /// Appends its jobs as YAML sequence items at `indent` to `out`, or gives why it is left
    /// out (and appends nothing).
    fn write_part(
        &self,
        out: &mut String,
        ctx: &ScrapeContext<'_>,
        indent: usize,
    ) -> Result<Result<(), Rejection>, YamlError> {
        let list = match self.jobs(ctx) {
            Ok(list) => list,
            Err(r) => return Ok(Err(r)),
        };
        for job in &list {
            ctx.strings
                .write_sequence_item(ConfigOf::Sharded, out, job, indent)?;
        }
        Ok(Ok(()))
    }
}

/// The monitors of one instance, in config order: ServiceMonitors, PodMonitors, Probes,
/// ScrapeConfigs.
trait Monitors {
    fn monitors(&self) -> impl Iterator<Item = Monitor<'_>>;
}

impl Monitors for crate::discover::MetricsInstanceNode {
    fn monitors(&self) -> impl Iterator<Item = Monitor<'_>> {
        self.service_monitors
            .iter()
            .map(|m| Monitor::Service(m.as_ref()))
            .chain(self.pod_monitors.iter().map(|m| Monitor::Pod(m.as_ref())))
            .chain(self.probes.iter().map(|m| Monitor::Probe(m.as_ref())))
            .chain(
                self.scrape_configs
                    .iter()
                    .map(|m| Monitor::ScrapeConfig(m.as_ref())),
            )
    }
}

/// A monitor to render: what it is and what its part will be cached under.
struct Miss<'h> {
    monitor: Monitor<'h>,
    key: u64,
    object: InputRef,
    version: Version,
    context: u64,
    /// Its instance's context, in the render's list of them.
    context_index: usize,
}

/// A monitor's place in its instance's list of parts.
enum Slot {
    Ready(RenderedPart),
    /// Index into the monitors rendered in this call.
    Miss(usize),
}

/// Fewer items than this go to one rayon task: splitting further costs more than it gains.
pub const PARALLEL_THRESHOLD: usize = 64;

fn version_of<M: Resource + Serialize>(monitor: &M) -> Result<Version, YamlError> {
    match monitor.meta().resource_version.as_deref() {
        Some(rv) if !rv.is_empty() => Ok(Version::ResourceVersion(rv.to_owned())),
        _ => {
            let mut hasher = DefaultHasher::new();
            serde_json::to_vec(monitor)
                .map_err(YamlError::from)?
                .hash(&mut hasher);
            Ok(Version::ContentHash(hasher.finish()))
        }
    }
}

/// Every field of the context except the asset store (hashed per namespace instead). The
/// Debug form covers fields added later too, so a new setting cannot be forgotten here.
fn context_hash(ctx: &ScrapeContext<'_>) -> u64 {
    let no_assets = Assets::default();
    let without_assets = ScrapeContext {
        assets: &no_assets,
        ..ctx.clone()
    };
    let mut hasher = DefaultHasher::new();
    format!("{without_assets:?}").hash(&mut hasher);
    hasher.finish()
}

/// A hash of everything monitors of each namespace can read from the asset store: each
/// referenced key, its value or the error it resolved to, and its file path.
fn namespace_hashes(assets: &Assets) -> HashMap<&str, u64> {
    let mut per_namespace: BTreeMap<&str, DefaultHasher> = BTreeMap::new();
    for key in assets.keys() {
        let hasher = per_namespace.entry(key.namespace.as_str()).or_default();
        key.hash(hasher);
        assets.hash_resolution(key, hasher);
    }
    per_namespace
        .into_iter()
        .map(|(ns, h)| (ns, h.finish()))
        .collect()
}

/// The agent.yml of `h` with `section` as its metrics, written as the agent's configs are: the
/// frame the monitors' parts go into.
fn frame_text(h: &Hierarchy, section: metrics::MetricsSection) -> Result<String, YamlError> {
    Strings::of(&h.agent).to_yaml(
        ConfigOf::Sharded,
        &AgentConfig {
            server: ServerConfig::of(&h.agent),
            metrics: Some(section),
            ..Default::default()
        },
    )
}

/// The slot number when `line` is a slot marker line.
fn slot_of(line: &str) -> Option<usize> {
    let rest = line.trim_start().strip_prefix("- \"")?;
    let rest = rest.strip_prefix(SLOT_MARKER_ESCAPED)?;
    rest.strip_suffix("\"\n")?.parse().ok()
}

/// The indentation at which the emitter writes scrape_configs items in an agent.yml.
fn frame_item_indent(h: &Hierarchy) -> Result<usize, YamlError> {
    let probe = AgentConfig {
        server: ServerConfig::of(&h.agent),
        metrics: Some(metrics::MetricsSection {
            configs: vec![InstanceConfig {
                name: "x".to_owned(),
                scrape_configs: vec![ScrapeConfigEntry::Verbatim(Value::String(format!(
                    "{SLOT_MARKER}0"
                )))],
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    let text = yaml::to_string(&probe)?;
    Ok(text
        .lines()
        .find(|l| slot_of(&format!("{l}\n")).is_some())
        .map_or(0, |l| l.len() - l.trim_start().len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Loader;
    use crate::store::InputStore;

    const BASE: &str = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: monitoring}
spec:
  metrics:
    instanceSelector: {matchLabels: {agent: agent}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: monitoring, labels: {agent: agent}}
spec:
  remoteWrite:
  - url: https://mimir.example.com/api/v1/push
  serviceMonitorNamespaceSelector: {}
  serviceMonitorSelector: {}
  podMonitorNamespaceSelector: {}
  podMonitorSelector: {}
  probeNamespaceSelector: {}
  probeSelector: {}
---
apiVersion: v1
kind: Secret
metadata: {name: auth, namespace: a}
stringData: {user: alice, password: one}
---
apiVersion: v1
kind: Secret
metadata: {name: auth, namespace: b}
stringData: {user: bob, password: two}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: pods, namespace: b, resourceVersion: "1"}
spec:
  selector: {matchLabels: {app: pods}}
  podMetricsEndpoints:
  - port: metrics
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: site, namespace: a, resourceVersion: "1"}
spec:
  module: http_2xx
  prober: {url: blackbox:9115}
  targets:
    staticConfig:
      static: [https://example.com]
"#;

    fn service_monitor(ns: &str, name: &str, rv: Option<&str>, interval: &str) -> String {
        let rv = rv
            .map(|v| format!(", resourceVersion: \"{v}\""))
            .unwrap_or_default();
        format!(
            r#"
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {{name: {name}, namespace: {ns}{rv}}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  endpoints:
  - port: web
    interval: {interval}
  - port: admin
    basicAuth:
      username: {{name: auth, key: user}}
      password: {{name: auth, key: password}}
"#
        )
    }

    /// A ServiceMonitor with a relabeling regex Prometheus refuses: rejected.
    const BROKEN: &str = r#"
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: broken, namespace: a, resourceVersion: "1"}
spec:
  selector: {}
  endpoints:
  - port: web
    relabelings:
    - action: keep
      regex: "(unclosed"
"#;

    fn monitors() -> String {
        let mut text = String::from(BASE);
        for (ns, name) in [("a", "one"), ("a", "two"), ("b", "three"), ("b", "four")] {
            text.push_str(&service_monitor(ns, name, Some("1"), "30s"));
        }
        text.push_str(BROKEN);
        text
    }

    fn store(text: &str) -> InputStore {
        let mut loader = Loader::new();
        loader.add_source("test.yaml", text);
        let loaded = loader.finish();
        let errors: Vec<String> = loaded.diagnostics.iter().map(ToString::to_string).collect();
        assert!(errors.is_empty(), "{errors:#?}");
        loaded.store
    }

    fn hierarchy(text: &str) -> Hierarchy {
        let s = store(text);
        crate::discover(s.agents().next().expect("a GrafanaAgent"), &s).hierarchy
    }

    fn full(h: &Hierarchy) -> RenderedText {
        let rendered = metrics::render(h).expect("metrics config");
        RenderedText {
            text: Strings::of(&h.agent)
                .to_yaml(ConfigOf::Sharded, &rendered.config)
                .expect("yaml")
                .into(),
            rejections: rendered.rejections,
            largest: Vec::new(),
        }
    }

    fn cached(cache: &mut MetricsConfigCache, h: &Hierarchy) -> (RenderedText, CacheStats) {
        cache.render(h).expect("yaml").expect("metrics config")
    }

    fn assert_same(a: &RenderedText, b: &RenderedText) {
        pretty_assertions::assert_eq!(a.text.as_str(), b.text.as_str());
        let sorted = |r: &[Rejection]| {
            let mut r = r.to_vec();
            r.sort();
            r.dedup();
            r
        };
        assert_eq!(sorted(&a.rejections), sorted(&b.rejections));
    }

    #[test]
    fn the_cached_render_is_the_full_render() {
        let h = hierarchy(&monitors());
        let expected = full(&h);
        assert!(
            expected.text.as_str().contains("serviceMonitor/b/three/1"),
            "{}",
            expected.text
        );
        assert!(expected.text.as_str().contains("podMonitor/b/pods/0"));
        assert!(expected.text.as_str().contains("probe/a/site"));
        assert!(
            expected
                .rejections
                .iter()
                .any(|r| r.to_string().contains("broken")),
            "{:?}",
            expected.rejections
        );
        let mut cache = MetricsConfigCache::new();
        let (first, stats) = cached(&mut cache, &h);
        // The frame and the parts, not laid out until read.
        assert!(!first.text.is_laid_out());
        let chunks = first.text.chunks();
        assert_eq!(
            chunks.len(),
            7,
            "the frame and 6 monitors' jobs: {chunks:?}"
        );
        assert_eq!(chunks.concat(), expected.text.as_str());
        assert_same(&first, &expected);
        assert_eq!((stats.hits, stats.misses), (0, 7));
        let (second, stats) = cached(&mut cache, &h);
        assert_same(&second, &expected);
        assert_eq!((stats.hits, stats.misses), (7, 0));
    }

    #[test]
    fn after_one_edit_only_the_edited_monitor_is_rendered_again() {
        let mut cache = MetricsConfigCache::new();
        cached(&mut cache, &hierarchy(&monitors()));
        let edited = monitors().replace(
            &service_monitor("b", "three", Some("1"), "30s"),
            &service_monitor("b", "three", Some("2"), "15s"),
        );
        let h = hierarchy(&edited);
        let (text, stats) = cached(&mut cache, &h);
        assert_eq!((stats.hits, stats.misses), (6, 1));
        assert_same(&text, &full(&h));
        assert!(
            text.text.as_str().contains("scrape_interval: '15s'"),
            "{}",
            text.text
        );
    }

    #[test]
    fn monitors_without_a_resource_version_are_compared_by_content() {
        let unversioned = |interval: &str| {
            let mut text = monitors();
            text.push_str(&service_monitor("a", "plain", None, interval));
            text
        };
        let mut cache = MetricsConfigCache::new();
        cached(&mut cache, &hierarchy(&unversioned("30s")));
        let (_, stats) = cached(&mut cache, &hierarchy(&unversioned("30s")));
        assert_eq!(stats.misses, 0);
        let h = hierarchy(&unversioned("45s"));
        let (text, stats) = cached(&mut cache, &h);
        assert_eq!(stats.misses, 1);
        assert_same(&text, &full(&h));
    }

    #[test]
    fn a_changed_secret_re_renders_the_monitors_of_its_namespace_only() {
        let mut cache = MetricsConfigCache::new();
        cached(&mut cache, &hierarchy(&monitors()));
        let h = hierarchy(&monitors().replace("user: bob", "user: robert"));
        let (text, stats) = cached(&mut cache, &h);
        // three, four and the PodMonitor live in namespace b.
        assert_eq!((stats.hits, stats.misses), (4, 3));
        assert!(text.text.as_str().contains("username: robert"));
        assert_same(&text, &full(&h));
    }

    #[test]
    fn a_changed_agent_setting_re_renders_every_monitor() {
        let mut cache = MetricsConfigCache::new();
        cached(&mut cache, &hierarchy(&monitors()));
        let h = hierarchy(&monitors().replace("  metrics:\n", "  metrics:\n    shards: 3\n"));
        let (text, stats) = cached(&mut cache, &h);
        assert_eq!((stats.hits, stats.misses), (0, 7));
        assert!(text.text.as_str().contains("modulus: 3"));
        assert_same(&text, &full(&h));
    }

    #[test]
    fn monitors_no_longer_selected_are_evicted() {
        let mut cache = MetricsConfigCache::new();
        cached(&mut cache, &hierarchy(&monitors()));
        assert_eq!(cache.len(), 7);
        let h = hierarchy(&monitors().replace(&service_monitor("a", "two", Some("1"), "30s"), ""));
        let (text, stats) = cached(&mut cache, &h);
        assert_eq!((stats.misses, stats.evicted), (0, 1));
        assert_eq!(cache.len(), 6);
        assert!(!text.text.as_str().contains("serviceMonitor/a/two/"));
        assert_same(&text, &full(&h));
    }

    #[test]
    fn an_agent_without_monitors_renders_its_frame_alone() {
        let h = hierarchy(
            BASE.split("\n---\napiVersion: v1\nkind: Secret")
                .next()
                .unwrap_or(BASE),
        );
        let mut cache = MetricsConfigCache::new();
        let (text, stats) = cached(&mut cache, &h);
        assert_eq!(stats, CacheStats::default());
        assert!(!text.text.as_str().contains("scrape_configs"));
        assert_same(&text, &full(&h));
    }

    #[test]
    fn agents_with_additional_scrape_configs_are_rendered_without_the_cache() {
        let text = monitors().replace(
            "  probeSelector: {}\n",
            "  probeSelector: {}\n  additionalScrapeConfigs: {name: extra, key: jobs.yaml}\n",
        ) + "\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: extra, namespace: monitoring}\nstringData:\n  jobs.yaml: \"- job_name: extra\\n  static_configs:\\n  - targets: ['a:1']\\n\"\n";
        let h = hierarchy(&text);
        let mut cache = MetricsConfigCache::new();
        let (rendered, stats) = cached(&mut cache, &h);
        assert!(stats.bypassed);
        assert!(
            rendered.text.as_str().contains("job_name: extra"),
            "{}",
            rendered.text
        );
        assert_same(&rendered, &full(&h));
    }

    /// Two instances that differ only in name select the same monitors: the agent runs them
    /// as one and would refuse the same job twice, so the second (by name) has none of them,
    /// in the cached and one-off renders as in the full one. A third instance with its own
    /// remote_write keeps them.
    #[test]
    fn instances_the_agent_runs_as_one_have_each_monitor_once() {
        let primary = BASE
            .split("---")
            .find(|doc| doc.contains("kind: MetricsInstance"))
            .expect("the instance");
        let twin = primary.replace("name: primary", "name: twin");
        let other = primary
            .replace("name: primary", "name: other")
            .replace("mimir.example.com", "elsewhere.example.com");
        let h = hierarchy(&format!("{}---{twin}---{other}", monitors()));
        let expected = full(&h);
        let text = expected.text.as_str();
        assert_eq!(
            text.matches("job_name: serviceMonitor/b/three/1").count(),
            2,
            "{text}"
        );
        let twin_at = text.find("name: monitoring/twin").expect("twin");
        assert!(!text[twin_at..].contains("job_name:"), "{text}");
        let mut cache = MetricsConfigCache::new();
        let (first, _) = cached(&mut cache, &h);
        assert_same(&first, &expected);
        let once = render_metrics_text(&h).expect("yaml").expect("config");
        assert_same(&once, &expected);
    }

    #[test]
    fn a_one_off_render_is_the_full_render_and_keeps_nothing() {
        let h = hierarchy(&monitors());
        let once = render_metrics_text(&h).expect("yaml").expect("config");
        assert_same(&once, &full(&h));
    }

    /// The one-off render writes `scrape_configs:` before it knows whether a monitor gives a
    /// job: an instance whose only monitor is rejected has none, as in the full render.
    #[test]
    fn a_one_off_render_of_an_instance_whose_monitors_give_no_job_has_no_scrape_configs() {
        let agent_and_instance = BASE
            .split("\n---\napiVersion: v1\nkind: Secret")
            .next()
            .unwrap_or(BASE);
        let h = hierarchy(&format!("{agent_and_instance}{BROKEN}"));
        let once = render_metrics_text(&h).expect("yaml").expect("config");
        assert!(
            !once.text.as_str().contains("scrape_configs"),
            "{}",
            once.text
        );
        assert_eq!(once.rejections.len(), 1, "{:?}", once.rejections);
        assert_same(&once, &full(&h));
    }

    #[test]
    fn no_metrics_instance_means_no_config() {
        let h = hierarchy(&BASE.replace("labels: {agent: agent}", "labels: {agent: other}"));
        assert!(
            MetricsConfigCache::new()
                .render(&h)
                .expect("yaml")
                .is_none()
        );
    }
}
