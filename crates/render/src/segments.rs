//! A config stored in as many Secrets as it needs (issue 35): the head Secret, under the
//! config Secret's name, holds the config's first segment and, when there are more, the
//! manifest ([`Manifest`]) naming the others in order with the digest of each one's text. The
//! config loader in each agent pod reads the head, then the segments it names, and writes the
//! config file only when every segment it holds has the digest the head names: a partial or
//! mixed set is never loaded, whatever order the writes reach it in.
//!
//! Segments are cut where the content says, not at fixed offsets: before a `- job_name:` line
//! whose hash has its low [`CUT_BITS`] bits zero (about one job in 64), or before the line
//! that would take a segment past [`SEGMENT_MAX_BYTES`]. So one monitor's edit changes the
//! segment that holds its jobs; the cuts before and after it are found again in the same
//! places, and every other segment keeps its text, its name (the hash of its first line) and
//! its stored bytes ([`SegmentCache`]): one edit rewrites one segment and the head's manifest.
//!
//! The texts are read where they lie (a cached config's frame lines and per-monitor parts,
//! [`crate::config_text::ConfigText::chunks`]): at 100k ServiceMonitors the whole text is
//! hundreds of MB that no one needs laid out, while each segment is at most
//! [`SEGMENT_MAX_BYTES`].

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read};
use std::ops::Range;
use std::sync::Arc;

use flate2::read::GzDecoder;
use foldhash::quality::RandomState;
use md5::{Digest, Md5};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::config_text::{Chunk, RenderedPart};
use crate::desired::GZIP_THRESHOLD;
use crate::text_chunks::ChunkText;

/// The head Secret's key for the [`Manifest`], present only when the config has more than
/// one segment (a config of one segment is stored exactly as before segments existed).
pub const MANIFEST_KEY: &str = "segments.json";
/// The longest text one segment holds (unless one line alone is longer): compressed or not, a
/// segment stays within the API server's 1 MiB limit on a Secret's data.
pub const SEGMENT_MAX_BYTES: usize = 896 * 1024;
/// A config up to this long is one segment: stored as one Secret, as upstream stores it (an
/// edit rewrites at most this much anyway).
pub const WHOLE_UP_TO_BYTES: usize = 256 * 1024;
/// A `- job_name:` line whose hash has this many low bits zero starts a segment.
pub const CUT_BITS: u32 = 6;
/// The label on every segment Secret naming its head (the config Secret's name).
pub const SEGMENT_OF_LABEL: &str = "operator.agent.grafana.com/config-segment-of";

/// What the head holds besides its own segment: the other segments, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub segments: Vec<ManifestEntry>,
}

/// One segment of a [`Manifest`]: the Secret holding it (key [`crate::desired::CONFIG_KEY`])
/// and the MD5 of its text, which the loader checks before using it. MD5 guards against torn
/// and stale reads, not forgery: whoever can write these Secrets writes the config anyway.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    pub secret: String,
    pub md5: String,
}

/// One segment as stored: its Secret's name (the head's for the first), the digest of its
/// text and the bytes of its [`crate::desired::CONFIG_KEY`] ([`encode`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSegment {
    pub secret: String,
    pub md5: String,
    pub text_len: usize,
    pub bytes: Arc<Vec<u8>>,
}

/// Why a config cannot be assembled (yet) from what the loader holds.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AssembleError {
    #[error("Secret {secret}: not read yet, or gone")]
    Missing { secret: String },
    #[error("Secret {secret}: holds a text of MD5 {found}, the head names {wanted}")]
    Stale {
        secret: String,
        found: String,
        wanted: String,
    },
    #[error("Secret {secret}: key {key}: {reason}")]
    Unreadable {
        secret: String,
        key: String,
        reason: String,
    },
}

/// The stored form of a segment's `text`, in a config of `config_len` bytes: gzip-compressed
/// when the config is longer than [`GZIP_THRESHOLD`] (as a config Secret's always were), so a
/// large config's segments are all compressed, however short each one is.
pub fn encode(text: &str, config_len: usize) -> io::Result<Vec<u8>> {
    if config_len > GZIP_THRESHOLD {
        crate::gzip::gzip(text)
    } else {
        Ok(text.as_bytes().to_vec())
    }
}

/// The text of a stored segment: gunzipped when it starts with gzip's magic bytes (a config
/// text never does: it is YAML), UTF-8 checked.
pub fn decode(bytes: &[u8]) -> Result<String, String> {
    let raw = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        GzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| format!("not valid gzip: {e}"))?;
        out
    } else {
        bytes.to_vec()
    };
    String::from_utf8(raw).map_err(|e| format!("not UTF-8: {e}"))
}

/// The hex MD5 of a segment's text.
pub fn md5_hex(text: &[u8]) -> String {
    Md5::digest(text)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The manifest as the head stores it.
pub fn manifest_bytes(manifest: &Manifest) -> Vec<u8> {
    // A struct of strings always serializes.
    serde_json::to_vec(manifest).unwrap_or_default()
}

/// The manifest a head stores under [`MANIFEST_KEY`].
pub fn parse_manifest(head: &str, bytes: &[u8]) -> Result<Manifest, AssembleError> {
    serde_json::from_slice(bytes).map_err(|e| AssembleError::Unreadable {
        secret: head.to_owned(),
        key: MANIFEST_KEY.to_owned(),
        reason: e.to_string(),
    })
}

/// The whole config: `head_text` then each segment of `manifest` in order, as `segment_text`
/// gives it, each checked against its digest. Nothing is returned unless every segment is
/// there with the text the head names.
pub fn assemble<'a>(
    head_text: &str,
    manifest: &Manifest,
    mut segment_text: impl FnMut(&str) -> Option<&'a str>,
) -> Result<String, AssembleError> {
    assemble_digested(head_text, manifest, |name| {
        segment_text(name).map(|text| (text, Cow::Owned(md5_hex(text.as_bytes()))))
    })
}

