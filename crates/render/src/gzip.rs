//! gzip for config Secrets, in independent segments: compressed on every core, and, with a
//! [`GzipCache`], only the segments whose text changed since the previous call.
//!
//! The text is cut into segments of about [`SEGMENT_BYTES`]; each is deflated on its own,
//! by a compressor first shown the 32 KiB before it (so it may refer back to them, as one
//! stream would) and ended by a sync flush on a byte boundary. The raw segments are
//! concatenated into one deflate stream closed by an empty final block, and wrapped in one
//! gzip member whose CRC is combined from the segments' CRCs. Any gzip reader (the
//! config-reloader's Go `compress/gzip`, `gunzip`) reads it as one stream, and it is within
//! a fraction of a percent of the size of a single-stream gzip.
//!
//! Cuts fall at line ends chosen from the content (the first line, at least
//! [`SEGMENT_BYTES`] after the previous cut, whose hash has its low bits zero), so text
//! inserted or removed in one place moves only the cut of its own segment: the following
//! segments are found again unchanged, and a cache reuses them. The output depends only on
//! the text, never on the cache or the number of threads. The segments are compressed on
//! rayon's pool (a controller calls this from tokio's blocking pool: no thread is started per
//! call), and a cache keeps each segment's digest, not its text.

use std::io;

use flate2::{Compress, Compression, Crc, FlushCompress, GzBuilder};
use std::hash::BuildHasher;

use foldhash::quality::RandomState;
use rayon::prelude::*;

/// Minimum length of a segment.
pub const SEGMENT_BYTES: usize = 512 * 1024;
/// A line whose hash has these bits zero ends a segment (once it is long enough):
/// about one line in 256, a few KB past the minimum.
const CUT_MASK: u64 = 0xff;

/// One compressed segment, kept to be reused when the same text comes again.
#[derive(Debug)]
struct Segment {
    /// What its compressed bytes depend on, when kept for a cache: see [`identity`].
    identity: Option<Identity>,
    deflated: Vec<u8>,
    crc: Crc,
}

/// Two keyed 64-bit hashes (foldhash, seeded at random per cache) of the length of a
/// segment's primer (the text before it that its compression could refer back to), the primer
/// and the segment's text. A cache keeps these 16 bytes instead of a copy of text that can be
/// tens of MB. Not MD5: hashing the whole config at every edit took a third of the operator's
/// CPU at 10k monitors (BENCHMARKS.md), and foldhash runs at memory speed. The keys are
/// random and never leave the process, so a user cannot craft text whose segment is taken for
/// another; by chance, two different texts match with probability 2^-128.
type Identity = [u64; 2];

fn identity(keys: &[RandomState; 2], primer: &[u8], piece: &[u8]) -> Identity {
    keys.each_ref()
        .map(|key| key.hash_one((primer.len(), primer, piece)))
}

/// How far back deflate refers: a segment is compressed after the compressor has seen this
/// much of the text before it (and its output for that text is thrown away), so it refers
/// back into the previous segment as one stream would. The decompressor holds that text
/// already, having just produced it.
const WINDOW: usize = 32 * 1024;

/// Compressed segments of the previous text given to [`GzipCache::compress`].
#[derive(Debug, Default)]
pub struct GzipCache {
    segments: Vec<Segment>,
    /// The keys of [`identity`], fixed for the cache's lifetime.
    keys: [RandomState; 2],
    /// Segments reused by the last call.
    pub reused: usize,
    /// Segments compressed by the last call.
    pub compressed: usize,
}

/// gzip of `text` (fixed header: no name, mtime 0), equal texts giving equal bytes.
pub fn gzip(text: &str) -> io::Result<Vec<u8>> {
    GzipCache::default().compress_keeping(text, false)
}

impl GzipCache {
    /// gzip of `text`, the same bytes as [`gzip`]; segments equal to the previous call's
    /// segments at the same position are not compressed again.
    pub fn compress(&mut self, text: &str) -> io::Result<Vec<u8>> {
        self.compress_keeping(text, true)
    }

