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
//! the text, never on the cache, the number of threads or the chunks the text is given in.
//! The segments are compressed on rayon's pool (a controller calls this from tokio's
//! blocking pool: no thread is started per call), and a cache keeps each segment's digest,
//! not its text.
//!
//! The text may be given as chunks ([`GzipCache::compress_chunks`]): a config assembled from
//! per-monitor parts is compressed from those parts, and never laid out whole (47 MB at 10k
//! ServiceMonitors, for a Secret of 0.8 MB). Cuts are found across chunks; segments are
//! handled a few at a time (twice as many as rayon has threads), each copied with its primer
//! into a buffer reused from batch to batch, then hashed and, unless the cache holds it,
//! compressed. A whole `&str` is the one-chunk case of the same code.

use std::io;
use std::ops::Range;

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

/// Compressed segments of the previous text given to [`GzipCache::compress`] or
/// [`GzipCache::compress_chunks`].
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
    gzip_chunks(&[text])
}

/// [`gzip`] of the concatenation of `chunks`, without ever concatenating them.
pub fn gzip_chunks(chunks: &[&str]) -> io::Result<Vec<u8>> {
    GzipCache::default().compress_text(&Text::new(chunks), false)
}

impl GzipCache {
    /// gzip of `text`, the same bytes as [`gzip`]; segments equal to the previous call's
    /// segments at the same position are not compressed again.
    pub fn compress(&mut self, text: &str) -> io::Result<Vec<u8>> {
        self.compress_chunks(&[text])
    }

    /// [`GzipCache::compress`] of the concatenation of `chunks` (the same bytes, the same
    /// segments reused), without ever holding that concatenation: only the few segments
    /// being compressed at a time are copied out of the chunks.
    pub fn compress_chunks(&mut self, chunks: &[&str]) -> io::Result<Vec<u8>> {
        self.compress_text(&Text::new(chunks), true)
    }

    /// Compresses `text`, segment by segment, in batches of twice as many segments as rayon
    /// has threads: enough to keep every core busy, few enough that the copies of their text
    /// (and of their primers) stay a few MB whatever the size of the config. Without `keep`,
    /// no segment is reused and nothing is remembered for the next call.
    fn compress_text(&mut self, text: &Text<'_>, keep: bool) -> io::Result<Vec<u8>> {
        let mut start = 0;
        let ranges: Vec<Range<usize>> = cut_points(text)
            .into_iter()
            .map(|end| {
                let range = start..end;
                start = end;
                range
            })
            .collect();
        let mut previous: Vec<Option<Segment>> = std::mem::take(&mut self.segments)
            .into_iter()
            .map(Some)
            .collect();
        let batch = 2 * rayon::current_num_threads().max(1);
        // One buffer per segment of a batch, reused from batch to batch.
        let mut buffers: Vec<Vec<u8>> = vec![Vec::new(); batch];
        let keys = &self.keys;
        let mut kept = Vec::with_capacity(if keep { ranges.len() } else { 0 });
        let (mut reused, mut compressed) = (0, 0);
        let mut out = header()?;
        let mut crc = Crc::new();
        for (first, group) in (0..).step_by(batch).zip(ranges.chunks(batch)) {
            let previous_ids: Vec<Option<Identity>> = (first..first + group.len())
                .map(|i| {
                    previous
                        .get(i)
                        .and_then(Option::as_ref)
                        .and_then(|s| s.identity)
                })
                .collect();
            // `None` for a segment the previous call had at the same place.
            let fresh: Vec<Option<Segment>> = group
                .par_iter()
                .zip(buffers.par_iter_mut())
                .zip(previous_ids)
                .map(|((range, buffer), previous_id)| {
                    // The primer and the segment in one contiguous buffer, so that neither
                    // the identity nor the compressed bytes depend on where chunks begin.
                    let primer_start = range.start.saturating_sub(WINDOW);
                    let bytes = text.bytes(primer_start..range.end, buffer);
                    let (primer, piece) = bytes.split_at(range.start - primer_start);
                    let id = keep.then(|| identity(keys, primer, piece));
                    if id.is_some() && id == previous_id {
                        return Ok(None);
                    }
                    compress_segment(primer, piece, id).map(Some)
                })
                .collect::<io::Result<_>>()?;
            for (i, segment) in (first..).zip(fresh) {
                let old = previous.get_mut(i).and_then(Option::take);
                let segment = match segment {
                    Some(segment) => {
                        compressed += 1;
                        segment
                    }
                    None => {
                        reused += 1;
                        // Only a segment found at `i` in the previous call is reused.
                        old.ok_or_else(|| io::Error::other("gzip cache: reused segment lost"))?
                    }
                };
                out.extend_from_slice(&segment.deflated);
                crc.combine(&segment.crc);
                if keep {
                    kept.push(segment);
                }
            }
        }
        // An empty final block with fixed codes: BFINAL=1, BTYPE=01, end-of-block.
        out.extend_from_slice(&[0x03, 0x00]);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        // ISIZE is the length modulo 2^32, as RFC 1952 defines it.
        out.extend_from_slice(&(text.len as u32).to_le_bytes());
        self.segments = kept;
        self.reused = reused;
        self.compressed = compressed;
        Ok(out)
    }
}