/// [`assemble`] from segments whose digests the caller already holds (`segment` gives each
/// one's text and MD5), for a reader that keeps segments across many heads and would
/// otherwise digest every one of them again at each.
pub fn assemble_digested<'a>(
    head_text: &str,
    manifest: &Manifest,
    mut segment: impl FnMut(&str) -> Option<(&'a str, Cow<'a, str>)>,
) -> Result<String, AssembleError> {
    let mut texts = Vec::with_capacity(manifest.segments.len());
    for entry in &manifest.segments {
        let (text, found) = segment(&entry.secret).ok_or_else(|| AssembleError::Missing {
            secret: entry.secret.clone(),
        })?;
        if found != entry.md5 {
            return Err(AssembleError::Stale {
                secret: entry.secret.clone(),
                found: found.into_owned(),
                wanted: entry.md5.clone(),
            });
        }
        texts.push(text);
    }
    let mut whole =
        String::with_capacity(head_text.len() + texts.iter().map(|t| t.len()).sum::<usize>());
    whole.push_str(head_text);
    for text in texts {
        whole.push_str(text);
    }
    Ok(whole)
}

/// The ranges of the text made of `chunks` that are its segments, in order; their union is the
/// whole text. Pure function of the text: the chunks it is given in change nothing.
///
/// A segment ends before the first line that starts one (a job line [`starts_segment`]
/// chooses) or that would take it past [`SEGMENT_MAX_BYTES`], whichever comes first; a line is
/// never cut. The job lines are found with a vectorised substring search and the long-segment
/// cuts with a search for the newline before the limit, so the text is not walked line by line
/// (a million lines at 10k ServiceMonitors, at every edit).
pub fn cut(chunks: &[&str]) -> Vec<Range<usize>> {
    let text = ChunkText::new(chunks);
    if text.len <= WHOLE_UP_TO_BYTES {
        let whole = 0..text.len;
        return Vec::from([whole]);
    }
    let starts = text.job_lines_starting_segments();
    cut_at(&text, starts)
}

/// The segments of `text` (longer than [`WHOLE_UP_TO_BYTES`]) given the starts of the job
/// lines that start one, in order.
fn cut_at(text: &ChunkText<'_>, starts: Vec<usize>) -> Vec<Range<usize>> {
    let mut cuts = Vec::new();
    let mut segment_start = 0;
    let mut next_start = starts.into_iter().peekable();
    loop {
        while next_start.next_if(|&s| s <= segment_start).is_some() {}
        let chosen = next_start.peek().copied();
        let forced = text.forced_cut(segment_start);
        let Some(end) = [chosen, forced].into_iter().flatten().min() else {
            break;
        };
        cuts.push(segment_start..end);
        segment_start = end;
    }
    cuts.push(segment_start..text.len);
    cuts
}

/// Whether the line whose first bytes (up to [`LINE_HEAD_BYTES`], its newline included when
/// within them) are `head` starts a segment: a job line whose hash has its low [`CUT_BITS`]
/// zero.
fn starts_segment(head: &[u8]) -> bool {
    head.trim_ascii_start().starts_with(JOB_LINE)
        && fnv1a(head.iter().copied()) & ((1 << CUT_BITS) - 1) == 0
}

/// FNV-1a, 64 bits: a hash fixed forever (cuts and names must not change with a dependency's
/// version or between processes), fast enough for one line per job.
fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

const JOB_LINE: &[u8] = b"- job_name:";

/// The occurrences of [`JOB_LINE`] in `chunk` whose line may start a segment, and what the
/// chunk alone tells of each ([`JobLine`]); those whose line does not are left out.
fn job_lines(chunk: &[u8], finder: &memchr::memmem::Finder<'_>) -> Vec<JobLine> {
    let mut lines = Vec::new();
    'occurrences: for at in finder.find_iter(chunk) {
        // As [`ChunkText::line_start_before_blanks`], within the chunk.
        let mut line_start = at;
        while line_start > 0 {
            match chunk[line_start - 1] {
                b'\n' => break,
                b if b.is_ascii_whitespace() => line_start -= 1,
                _ => continue 'occurrences,
            }
        }
        let head_end = match memchr::memchr(b'\n', &chunk[line_start..]) {
            Some(newline) => (line_start + newline + 1).min(line_start + LINE_HEAD_BYTES),
            None if line_start + LINE_HEAD_BYTES <= chunk.len() => line_start + LINE_HEAD_BYTES,
            None => {
                lines.push(JobLine::Undecided(at));
                continue;
            }
        };
        let starts = starts_segment(&chunk[line_start..head_end]);
        if line_start == 0 {
            lines.push(JobLine::AtChunkStart {
                occurrence: at,
                starts,
            });
        } else if starts {
            lines.push(JobLine::Starts(line_start));
        }
    }
    lines
}

/// How much of a line decides whether it starts a segment.
const LINE_HEAD_BYTES: usize = 256;