    /// [`GzipCache::compress`]; without `keep`, nothing is remembered for the next call.
    fn compress_keeping(&mut self, text: &str, keep: bool) -> io::Result<Vec<u8>> {
        let bytes = text.as_bytes();
        let mut start: usize = 0;
        let pieces: Vec<Pending<'_>> = cut_points(bytes)
            .into_iter()
            .map(|end| {
                let piece = (
                    &bytes[start.saturating_sub(WINDOW)..start],
                    &bytes[start..end],
                );
                start = end;
                piece
            })
            .collect();
        let identities: Vec<Option<Identity>> = if keep {
            pieces
                .par_iter()
                .map(|(primer, piece)| Some(identity(&self.keys, primer, piece)))
                .collect()
        } else {
            vec![None; pieces.len()]
        };
        let mut previous = std::mem::take(&mut self.segments).into_iter();
        let mut slots: Vec<Option<Segment>> = identities
            .iter()
            .map(|id| {
                previous
                    .next()
                    .filter(|old| id.is_some() && old.identity == *id)
            })
            .collect();
        drop(previous);
        let missing: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].is_none()).collect();
        self.reused = slots.len() - missing.len();
        self.compressed = missing.len();

        let fresh: Vec<Segment> = missing
            .par_iter()
            .map(|&i| {
                let (primer, piece) = pieces[i];
                compress_segment(primer, piece, identities[i])
            })
            .collect::<io::Result<_>>()?;
        for (i, segment) in missing.into_iter().zip(fresh) {
            slots[i] = Some(segment);
        }
        let segments: Vec<Segment> = slots.into_iter().flatten().collect();

        let mut out = header()?;
        let mut crc = Crc::new();
        for s in &segments {
            out.extend_from_slice(&s.deflated);
            crc.combine(&s.crc);
        }
        // An empty final block with fixed codes: BFINAL=1, BTYPE=01, end-of-block.
        out.extend_from_slice(&[0x03, 0x00]);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        // ISIZE is the length modulo 2^32, as RFC 1952 defines it.
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        self.segments = segments;
        Ok(out)
    }
}

/// The 10-byte gzip header flate2 writes for an unnamed member with mtime 0.
fn header() -> io::Result<Vec<u8>> {
    let empty = GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), Compression::default())
        .finish()?;
    Ok(empty[..10].to_vec())
}

/// The end offsets of the segments of `bytes` (the last one is `bytes.len()`).
///
/// A segment ends after the first line that starts at least [`SEGMENT_BYTES`] into it and
/// whose hash has its [`CUT_MASK`] bits zero; text before that point is not even read, so
/// finding the cuts of a 50 MB config costs next to nothing.
fn cut_points(bytes: &[u8]) -> Vec<usize> {
    let line_end_after =
        |start: usize| memchr::memchr(b'\n', &bytes[start..]).map(|i| start + i + 1);
    let mut cuts = Vec::new();
    let mut segment_start = 0;
    while bytes.len() - segment_start > SEGMENT_BYTES {
        let Some(first_line) = line_end_after(segment_start + SEGMENT_BYTES) else {
            break;
        };
        // Text whose lines never qualify (all alike) is still cut, at four times the minimum.
        let give_up = segment_start + 4 * SEGMENT_BYTES;
        let mut line_start = first_line;
        let mut cut = None;
        // A last line without its newline never ends a segment.
        while let Some(line_end) = line_end_after(line_start) {
            if line_hash(&bytes[line_start..line_end]) & CUT_MASK == 0 || line_end >= give_up {
                cut = Some(line_end);
                break;
            }
            line_start = line_end;
        }
        let Some(end) = cut else { break };
        if end >= bytes.len() {
            break;
        }
        cuts.push(end);
        segment_start = end;
    }
    cuts.push(bytes.len());
    cuts
}