/// gzip of a text written a piece at a time at its end, compressed while it grows: each
/// segment is compressed as soon as the text shows where it ends (on every core when several
/// are ready), so a writer can stop as soon as the compressed size is certain to pass a bound
/// ([`GrowingGzip::min_len`]), without writing the rest. [`GrowingGzip::finish`] gives the
/// very bytes [`gzip`] gives for the whole text: the segments are cut where [`gzip`] cuts
/// them.
#[derive(Debug)]
pub struct GrowingGzip {
    /// The header and the segments compressed so far.
    out: Vec<u8>,
    crc: Crc,
    /// Where the next segment starts: the text before it is compressed.
    consumed: usize,
}

/// The bytes that end a gzip member after its last segment: the empty final block, CRC-32 and
/// ISIZE.
const TRAILER_LEN: usize = 2 + 4 + 4;

impl GrowingGzip {
    pub fn new() -> io::Result<Self> {
        Ok(GrowingGzip {
            out: header()?,
            crc: Crc::new(),
            consumed: 0,
        })
    }

    /// Compresses the segments of `text` that are complete now. `text` is the whole text
    /// written so far: it starts with the text of the previous call.
    pub fn advance(&mut self, text: &str) -> io::Result<()> {
        self.compress(text, false)
    }

    /// How many bytes of the text are compressed.
    pub fn consumed(&self) -> usize {
        self.consumed
    }

    /// A lower bound of the length of the finished gzip, whatever text follows: what is
    /// compressed so far and the bytes that end the member.
    pub fn min_len(&self) -> usize {
        self.out.len() + TRAILER_LEN
    }

    /// The gzip of `text`, the whole text (it starts with the text of every previous call).
    pub fn finish(mut self, text: &str) -> io::Result<Vec<u8>> {
        self.compress(text, true)?;
        let mut out = self.out;
        // An empty final block with fixed codes: BFINAL=1, BTYPE=01, end-of-block.
        out.extend_from_slice(&[0x03, 0x00]);
        out.extend_from_slice(&self.crc.sum().to_le_bytes());
        // ISIZE is the length modulo 2^32, as RFC 1952 defines it.
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        Ok(out)
    }