/// Stored segments of earlier calls, found again by their text: an edit compresses and
/// digests only the segments whose text changed, and reads only the cached parts it changed.
#[derive(Debug, Default)]
pub struct SegmentCache {
    /// The key of the identity hash, random per cache: no one can craft a text taken for
    /// another. An identity is that 64-bit keyed hash and the length: two texts of one length
    /// are taken for each other with probability 2^-64.
    key: RandomState,
    by_identity: HashMap<[u64; 2], Cached>,
    /// What the last call read of each cached part it was given ([`Chunk::part`]), by the
    /// part's address: the entry holds a clone of the part, so while it is here no other part
    /// can take that address, and a part's text never changes. An edit then reads the text of
    /// the parts it changed and of the frame, not the tens of MB of the others.
    parts: HashMap<usize, KnownPart>,
    /// Segments reused and stored anew by the last call.
    pub reused: usize,
    pub stored: usize,
    /// The bytes of text the last call read (hashed or searched), besides those it stored.
    pub bytes_read: usize,
}

#[derive(Clone, Debug)]
struct Cached {
    md5: String,
    first_line_hash: u64,
    bytes: Arc<Vec<u8>>,
}

/// A cached part and what its text alone tells.
#[derive(Debug)]
struct KnownPart {
    /// Held so that the address keying it stays this part's.
    _part: RenderedPart,
    summary: ChunkSummary,
}

/// What a chunk's text alone tells of the segments.
#[derive(Clone, Debug, Default)]
struct ChunkSummary {
    /// The keyed hash of the whole chunk ([`SegmentCache::key`]), for the chunks of cached
    /// parts: a segment holding the whole chunk is identified by it instead of by its bytes.
    hash: Option<u64>,
    /// Its occurrences of [`JOB_LINE`] that may start a segment, in order.
    job_lines: Vec<JobLine>,
}

/// An occurrence of [`JOB_LINE`] in a chunk, by its offset there, and what the chunk tells of
/// whether its line starts a segment.
#[derive(Clone, Copy, Debug)]
enum JobLine {
    /// Its line starts a segment, at this offset.
    Starts(usize),
    /// Only blanks come before it in the chunk: its line starts at the chunk's start if the
    /// text before ends a line (or there is none), and then `starts` says whether it starts a
    /// segment; otherwise the text before decides.
    AtChunkStart { occurrence: usize, starts: bool },
    /// Its line runs past the chunk within the bytes that decide ([`LINE_HEAD_BYTES`]): the
    /// text after decides.
    Undecided(usize),
}

/// The segments of the config made of `chunks`, stored under `head` (the config Secret's
/// name) and the names [`segment_name`] gives, encoded and digested, reusing `cache`'s.
pub fn store(
    head: &str,
    chunks: &[&str],
    cache: Option<&mut SegmentCache>,
) -> io::Result<Vec<StoredSegment>> {
    let chunks: Vec<Chunk<'_>> = chunks.iter().map(|&c| Chunk::from(c)).collect();
    store_chunks(head, &chunks, cache)
}