/// A hash of one line, eight bytes at a time (most of a large config's lines are looked
/// at only to be found not to end a segment, so this is the hot loop of a cached gzip).
fn line_hash(line: &[u8]) -> u64 {
    const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;
    let mix = |hash: u64, word: u64| (hash ^ word).wrapping_mul(MULTIPLIER).rotate_left(29);
    let mut words = line.chunks_exact(8);
    let mut hash = (line.len() as u64).wrapping_mul(MULTIPLIER);
    for word in &mut words {
        let mut le = [0u8; 8];
        le.copy_from_slice(word);
        hash = mix(hash, u64::from_le_bytes(le));
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    hash = mix(hash, u64::from_le_bytes(tail));
    // The high bits are the best mixed: fold them down onto the bits CUT_MASK tests.
    hash ^ (hash >> 32) ^ (hash >> 47)
}

/// A segment still to compress: the text before it (up to [`WINDOW`]) and its own.
type Pending<'t> = (&'t [u8], &'t [u8]);

/// Raw deflate of `piece`, ended by a sync flush (byte-aligned, not final), free to refer
/// back into `primer`, the text just before it.
fn compress_segment(
    primer: &[u8],
    piece: &[u8],
    identity: Option<Identity>,
) -> io::Result<Segment> {
    let mut compress = Compress::new(Compression::default(), false);
    if !primer.is_empty() {
        let mut discarded = Vec::with_capacity(primer.len() / 4 + 1024);
        deflate_flushed(&mut compress, primer, &mut discarded)?;
    }
    let mut out = Vec::with_capacity(piece.len() / 16 + 1024);
    deflate_flushed(&mut compress, piece, &mut out)?;
    let mut crc = Crc::new();
    crc.update(piece);
    Ok(Segment {
        identity,
        deflated: out,
        crc,
    })
}

/// Feeds all of `input` to `compress` and sync-flushes, appending the output to `out`.
fn deflate_flushed(compress: &mut Compress, input: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    let mut input = input;
    loop {
        if out.capacity() - out.len() < 1024 {
            out.reserve(out.capacity().max(4096));
        }
        let before = compress.total_in();
        compress
            .compress_vec(input, out, FlushCompress::Sync)
            .map_err(io::Error::other)?;
        let consumed = usize::try_from(compress.total_in() - before).unwrap_or(input.len());
        input = &input[consumed..];
        // The flush is complete when input is used up and output space was left over.
        if input.is_empty() && out.len() < out.capacity() {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    fn gunzip(bytes: &[u8]) -> String {
        let mut text = String::new();
        flate2::read::GzDecoder::new(bytes)
            .read_to_string(&mut text)
            .expect("valid gzip");
        text
    }

    /// A config-like text: many similar jobs, each a little different.
    fn jobs(count: usize, variant: &str) -> String {
        (0..count)
            .map(|i| {
                format!(
                    "    - job_name: serviceMonitor/ns-{}/sm-{i}/0\n      scrape_interval: '{variant}'\n      relabel_configs:\n      - source_labels:\n        - job\n        target_label: __tmp_prometheus_job_name\n",
                    i % 50
                )
            })
            .collect()
    }

    #[test]
    fn small_and_empty_texts_round_trip() {
        for text in ["", "a", "server: {}\n", "no newline at the end"] {
            assert_eq!(gunzip(&gzip(text).expect("gzip")), text);
        }
    }

    #[test]
    fn a_large_text_is_cut_into_segments_and_round_trips() {
        let text = jobs(40_000, "30s");
        let cuts = cut_points(text.as_bytes());
        assert!(cuts.len() > 4, "{} segments", cuts.len());
        assert_eq!(cuts.last(), Some(&text.len()));
        let bytes = gzip(&text).expect("gzip");
        assert_eq!(gunzip(&bytes), text);
        // Segments refer back into the previous one: as small as one stream, within 0.5%.
        let mut single = flate2::write::GzEncoder::new(Vec::new(), Compression::default());
        std::io::Write::write_all(&mut single, text.as_bytes()).expect("write");
        let single = single.finish().expect("finish");
        assert!(
            bytes.len() * 100 <= single.len() * 1005 / 10,
            "{} vs {}",
            bytes.len(),
            single.len()
        );
    }

    #[test]
    fn the_cache_recompresses_only_the_segment_that_changed_and_gives_the_same_bytes() {
        let before = jobs(40_000, "30s");
        let mut cache = GzipCache::default();
        let first = cache.compress(&before).expect("gzip");
        assert_eq!(first, gzip(&before).expect("gzip"));
        assert_eq!(cache.reused, 0);
        let segments = cache.compressed;

        // One job in the middle gets longer: the text after it shifts.
        let marker = "sm-20000/0\n      scrape_interval: '30s'";
        let after = before.replacen(marker, "sm-20000/0\n      scrape_interval: '1m30s'", 1);
        assert_ne!(after, before);
        let second = cache.compress(&after).expect("gzip");
        assert_eq!(
            second,
            gzip(&after).expect("gzip"),
            "same bytes as without a cache"
        );
        assert_eq!(gunzip(&second), after);
        assert!(
            cache.compressed <= 2,
            "{} of {segments} compressed again",
            cache.compressed
        );
        assert!(cache.reused >= segments - 2);
    }
}