    /// Compresses the complete segments after [`GrowingGzip::consumed`], and with `last` the
    /// rest of `text` as the last segment.
    fn compress(&mut self, text: &str, last: bool) -> io::Result<()> {
        let whole = Text::new(&[text]);
        let mut ranges = Vec::new();
        let mut start = self.consumed;
        while let Some(end) = next_cut(&whole, start) {
            ranges.push(start..end);
            start = end;
        }
        if last {
            ranges.push(start..text.len());
            start = text.len();
        }
        let bytes = text.as_bytes();
        let segments: Vec<Segment> = ranges
            .par_iter()
            .map(|range| {
                let primer = &bytes[range.start.saturating_sub(WINDOW)..range.start];
                compress_segment(primer, &bytes[range.clone()], None)
            })
            .collect::<io::Result<_>>()?;
        for segment in segments {
            self.out.extend_from_slice(&segment.deflated);
            self.crc.combine(&segment.crc);
        }
        self.consumed = start;
        Ok(())
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

/// The text to compress, read where it lies: in the chunks it was given as (a config's frame
/// lines and per-monitor parts), never laid end to end as a whole.
struct Text<'t> {
    /// The non-empty chunks, in order.
    chunks: Vec<&'t [u8]>,
    /// Where each of `chunks` starts in the text.
    starts: Vec<usize>,
    len: usize,
}

impl<'t> Text<'t> {
    fn new(chunks: &[&'t str]) -> Self {
        let chunks: Vec<&[u8]> = chunks
            .iter()
            .map(|c| c.as_bytes())
            .filter(|c| !c.is_empty())
            .collect();
        let mut len = 0;
        let starts = chunks
            .iter()
            .map(|c| {
                let start = len;
                len += c.len();
                start
            })
            .collect();
        Text {
            chunks,
            starts,
            len,
        }
    }

    /// The index of the chunk holding byte `pos` of the text (below its length).
    fn chunk_of(&self, pos: usize) -> usize {
        // The first chunk starts at 0 <= pos, so at least one start is counted.
        self.starts.partition_point(|&s| s <= pos).saturating_sub(1)
    }

    /// The end of the line holding byte `start` (just past its newline), `None` when no
    /// newline follows.
    fn line_end_after(&self, start: usize) -> Option<usize> {
        if start >= self.len {
            return None;
        }
        let first = self.chunk_of(start);
        let mut from = start - self.starts[first];
        for (chunk, chunk_start) in self.chunks[first..].iter().zip(&self.starts[first..]) {
            if let Some(i) = memchr::memchr(b'\n', &chunk[from..]) {
                return Some(chunk_start + from + i + 1);
            }
            from = 0;
        }
        None
    }

    /// Bytes `range` of the text: borrowed from its chunk when one chunk holds them all,
    /// copied into `buffer` otherwise.
    fn bytes<'b>(&'b self, range: Range<usize>, buffer: &'b mut Vec<u8>) -> &'b [u8] {
        if range.is_empty() {
            return &[];
        }
        let first = self.chunk_of(range.start);
        let offset = range.start - self.starts[first];
        if let Some(within) = self.chunks[first].get(offset..offset + range.len()) {
            return within;
        }
        buffer.clear();
        buffer.reserve(range.len());
        let mut from = offset;
        for chunk in &self.chunks[first..] {
            let wanted = range.len() - buffer.len();
            let piece = &chunk[from..];
            buffer.extend_from_slice(&piece[..wanted.min(piece.len())]);
            if buffer.len() == range.len() {
                break;
            }
            from = 0;
        }
        buffer
    }
}

/// The end offsets of the segments of `text` (the last one is its length).
fn cut_points(text: &Text<'_>) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut segment_start = 0;
    while let Some(end) = next_cut(text, segment_start) {
        cuts.push(end);
        segment_start = end;
    }
    cuts.push(text.len);
    cuts
}

/// Where the segment that starts at `segment_start` ends, `None` when it runs to the end of
/// `text` (it is the last one).
///
/// A segment ends after the first line that starts at least [`SEGMENT_BYTES`] into it and
/// whose hash has its [`CUT_MASK`] bits zero; text before that point is not even read, so
/// finding the cuts of a 50 MB config costs next to nothing. A cut depends only on the whole
/// lines before it and is never the end of the text, so a cut found in a text that later
/// grows at its end is a cut of the grown text too ([`GrowingGzip`]).
fn next_cut(text: &Text<'_>, segment_start: usize) -> Option<usize> {
    if text.len - segment_start <= SEGMENT_BYTES {
        return None;
    }
    let first_line = text.line_end_after(segment_start + SEGMENT_BYTES)?;
    // Text whose lines never qualify (all alike) is still cut, at four times the minimum.
    let give_up = segment_start + 4 * SEGMENT_BYTES;
    // A line spread over several chunks is copied here to be hashed.
    let mut line = Vec::new();
    let mut line_start = first_line;
    // A last line without its newline never ends a segment.
    while let Some(line_end) = text.line_end_after(line_start) {
        let hash = line_hash(text.bytes(line_start..line_end, &mut line));
        if hash & CUT_MASK == 0 || line_end >= give_up {
            return (line_end < text.len).then_some(line_end);
        }
        line_start = line_end;
    }
    None
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
        let cuts = cut_points(&Text::new(&[&text]));
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

    /// `text` cut into chunks by `lengths` (cycled), each end moved forward to a character
    /// boundary; zero lengths give empty chunks.
    fn split<'t>(text: &'t str, lengths: &[usize]) -> Vec<&'t str> {
        let mut chunks = Vec::new();
        let mut start = 0;
        for &len in lengths.iter().cycle() {
            if start == text.len() {
                break;
            }
            let mut end = (start + len).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            chunks.push(&text[start..end]);
            start = end;
        }
        chunks
    }