/// [`store`] of a text in chunks, some of them cached parts ([`Chunk::part`]): what the
/// cache learnt of a part's text is not learnt again, so an edit that changed one part of
/// thousands reads that part (and the frame), not the whole text. The segments are those of
/// [`store`] of the same text, byte for byte.
pub fn store_chunks(
    head: &str,
    chunks: &[Chunk<'_>],
    cache: Option<&mut SegmentCache>,
) -> io::Result<Vec<StoredSegment>> {
    let chunks: Vec<Chunk<'_>> = chunks
        .iter()
        .filter(|c| !c.text.is_empty())
        .copied()
        .collect();
    let texts: Vec<&str> = chunks.iter().map(|c| c.text).collect();
    // No chunk is empty: the text's chunks are `chunks`, index for index.
    let text = ChunkText::new(&texts);
    let config_len = text.len;
    let compress = config_len > GZIP_THRESHOLD;
    let mut fallback = SegmentCache::default();
    let cache = cache.unwrap_or(&mut fallback);
    let (frames, mut bytes_read) = cache.learn(&chunks);
    let summaries = cache.summaries(&chunks, &frames);
    let ranges = if text.len <= WHOLE_UP_TO_BYTES {
        let whole = 0..text.len;
        Vec::from([whole])
    } else {
        cut_at(&text, text.segment_starts(&summaries))
    };
    let key = &cache.key;
    let previous = &cache.by_identity;
    let found: Vec<FoundSegment> = ranges
        .par_iter()
        .map(|range| {
            let (id, hashed) = identity(key, compress, &text, &summaries, range.clone());
            match previous.get(&id) {
                Some(cached) => Ok((id, Ok(cached.clone()), range.len(), hashed)),
                None => {
                    let bytes = text.copy(range.clone());
                    let as_text = String::from_utf8_lossy(&bytes);
                    let stored = Cached {
                        md5: md5_hex(&bytes),
                        first_line_hash: first_line_hash(&bytes),
                        bytes: Arc::new(encode(&as_text, config_len)?),
                    };
                    Ok((id, Err(stored), bytes.len(), hashed))
                }
            }
        })
        .collect::<io::Result<_>>()?;
    let mut kept = HashMap::with_capacity(found.len());
    let mut used_names: BTreeMap<String, usize> = BTreeMap::new();
    let (mut reused, mut stored) = (0, 0);
    let mut out = Vec::with_capacity(found.len());
    for (i, (id, entry, text_len, hashed)) in found.into_iter().enumerate() {
        bytes_read += hashed;
        let entry = match entry {
            Ok(cached) => {
                reused += 1;
                cached
            }
            Err(fresh) => {
                stored += 1;
                fresh
            }
        };
        let secret = if i == 0 {
            head.to_owned()
        } else {
            let base = segment_name(head, entry.first_line_hash);
            let seen = used_names.entry(base.clone()).or_insert(0);
            *seen += 1;
            if *seen == 1 {
                base
            } else {
                format!("{base}-{seen}")
            }
        };
        out.push(StoredSegment {
            secret,
            md5: entry.md5.clone(),
            text_len,
            bytes: entry.bytes.clone(),
        });
        kept.insert(id, entry);
    }
    cache.by_identity = kept;
    cache.reused = reused;
    cache.stored = stored;
    cache.bytes_read = bytes_read;
    Ok(out)
}

/// A segment's identity, its stored form (`Ok` when found in the cache, `Err` when stored
/// anew), its text's length and the bytes hashed to identify it.
type FoundSegment = ([u64; 2], Result<Cached, Cached>, usize, usize);

/// The identity of segment `range` of `text` ([`SegmentCache::key`]) and the bytes hashed
/// for it: a whole chunk of a cached part counts by its hash, other text by its bytes. So
/// the same text in other chunks has another identity (it is stored again, to the same
/// bytes), never two texts the same one: each piece is written with its kind and length.
fn identity(
    key: &RandomState,
    compress: bool,
    text: &ChunkText<'_>,
    summaries: &[&ChunkSummary],
    range: Range<usize>,
) -> ([u64; 2], usize) {
    let mut hasher = key.build_hasher();
    // The same text is stored otherwise when the config crosses the threshold.
    hasher.write_u8(u8::from(compress));
    let mut hashed = 0;
    if !range.is_empty() {
        let first = text.chunk_of(range.start);
        let chunks = text.chunks[first..].iter().zip(&text.starts[first..]);
        for ((chunk, &start), summary) in chunks.zip(&summaries[first..]) {
            if start >= range.end {
                break;
            }
            let from = range.start.saturating_sub(start);
            let to = (range.end - start).min(chunk.len());
            match summary.hash {
                Some(hash) if from == 0 && to == chunk.len() => {
                    hasher.write_u8(1);
                    hasher.write_u64(hash);
                    hasher.write_usize(chunk.len());
                }
                _ => {
                    hasher.write_u8(0);
                    hasher.write_usize(to - from);
                    hasher.write(&chunk[from..to]);
                    hashed += to - from;
                }
            }
        }
    }
    ([hasher.finish(), range.len() as u64], hashed)
}

impl SegmentCache {
    /// Learns what it does not know yet of the cached parts among `chunks` (none empty), on
    /// every core, and forgets the parts not among them; returns the summaries of the other
    /// chunks (the frame's, made afresh; an empty one in place of each part) and the bytes
    /// read.
    fn learn(&mut self, chunks: &[Chunk<'_>]) -> (Vec<ChunkSummary>, usize) {
        let finder = memchr::memmem::Finder::new(JOB_LINE);
        let mut previous = std::mem::take(&mut self.parts);
        let mut known = HashMap::with_capacity(chunks.len());
        let mut unknown: Vec<(usize, &RenderedPart, &str)> = Vec::new();
        for chunk in chunks {
            if let Some(part) = chunk.part {
                let address = Arc::as_ptr(part) as usize;
                if known.contains_key(&address) {
                    continue;
                }
                match previous.remove(&address) {
                    Some(part) => {
                        known.insert(address, part);
                    }
                    None => unknown.push((address, part, chunk.text)),
                }
            }
        }
        let key = &self.key;
        let learnt: Vec<(usize, KnownPart)> = unknown
            .par_iter()
            .map(|&(address, part, text)| {
                let summary = ChunkSummary {
                    hash: Some(key.hash_one(text.as_bytes())),
                    job_lines: job_lines(text.as_bytes(), &finder),
                };
                let part = KnownPart {
                    _part: part.clone(),
                    summary,
                };
                (address, part)
            })
            .collect();
        let mut read: usize = unknown.iter().map(|(_, _, text)| text.len()).sum();
        known.extend(learnt);
        let frames: Vec<ChunkSummary> = chunks
            .par_iter()
            .map(|chunk| match chunk.part {
                Some(_) => ChunkSummary::default(),
                None => ChunkSummary {
                    hash: None,
                    job_lines: job_lines(chunk.text.as_bytes(), &finder),
                },
            })
            .collect();
        read += chunks
            .iter()
            .filter(|c| c.part.is_none())
            .map(|c| c.text.len())
            .sum::<usize>();
        self.parts = known;
        (frames, read)
    }

    /// The summary of each of `chunks`: a cached part's as [`SegmentCache::learn`] kept it,
    /// the others' from `frames`.
    fn summaries<'s>(
        &'s self,
        chunks: &[Chunk<'_>],
        frames: &'s [ChunkSummary],
    ) -> Vec<&'s ChunkSummary> {
        chunks
            .iter()
            .zip(frames)
            .map(|(chunk, frame)| {
                chunk
                    .part
                    .and_then(|part| self.parts.get(&(Arc::as_ptr(part) as usize)))
                    .map_or(frame, |known| &known.summary)
            })
            .collect()
    }
}

/// The name of the segment Secret of `head` whose text begins with a line of hash
/// `first_line_hash`: the same text keeps the same name from edit to edit.
pub fn segment_name(head: &str, first_line_hash: u64) -> String {
    format!("{head}-{:010x}", first_line_hash & 0xff_ffff_ffff)
}

/// Whether `name` is a name [`store`] gives a segment of `head`: the head's name, a dash, ten
/// hex digits, and a `-N` when that name was taken. No other name an agent generates ends so
/// (they end in words: `-config`, `-operated`, a shard number), so segments never collide with
/// another agent's objects (`discover::name_collisions` compares the others).
pub fn is_segment_of(name: &str, head: &str) -> bool {
    let Some(rest) = name
        .strip_prefix(head)
        .and_then(|rest| rest.strip_prefix('-'))
    else {
        return false;
    };
    let (hash, repeat) = match rest.split_once('-') {
        Some((hash, repeat)) => (hash, Some(repeat)),
        None => (rest, None),
    };
    hash.len() == 10
        && hash
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        && repeat.is_none_or(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn first_line_hash(bytes: &[u8]) -> u64 {
    let end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    fnv1a(bytes[..end].iter().copied())
}

/// The manifest of `segments` (as [`store`] returns them): every segment after the first, or
/// `None` when the config is one segment.
pub fn manifest_of(segments: &[StoredSegment]) -> Option<Manifest> {
    (segments.len() > 1).then(|| Manifest {
        segments: segments[1..]
            .iter()
            .map(|s| ManifestEntry {
                secret: s.secret.clone(),
                md5: s.md5.clone(),
            })
            .collect(),
    })
}

/// What cutting segments asks of a text in chunks.
impl ChunkText<'_> {
    /// Where a segment starting at `segment_start` must end at the latest: before the line
    /// that would take it past [`SEGMENT_MAX_BYTES`] (after its first line, however long);
    /// `None` when the rest of the text fits.
    fn forced_cut(&self, segment_start: usize) -> Option<usize> {
        let limit = segment_start + SEGMENT_MAX_BYTES;
        if limit >= self.len {
            return None;
        }
        // The line holding byte `limit` ends past the limit.
        let cut = match self.newline_before(segment_start..limit) {
            Some(newline) => newline + 1,
            None => self.line_end(segment_start),
        };
        (cut < self.len).then_some(cut)
    }

    /// The starts of the job lines that start a segment ([`starts_segment`]), in order.
    fn job_lines_starting_segments(&self) -> Vec<usize> {
        let finder = memchr::memmem::Finder::new(JOB_LINE);
        let mut found: Vec<usize> = Vec::new();
        for (chunk, &start) in self.chunks.iter().zip(&self.starts) {
            found.extend(finder.find_iter(chunk).map(|i| start + i));
        }
        found.extend(self.job_lines_across_chunks(&finder));
        found.sort_unstable();
        found.dedup();
        let mut head = Vec::with_capacity(LINE_HEAD_BYTES);
        found
            .into_iter()
            .filter_map(|at| self.segment_start_at(at, &mut head))
            .collect()
    }

    /// [`ChunkText::job_lines_starting_segments`] from each chunk's [`ChunkSummary`]
    /// (`summaries`, index for index): only what a chunk could not tell alone is looked at
    /// in the text.
    fn segment_starts(&self, summaries: &[&ChunkSummary]) -> Vec<usize> {
        let finder = memchr::memmem::Finder::new(JOB_LINE);
        let mut head = Vec::with_capacity(LINE_HEAD_BYTES);
        let mut starts = Vec::new();
        for (i, summary) in summaries.iter().enumerate() {
            let base = self.starts[i];
            let after_line_break = i == 0 || self.chunks[i - 1].last() == Some(&b'\n');
            for line in &summary.job_lines {
                let start = match *line {
                    JobLine::Starts(at) => Some(base + at),
                    JobLine::AtChunkStart { starts, .. } if after_line_break => {
                        starts.then_some(base)
                    }
                    JobLine::AtChunkStart { occurrence: at, .. } | JobLine::Undecided(at) => {
                        self.segment_start_at(base + at, &mut head)
                    }
                };
                starts.extend(start);
            }
        }
        for at in self.job_lines_across_chunks(&finder) {
            starts.extend(self.segment_start_at(at, &mut head));
        }
        starts.sort_unstable();
        starts.dedup();
        starts
    }

    /// The occurrences of [`JOB_LINE`] that begin in one chunk and end in another: searched
    /// for in a window around each boundary that does not follow a line break (the job line
    /// holds none, so none crosses those).
    fn job_lines_across_chunks(&self, finder: &memchr::memmem::Finder<'_>) -> Vec<usize> {
        let reach = JOB_LINE.len() - 1;
        let mut found = Vec::new();
        let mut window = Vec::with_capacity(2 * reach);
        for (i, &boundary) in self.starts.iter().enumerate().skip(1) {
            if self.chunks[i - 1].last() == Some(&b'\n') {
                continue;
            }
            let from = boundary.saturating_sub(reach);
            let bytes = self.bytes(from..(boundary + reach).min(self.len), &mut window);
            found.extend(
                finder
                    .find_iter(bytes)
                    .map(|i| from + i)
                    .filter(|&at| at < boundary && at + JOB_LINE.len() > boundary),
            );
        }
        found
    }

    /// The start of the line of the occurrence of [`JOB_LINE`] at `at`, when that line starts
    /// a segment ([`starts_segment`]); `head` is a buffer.
    fn segment_start_at(&self, at: usize, head: &mut Vec<u8>) -> Option<usize> {
        let line_start = self.line_start_before_blanks(at)?;
        let end = self.line_end(line_start).min(line_start + LINE_HEAD_BYTES);
        starts_segment(self.bytes(line_start..end, head)).then_some(line_start)
    }

    /// The start of the line at `at` when only blanks (no newline) come before `at` on it.
    fn line_start_before_blanks(&self, at: usize) -> Option<usize> {
        let mut pos = at;
        while pos > 0 {
            match self.byte(pos - 1) {
                b'\n' => return Some(pos),
                b if b.is_ascii_whitespace() => pos -= 1,
                _ => return None,
            }
        }
        Some(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A config of `jobs` jobs, each `filler` lines long, named after `seed`.
    fn config(jobs: usize, filler: usize, seed: &str) -> String {
        let mut text = String::from(
            "server:\n  log_level: info\nmetrics:\n  configs:\n  - name: a/b\n    scrape_configs:\n",
        );
        for j in 0..jobs {
            text.push_str(&format!("    - job_name: serviceMonitor/{seed}/m{j}/0\n"));
            for f in 0..filler {
                text.push_str(&format!(
                    "      - source_labels: [__meta_{f}]\n        regex: x{j}\n"
                ));
            }
        }
        text.push_str("    remote_write: []\n");
        text
    }

    /// The cuts as first written: line by line over the whole text. [`cut`] must agree.
    fn cut_line_by_line(text: &str) -> Vec<Range<usize>> {
        if text.len() <= WHOLE_UP_TO_BYTES {
            let whole = 0..text.len();
            return Vec::from([whole]);
        }
        let mut cuts = Vec::new();
        let mut segment_start = 0;
        let mut pos = 0;
        for line in text.split_inclusive('\n') {
            let start = pos;
            pos += line.len();
            if start == segment_start {
                continue;
            }
            let head = &line.as_bytes()[..line.len().min(LINE_HEAD_BYTES)];
            if pos - segment_start > SEGMENT_MAX_BYTES || starts_segment(head) {
                cuts.push(segment_start..start);
                segment_start = start;
            }
        }
        if pos > segment_start || cuts.is_empty() {
            cuts.push(segment_start..pos);
        }
        cuts
    }

    #[test]
    fn the_search_cuts_where_a_line_by_line_walk_cuts() {
        let long = "y".repeat(SEGMENT_MAX_BYTES / 3);
        let texts = [
            config(3000, 20, "ns"),
            config(50, 2, "a"),
            String::new(),
            "no newline at the end".to_owned(),
            // Long lines force cuts; blanks before `- job_name:` that are not a line's start.
            format!(
                "{long}\n{long}\n{long}\n{long}\nx - job_name: no\n\t- job_name: tab\n{}",
                config(400, 3, "b")
            ),
            format!(
                "{}\n{}",
                "z".repeat(SEGMENT_MAX_BYTES + 5),
                config(300, 3, "c")
            ),
        ];
        for text in &texts {
            let want = cut_line_by_line(text);
            assert_eq!(cut(&[text]), want);
            // Byte-sized chunks only for the short texts: a window is searched at each boundary.
            let sizes: &[usize] = if text.len() < 100_000 {
                &[1, 3, 11, 12, 4096]
            } else {
                &[11, 4096, 7777]
            };
            for &size in sizes {
                let pieces: Vec<&str> = text
                    .as_bytes()
                    .chunks(size)
                    .map(|c| std::str::from_utf8(c).expect("ASCII"))
                    .collect();
                assert_eq!(cut(&pieces), want, "chunks of {size}");
            }
        }
    }

    fn texts(chunks: &[&str]) -> Vec<String> {
        let whole = chunks.concat();
        cut(chunks)
            .into_iter()
            .map(|r| whole[r].to_owned())
            .collect()
    }

    #[test]
    fn segments_concatenate_to_the_text_whatever_the_chunks() {
        let text = config(3000, 20, "ns");
        let whole = texts(&[&text]);
        assert!(whole.len() > 5, "{} segments", whole.len());
        assert_eq!(whole.concat(), text);
        // The same text in odd chunks (lines cut in two) is cut in the same places.
        let pieces: Vec<&str> = text
            .as_bytes()
            .chunks(7777)
            .map(|c| std::str::from_utf8(c).expect("ASCII"))
            .collect();
        assert_eq!(texts(&pieces), whole);
        for segment in &whole {
            assert!(segment.len() <= SEGMENT_MAX_BYTES, "{}", segment.len());
        }
    }

    #[test]
    fn segment_names_are_told_apart_from_other_names() {
        let name = segment_name("agent-config", 0xabc);
        assert!(is_segment_of(&name, "agent-config"), "{name}");
        assert!(is_segment_of(&format!("{name}-2"), "agent-config"));
        assert!(!is_segment_of(&name, "agent"));
        assert!(!is_segment_of("agent-config-operated", "agent-config"));
        assert!(!is_segment_of(&format!("{name}-"), "agent-config"));
        assert!(!is_segment_of("agent-config-00000000AB", "agent-config"));
    }

    #[test]
    fn a_small_config_is_one_segment_and_an_empty_one_too() {
        assert_eq!(cut(&["a: 1\n"]), vec![0..5]);
        assert_eq!(cut(&[]), vec![0..0]);
        assert_eq!(cut(&["", ""]), vec![0..0]);
    }

    #[test]
    fn an_edit_changes_only_the_segment_that_holds_it() {
        let text = config(3000, 20, "ns");
        let edited = text.replace("regex: x1500\n", "regex: x1500-edited\n");
        let mut cache = SegmentCache::default();
        let before = store("agent-config", &[&text], Some(&mut cache)).expect("stored");
        assert_eq!(cache.stored, before.len());
        let after = store("agent-config", &[&edited], Some(&mut cache)).expect("stored");
        assert_eq!(cache.stored, 1, "{} reused", cache.reused);
        assert_eq!(before.len(), after.len());
        let changed: Vec<usize> = (0..before.len())
            .filter(|&i| before[i] != after[i])
            .collect();
        assert_eq!(changed.len(), 1, "{changed:?}");
        let names = |s: &[StoredSegment]| s.iter().map(|s| s.secret.clone()).collect::<Vec<_>>();
        assert_eq!(names(&before), names(&after));
    }

    /// `text` as cached parts cut every `size` bytes (inside lines too), the first
    /// `frame_lines` lines kept as frame.
    fn as_parts(text: &str, frame_lines: usize, size: usize) -> (String, Vec<RenderedPart>) {
        let frame_end: usize = text
            .split_inclusive('\n')
            .take(frame_lines)
            .map(str::len)
            .sum();
        let parts = text.as_bytes()[frame_end..]
            .chunks(size)
            .map(|c| Arc::new(Ok(std::str::from_utf8(c).expect("ASCII").to_owned())))
            .collect();
        (text[..frame_end].to_owned(), parts)
    }

    fn chunks_of<'a>(frame: &'a str, parts: &'a [RenderedPart]) -> Vec<Chunk<'a>> {
        std::iter::once(Chunk::from(frame))
            .chain(parts.iter().map(|part| Chunk {
                text: part.as_ref().as_ref().map_or("", String::as_str),
                part: Some(part),
            }))
            .collect()
    }

    /// What the cache keeps of each part gives the segments of the text laid out, byte for
    /// byte, however the parts cut it (at lines, inside lines, inside `- job_name:`, with
    /// blanks before a job line in the part before), and an edit of one part reads that
    /// part and the frame only.
    #[test]
    fn cached_parts_give_the_segments_of_the_text_and_an_edit_reads_only_its_part() {
        let mut text = config(3000, 20, "ns");
        // A job line whose blanks begin in one part and whose dash is in the next.
        text = text.replace(
            "    - job_name: serviceMonitor/ns/m700/0\n",
            "    - job_name: serviceMonitor/ns/m700/0\n  \n    - job_name: x\n",
        );
        for size in [4096, 1000, 333, 37] {
            let (frame, mut parts) = as_parts(&text, 6, size);
            let mut cache = SegmentCache::default();
            let stored =
                store_chunks("h", &chunks_of(&frame, &parts), Some(&mut cache)).expect("stored");
            assert_eq!(
                stored,
                store("h", &[&text], None).expect("stored"),
                "{size}"
            );
            assert_eq!(cache.stored, stored.len());

            // The same parts again: nothing stored, nothing read but the frame and the parts
            // a cut falls in (the cuts are at job lines, which these parts cut across).
            let again =
                store_chunks("h", &chunks_of(&frame, &parts), Some(&mut cache)).expect("stored");
            assert_eq!(again, stored);
            assert_eq!(cache.stored, 0);
            let read_at_cuts = 2 * stored.len() * size + frame.len();
            assert!(cache.bytes_read <= read_at_cuts, "{}", cache.bytes_read);
            assert!(cache.bytes_read < text.len() / 4, "{}", cache.bytes_read);

            // One part edited: a job line added in it, so it starts a segment or not.
            let at = parts.len() / 2;
            let edited = format!(
                "{}\n    - job_name: edited/{size}\n",
                parts[at].as_ref().as_ref().expect("text")
            );
            parts[at] = Arc::new(Ok(edited));
            let chunks = chunks_of(&frame, &parts);
            let after = store_chunks("h", &chunks, Some(&mut cache)).expect("stored");
            let whole: String = chunks.iter().map(|c| c.text).collect();
            assert_eq!(
                after,
                store("h", &[&whole], None).expect("stored"),
                "{size}"
            );
            assert!(cache.stored <= 2, "{} stored", cache.stored);
            assert!(
                cache.bytes_read <= read_at_cuts + 2 * size + 64,
                "{}",
                cache.bytes_read
            );
        }
    }

    /// Parts of whole jobs, as a cached config's are: a store of the same parts again reads
    /// the frame alone.
    #[test]
    fn parts_of_whole_jobs_are_not_read_again() {
        let text = config(3000, 20, "ns");
        let frame_end = text.find("    - job_name:").expect("a job");
        let parts: Vec<RenderedPart> = text[frame_end..]
            .split_inclusive('\n')
            .fold(Vec::<String>::new(), |mut jobs, line| {
                match jobs.last_mut() {
                    Some(job) if !line.contains("job_name") => job.push_str(line),
                    _ => jobs.push(line.to_owned()),
                }
                jobs
            })
            .into_iter()
            .map(|job| Arc::new(Ok(job)))
            .collect();
        let frame = &text[..frame_end];
        let mut cache = SegmentCache::default();
        let first = store_chunks("h", &chunks_of(frame, &parts), Some(&mut cache)).expect("stored");
        assert_eq!(first, store("h", &[&text], None).expect("stored"));
        let again = store_chunks("h", &chunks_of(frame, &parts), Some(&mut cache)).expect("stored");
        assert_eq!(again, first);
        // The frame, searched for job lines then hashed.
        assert_eq!((cache.stored, cache.bytes_read), (0, 2 * frame.len()));
    }

    #[test]
    fn a_job_added_in_the_middle_keeps_the_other_segments() {
        let text = config(3000, 20, "ns");
        let added = text.replace(
            "    - job_name: serviceMonitor/ns/m1500/0\n",
            "    - job_name: serviceMonitor/ns/m1499b/0\n      - source_labels: [x]\n    - job_name: serviceMonitor/ns/m1500/0\n",
        );
        let before = store("h", &[&text], None).expect("stored");
        let after = store("h", &[&added], None).expect("stored");
        let same = after.iter().filter(|s| before.contains(s)).count();
        assert!(same + 2 >= before.len(), "{same} of {} kept", before.len());
    }

    #[test]
    fn assembly_checks_every_digest_and_names_what_is_missing() {
        let text = config(3000, 20, "ns");
        let stored = store("agent-config", &[&text], None).expect("stored");
        let manifest = manifest_of(&stored).expect("several segments");
        let decoded: BTreeMap<String, String> = stored
            .iter()
            .map(|s| (s.secret.clone(), decode(&s.bytes).expect("decodes")))
            .collect();
        let head = &decoded["agent-config"];
        let whole =
            assemble(head, &manifest, |n| decoded.get(n).map(String::as_str)).expect("assembles");
        assert_eq!(whole, text);

        let missing = &manifest.segments[1].secret;
        let err = assemble(head, &manifest, |n| {
            (n != missing)
                .then(|| decoded.get(n).map(String::as_str))
                .flatten()
        })
        .expect_err("one is missing");
        assert_eq!(
            err,
            AssembleError::Missing {
                secret: missing.clone()
            }
        );

        let stale = "an older text";
        let err = assemble(head, &manifest, |n| {
            if n == missing {
                Some(stale)
            } else {
                decoded.get(n).map(String::as_str)
            }
        })
        .expect_err("one is stale");
        assert!(matches!(err, AssembleError::Stale { .. }), "{err}");

        let round = parse_manifest("agent-config", &manifest_bytes(&manifest)).expect("parses");
        assert_eq!(round, manifest);
        let err = parse_manifest("agent-config", b"{\"segments\": 3}").expect_err("refused");
        assert!(
            err.to_string().contains("agent-config: key segments.json"),
            "{err}"
        );
    }

    #[test]
    fn a_line_longer_than_a_segment_is_a_segment_of_its_own() {
        let long = "x".repeat(SEGMENT_MAX_BYTES + 10);
        let text = format!("a: 1\nb: {long}\nc: 2\n");
        let parts = texts(&[&text]);
        assert_eq!(parts.concat(), text);
        assert_eq!(
            parts.len(),
            3,
            "{:?}",
            parts.iter().map(String::len).collect::<Vec<_>>()
        );
    }

    #[test]
    fn stored_bytes_are_gzip_above_the_threshold_and_decode_back() {
        let small = "a: 1\n";
        assert_eq!(
            encode(small, small.len()).expect("encodes"),
            small.as_bytes()
        );
        let big = config(200, 20, "ns");
        assert!(big.len() > GZIP_THRESHOLD);
        // A short segment of a large config is compressed too.
        assert!(
            encode(small, big.len())
                .expect("encodes")
                .starts_with(&[0x1f, 0x8b])
        );
        let bytes = encode(&big, big.len()).expect("encodes");
        assert!(bytes.starts_with(&[0x1f, 0x8b]));
        assert_eq!(decode(&bytes).expect("decodes"), big);
        assert!(
            decode(&[0x1f, 0x8b, 0, 1])
                .expect_err("torn")
                .contains("gzip")
        );
    }

    /// Every segment of a config above the threshold is compressed, and the cache does not
    /// give back the plain bytes of a segment stored while its config was below it.
    #[test]
    fn every_segment_of_a_large_config_is_compressed_whatever_the_cache_held() {
        let small = config(20, 2, "ns");
        assert!(small.len() < GZIP_THRESHOLD);
        let mut cache = SegmentCache::default();
        let before = store("h", &[&small], Some(&mut cache)).expect("stored");
        assert_eq!(before.len(), 1);
        assert_eq!(before[0].bytes.as_slice(), small.as_bytes());
        let large = format!("{small}{}", "# filler line\n".repeat(GZIP_THRESHOLD / 10));
        let after = store("h", &[&large], Some(&mut cache)).expect("stored");
        assert!(after.len() > 1 || after[0].text_len > GZIP_THRESHOLD);
        for segment in &after {
            assert!(
                segment.bytes.starts_with(&[0x1f, 0x8b]),
                "{}",
                segment.secret
            );
        }
        let many = store("h", &[&config(3000, 20, "ns")], None).expect("stored");
        assert!(many.len() > 5);
        assert!(many.iter().all(|s| s.bytes.starts_with(&[0x1f, 0x8b])));
    }
}
