//! gzip for config Secrets, in independent pieces compressed on every core.
//!
//! The text is cut into pieces of about [`SEGMENT_BYTES`]; each is deflated on its own, by a
//! compressor first shown the 32 KiB before it (so it may refer back to them, as one stream
//! would) and ended by a sync flush on a byte boundary. The raw pieces are concatenated into
//! one deflate stream closed by an empty final block, and wrapped in one gzip member whose
//! CRC is combined from the pieces' CRCs. Any gzip reader (the config loader, Go's
//! `compress/gzip`, `gunzip`) reads it as one stream, and it is within a fraction of a
//! percent of the size of a single-stream gzip.
//!
//! Cuts fall at line ends chosen from the content (the first line, at least
//! [`SEGMENT_BYTES`] after the previous cut, whose hash has its low bits zero): the output
//! depends only on the text, never on the number of threads or the chunks the text is given
//! in. The pieces are compressed on rayon's pool (a controller calls this from tokio's
//! blocking pool: no thread is started per call), a few at a time (twice as many as rayon
//! has threads), each copied with its primer into a buffer reused from batch to batch.
//!
//! What an edit recompresses is decided a level up: a config is stored in segments
//! ([`crate::segments`]) of at most [`crate::segments::SEGMENT_MAX_BYTES`], each compressed
//! here on its own, and only the segments whose text changed are compressed again.

use std::io;
use std::ops::Range;

use crate::text_chunks::ChunkText;
use flate2::{Compress, Compression, Crc, FlushCompress, GzBuilder};
use rayon::prelude::*;

/// Minimum length of a piece.
pub const SEGMENT_BYTES: usize = 512 * 1024;
/// A line whose hash has these bits zero ends a piece (once it is long enough):
/// about one line in 256, a few KB past the minimum.
const CUT_MASK: u64 = 0xff;

/// One compressed piece.
#[derive(Debug)]
struct Segment {
    deflated: Vec<u8>,
    crc: Crc,
}

/// How far back deflate refers: a piece is compressed after the compressor has seen this
/// much of the text before it (and its output for that text is thrown away), so it refers
/// back into the previous piece as one stream would. The decompressor holds that text
/// already, having just produced it.
const WINDOW: usize = 32 * 1024;

/// gzip of `text` (fixed header: no name, mtime 0), equal texts giving equal bytes.
pub fn gzip(text: &str) -> io::Result<Vec<u8>> {
    gzip_chunks(&[text])
}

/// [`gzip`] of the concatenation of `chunks`, without ever concatenating them.
pub fn gzip_chunks(chunks: &[&str]) -> io::Result<Vec<u8>> {
    compress_text(&ChunkText::new(chunks))
}

/// Compresses `text`, piece by piece, in batches of twice as many pieces as rayon has
/// threads: enough to keep every core busy, few enough that the copies of their text (and of
/// their primers) stay a few MB whatever the size of the text.
fn compress_text(text: &ChunkText<'_>) -> io::Result<Vec<u8>> {
    let mut start = 0;
    let ranges: Vec<Range<usize>> = cut_points(text)
        .into_iter()
        .map(|end| {
            let range = start..end;
            start = end;
            range
        })
        .collect();
    let batch = 2 * rayon::current_num_threads().max(1);
    // One buffer per piece of a batch, reused from batch to batch.
    let mut buffers: Vec<Vec<u8>> = vec![Vec::new(); batch];
    let mut out = header()?;
    let mut crc = Crc::new();
    for group in ranges.chunks(batch) {
        let compressed: Vec<Segment> = group
            .par_iter()
            .zip(buffers.par_iter_mut())
            .map(|(range, buffer)| {
                // The primer and the piece in one contiguous buffer, so that the compressed
                // bytes do not depend on where chunks begin.
                let primer_start = range.start.saturating_sub(WINDOW);
                let bytes = text.bytes(primer_start..range.end, buffer);
                let (primer, piece) = bytes.split_at(range.start - primer_start);
                compress_segment(primer, piece)
            })
            .collect::<io::Result<_>>()?;
        for segment in compressed {
            out.extend_from_slice(&segment.deflated);
            crc.combine(&segment.crc);
        }
    }
    // An empty final block with fixed codes: BFINAL=1, BTYPE=01, end-of-block.
    out.extend_from_slice(&[0x03, 0x00]);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    // ISIZE is the length modulo 2^32, as RFC 1952 defines it.
    out.extend_from_slice(&(text.len as u32).to_le_bytes());
    Ok(out)
}

/// The 10-byte gzip header flate2 writes for an unnamed member with mtime 0.
fn header() -> io::Result<Vec<u8>> {
    let empty = GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), Compression::default())
        .finish()?;
    Ok(empty[..10].to_vec())
}

/// The end offsets of the pieces of `text` (the last one is its length).
fn cut_points(text: &ChunkText<'_>) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut segment_start = 0;
    while let Some(end) = next_cut(text, segment_start) {
        cuts.push(end);
        segment_start = end;
    }
    cuts.push(text.len);
    cuts
}

/// Where the piece that starts at `segment_start` ends, `None` when it runs to the end of
/// `text` (it is the last one).
///
/// A piece ends after the first line that starts at least [`SEGMENT_BYTES`] into it and
/// whose hash has its [`CUT_MASK`] bits zero; text before that point is not even read, so
/// finding the cuts of a 50 MB config costs next to nothing.
fn next_cut(text: &ChunkText<'_>, segment_start: usize) -> Option<usize> {
    if text.len - segment_start <= SEGMENT_BYTES {
        return None;
    }
    let first_line = text.line_end_after(segment_start + SEGMENT_BYTES)?;
    // Text whose lines never qualify (all alike) is still cut, at four times the minimum.
    let give_up = segment_start + 4 * SEGMENT_BYTES;
    // A line spread over several chunks is copied here to be hashed.
    let mut line = Vec::new();
    let mut line_start = first_line;
    // A last line without its newline never ends a piece.
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
/// at only to be found not to end a piece, so this is the hot loop of finding the cuts).
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
fn compress_segment(primer: &[u8], piece: &[u8]) -> io::Result<Segment> {
    let mut compress = Compress::new(Compression::default(), false);
    if !primer.is_empty() {
        let mut discarded = Vec::with_capacity(primer.len() / 4 + 1024);
        deflate_flushed(&mut compress, primer, &mut discarded)?;
    }
    let mut out = Vec::with_capacity(piece.len() / 16 + 1024);
    deflate_flushed(&mut compress, piece, &mut out)?;
    let mut crc = Crc::new();
    crc.update(piece);
    Ok(Segment { deflated: out, crc })
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
        let cuts = cut_points(&ChunkText::new(&[&text]));
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
        assert!(cut_points(&ChunkText::new(&[&text])).len() > 8);
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
}