    /// Pseudo-random chunk lengths up to `max`, one in eight zero.
    fn random_lengths(seed: u64, max: usize) -> Vec<usize> {
        let mut state = seed;
        (0..1000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if state.is_multiple_of(8) {
                    0
                } else {
                    (state >> 8) as usize % max
                }
            })
            .collect()
    }

    /// A config-like text of several MB, with multi-byte characters and lines long and short.
    fn config_like() -> String {
        let mut text = jobs(40_000, "30s");
        text.insert_str(
            3_000_000,
            &format!("      comment: \"é{}\"\n", "ü".repeat(70_000)),
        );
        text
    }

    #[test]
    fn compressing_chunks_gives_the_bytes_of_compressing_their_concatenation() {
        let text = config_like();
        let whole = gzip(&text).expect("gzip");
        assert!(cut_points(&Text::new(&[&text])).len() > 8);
        let splits = [
            split(&text, &random_lengths(1, 5000)),
            split(&text, &random_lengths(2, 300_000)),
            // Cuts every few bytes, inside lines and characters.
            split(&text, &random_lengths(3, 16)),
            // Two chunks, the cut inside a line.
            split(&text, &[text.len() / 2 + 7, text.len()]),
            vec!["", &text, ""],
        ];
        for (n, chunks) in splits.iter().enumerate() {
            assert_eq!(chunks.concat(), text);
            let mut cache = GzipCache::default();
            assert!(
                cache.compress_chunks(chunks).expect("gzip") == whole,
                "split {n}"
            );
            assert_eq!(cache.reused, 0);
            assert!(gzip_chunks(chunks).expect("gzip") == whole, "split {n}");
        }
        for text in ["", "a", "server: {}\n"] {
            for chunks in [vec![text], vec!["", text, ""], split(text, &[1])] {
                assert_eq!(
                    gzip_chunks(&chunks).expect("gzip"),
                    gzip(text).expect("gzip")
                );
            }
        }
        for nothing in [vec![], vec![""], vec!["", ""]] {
            assert_eq!(
                gzip_chunks(&nothing).expect("gzip"),
                gzip("").expect("gzip")
            );
        }
    }

    /// A text compressed while it is written, whatever the pieces it is written in, gives the
    /// bytes of compressing it whole; what is compressed before the end never shrinks, so
    /// `min_len` is a bound a writer may stop on.
    #[test]
    fn a_growing_text_gives_the_bytes_of_compressing_it_whole() {
        let text = config_like();
        let whole = gzip(&text).expect("gzip");
        for (n, lengths) in [
            random_lengths(4, 5000),
            random_lengths(5, 900_000),
            vec![3 * SEGMENT_BYTES + 17],
            vec![text.len()],
        ]
        .iter()
        .enumerate()
        {
            let mut growing = GrowingGzip::new().expect("header");
            let mut written = String::new();
            let mut bound = growing.min_len();
            for piece in split(&text, lengths) {
                written.push_str(piece);
                growing.advance(&written).expect("gzip");
                assert!(growing.min_len() >= bound);
                bound = growing.min_len();
                assert!(growing.consumed() <= written.len());
            }
            assert!(bound <= whole.len(), "split {n}");
            assert!(
                growing.finish(&written).expect("gzip") == whole,
                "split {n}"
            );
        }
        for text in ["", "a", "server: {}\n"] {
            let mut growing = GrowingGzip::new().expect("header");
            growing.advance(text).expect("gzip");
            assert_eq!(
                growing.finish(text).expect("gzip"),
                gzip(text).expect("gzip")
            );
        }
    }

    #[test]
    fn a_warm_cache_reuses_the_same_segments_whatever_the_chunks() {
        let before = config_like();
        let after = before.replacen(
            "sm-20000/0\n      scrape_interval: '30s'",
            "sm-20000/0\n      scrape_interval: '1m30s'",
            1,
        );
        // The reference: the whole texts through one cache.
        let mut whole = GzipCache::default();
        whole.compress(&before).expect("gzip");
        let expected = whole.compress(&after).expect("gzip");
        assert!(
            whole.compressed <= 2 && whole.reused > 8,
            "{} reused, {} compressed",
            whole.reused,
            whole.compressed
        );

        let mut chunked = GzipCache::default();
        chunked
            .compress_chunks(&split(&before, &random_lengths(4, 5000)))
            .expect("gzip");
        assert_eq!(chunked.compressed, whole.reused + whole.compressed);
        // Split differently the second time: the identity of a segment is its text.
        let second = chunked
            .compress_chunks(&split(&after, &random_lengths(5, 3000)))
            .expect("gzip");
        assert!(second == expected, "same bytes as the whole text");
        assert_eq!(
            (chunked.reused, chunked.compressed),
            (whole.reused, whole.compressed)
        );
        assert_eq!(gunzip(&second), after);

        // A whole text, then the same segments in chunks: found again.
        let mut mixed = GzipCache::default();
        mixed.compress(&before).expect("gzip");
        let third = mixed
            .compress_chunks(&split(&after, &random_lengths(6, 700)))
            .expect("gzip");
        assert!(third == expected);
        assert_eq!(
            (mixed.reused, mixed.compressed),
            (whole.reused, whole.compressed)
        );
    }
}
